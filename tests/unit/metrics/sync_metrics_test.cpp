// The figures of a sync in Prometheus's text format (src/metrics): what each event adds, the
// labels, the lag of a partition that moved away, and the listen addresses --metrics-address
// takes. No services: the endpoint itself is tested against a real Prometheus server in
// tests/integration/metrics_test.cpp.

#include "metrics/sync_metrics.hpp"

#include <gtest/gtest.h>

#include "metrics/metrics_endpoint.hpp"
#include "util/error.hpp"

namespace krow::metrics {
namespace {

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

TEST(SyncMetrics, EachEventMovesItsFigureUnderTheSyncsLabels) {
  SyncMetrics m("orders-sync");
  m.on_message("orders", false, 100);
  m.on_message("orders", true, 20);
  m.on_message("refunds", false, 5);
  m.on_commit(3, std::chrono::milliseconds(40));
  m.on_retry();
  m.on_fence_conflict();
  m.on_rebalance("assigned", 4);
  m.on_lag("orders", Partition(2), 17);
  m.on_run_end("success");
  const auto text = m.exposition();
  EXPECT_TRUE(has_line(text, "# TYPE krow_messages_read_total counter")) << text;
  EXPECT_TRUE(has_line(text, "krow_messages_read_total{sync=\"orders-sync\",topic=\"orders\"} 2"))
      << text;
  EXPECT_TRUE(has_line(text, "krow_messages_read_total{sync=\"orders-sync\",topic=\"refunds\"} 1"))
      << text;
  EXPECT_TRUE(has_line(text, "krow_decode_errors_total{sync=\"orders-sync\",topic=\"orders\"} 1"))
      << text;
  EXPECT_TRUE(has_line(text, "krow_read_bytes_total{sync=\"orders-sync\",topic=\"orders\"} 120"))
      << text;
  EXPECT_TRUE(has_line(text, "krow_rows_written_total{sync=\"orders-sync\"} 3")) << text;
  EXPECT_TRUE(has_line(text, "krow_batches_total{sync=\"orders-sync\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "krow_commit_duration_seconds_count{sync=\"orders-sync\"} 1")) << text;
  EXPECT_TRUE(
      has_line(text, "krow_commit_duration_seconds_bucket{sync=\"orders-sync\",le=\"0.05\"} 1"))
      << text;
  EXPECT_TRUE(
      has_line(text, "krow_commit_duration_seconds_bucket{sync=\"orders-sync\",le=\"0.025\"} 0"))
      << text;
  EXPECT_TRUE(has_line(text, "krow_warehouse_retries_total{sync=\"orders-sync\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "krow_fence_conflicts_total{sync=\"orders-sync\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "krow_rebalances_total{change=\"assigned\",sync=\"orders-sync\"} 1"))
      << text;
  EXPECT_TRUE(has_line(
      text,
      "krow_partition_lag_messages{partition=\"2\",sync=\"orders-sync\",topic=\"orders\"} 17"))
      << text;
  EXPECT_TRUE(has_line(text, "krow_runs_total{outcome=\"success\",sync=\"orders-sync\"} 1"))
      << text;
  EXPECT_EQ(text.find("krow_last_success_timestamp_seconds{sync=\"orders-sync\"} 0\n"),
            std::string::npos)
      << text;
}

TEST(SyncMetrics, APartitionThatMovedAwayLeavesNoLag) {
  SyncMetrics m("s");
  m.on_lag("t", Partition(0), 5);
  m.on_lag("t", Partition(1), 6);
  m.on_lag("t", Partition(1), 0);
  m.on_partition_gone("t", Partition(0));
  m.on_partition_gone("t", Partition(7));  // never read here: nothing to drop
  const auto text = m.exposition();
  EXPECT_EQ(text.find("partition=\"0\""), std::string::npos) << text;
  EXPECT_TRUE(
      has_line(text, "krow_partition_lag_messages{partition=\"1\",sync=\"s\",topic=\"t\"} 0"))
      << text;
}

TEST(ListenAddress, TakesHostPortBracketedIpv6AndABarePort) {
  auto a = parse_listen_address("0.0.0.0:9464", "--metrics-address");
  EXPECT_EQ(a.host, "0.0.0.0");
  EXPECT_EQ(a.port, 9464);
  a = parse_listen_address(":0", "--metrics-address");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 0);
  a = parse_listen_address("[::1]:9100", "--metrics-address");
  EXPECT_EQ(a.host, "::1");
  EXPECT_EQ(a.port, 9100);
  for (const char* bad :
       {"localhost", "::1:9100", "host:port", "host:70000", "host:-1", "", "h:"}) {
    try {
      parse_listen_address(bad, "--metrics-address");
      ADD_FAILURE() << bad << " was taken";
    } catch (const Error& e) {
      EXPECT_EQ(e.error_class(), ErrorClass::config) << bad;
      EXPECT_NE(std::string(e.what()).find("--metrics-address takes HOST:PORT"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace krow::metrics
