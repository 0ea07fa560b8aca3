// `krow sync --follow --metrics-address` (docs/metrics.md): a continuous sync's figures in
// Prometheus's text format, compared with what the warehouse holds, then scraped by a real
// Prometheus server (Debian's) and read back through Prometheus's own query API, on every
// engine. Also: hostile requests to the endpoint, and the addresses and runs it refuses.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <simdjson.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>

#include "child_server.hpp"
#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

using std::chrono::seconds;

class Metrics : public EngineTest {
 protected:
  void TearDown() override {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    EngineTest::TearDown();
  }

  void produce(const std::string& topic, int from, int count, bool framed = false) {
    Producer p(bootstrap_);
    for (int i = from; i < from + count; ++i)
      // A value framed for a schema registry, with no registry configured: a decode_error.
      p.send(topic, Record{"k" + std::to_string(i), framed ? std::string("\0\0\0\0\7xyz", 8)
                                                           : "{\"n\": " + std::to_string(i) + "}"});
    p.flush();
  }

  pid_t pid_ = -1;
};

TEST_P(Metrics, AContinuousSyncsFiguresMatchItsTableAndAPrometheusServerScrapesThem) {
  const auto topic = make_topic("metrics", 3);
  const auto manifest = write_manifest({topic}, "batch:\n  max_wait: 300ms\n");
  produce(topic, 0, 290);
  produce(topic, 290, 10, /*framed=*/true);
  pid_ = start_krow({"sync", "-q", manifest, "--follow", "--metrics-address", "127.0.0.1:0"});
  int port = 0;
  ASSERT_TRUE(
      eventually([&] { return (port = metrics_port(dir() / "krow-bg.err")) > 0; }, seconds(60)));
  ASSERT_TRUE(eventually([&] { return rows_in(topic) == 300; }, seconds(90)));
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/metrics";
  const std::string mine = "sync=\"" + sync_id_ + "\"";
  const std::string of_topic = mine + ",topic=\"" + topic + "\"";

  // The endpoint's own figures, against the table.
  std::string text;
  ASSERT_TRUE(eventually(
      [&] {
        text = http(url).body;
        return sample(text, "krow_rows_written_total", mine) == 300.0 &&
               sample(text, "krow_partition_lag_messages", "partition=\"2\"," + of_topic) == 0.0;
      },
      seconds(30)))
      << text;
  EXPECT_NE(text.find("# TYPE krow_messages_read_total counter"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE krow_commit_duration_seconds histogram"), std::string::npos) << text;
  EXPECT_EQ(sample(text, "krow_messages_read_total", of_topic), 300.0) << text;
  EXPECT_EQ(sample(text, "krow_decode_errors_total", of_topic), 10.0) << text;
  EXPECT_EQ(sample(text, "krow_fence_conflicts_total", mine), 0.0) << text;
  const auto batches = sample(text, "krow_batches_total", mine);
  ASSERT_TRUE(batches && *batches >= 1) << text;
  EXPECT_EQ(sample(text, "krow_commit_duration_seconds_count", mine), *batches) << text;
  for (const char* p : {"0", "1", "2"})
    EXPECT_EQ(sample(text, "krow_partition_lag_messages",
                     "partition=\"" + std::string(p) + "\"," + of_topic),
              0.0)
        << text;
  EXPECT_GT(sample(text, "krow_last_commit_timestamp_seconds", mine).value_or(0), 1.7e9) << text;
  // No credential of the warehouse in any figure or label.
  if (const char* secret = std::getenv("KROW_TEST_PG_PASSWORD"); secret && *secret) {
    EXPECT_EQ(text.find(secret), std::string::npos);
  }

  // A real Prometheus scrapes it every second; its own API gives the same figures back, and
  // they follow what is produced next.
  ChildServer prometheus({"python3", source_dir() + "/tests/support/prometheus_child.py",
                          (dir() / "prometheus").string(), "127.0.0.1:" + std::to_string(port)});
  const int api = prometheus.port();
  ASSERT_TRUE(eventually([&] { return prometheus_query(api, "krow_rows_written_total") == 300.0; },
                         seconds(60)))
      << http("http://127.0.0.1:" + std::to_string(api) + "/api/v1/targets").body;
  EXPECT_EQ(prometheus_query(api, "sum(krow_messages_read_total)"), 300.0);
  EXPECT_EQ(prometheus_query(api, "sum(krow_decode_errors_total)"), 10.0);
  EXPECT_EQ(prometheus_query(api, "count(krow_partition_lag_messages)"), 3.0);
  EXPECT_EQ(prometheus_query(api, "up{job=\"krow\"}"), 1.0);
  produce(topic, 300, 100);
  EXPECT_TRUE(eventually([&] { return prometheus_query(api, "krow_rows_written_total") == 400.0; },
                         seconds(60)));
  EXPECT_TRUE(
      eventually([&] { return prometheus_query(api, "sum(krow_partition_lag_messages)") == 0.0; },
                 seconds(60)));

  kill(pid_, SIGTERM);
  int status = 0;
  EXPECT_TRUE(finishes(pid_, seconds(60), status));
  pid_ = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(rows_in(topic), 400);
}

INSTANTIATE_TEST_SUITE_P(Engines, Metrics, KROW_ALL_ENGINES);

class MetricsEndpoint : public SyncTest {
 protected:
  void TearDown() override {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    SyncTest::TearDown();
  }
  pid_t pid_ = -1;
};

TEST_F(MetricsEndpoint, AnswersOnlyGetMetricsSurvivesHostileRequestsAndRefusesBadAddresses) {
  const auto topic = make_topic("metrics-hostile", 1);
  const auto manifest = write_manifest({topic});

  // Refused before anything is read: not continuous, not an address, a port that is taken.
  auto r = krow({"sync", manifest, "--metrics-address", "127.0.0.1:0"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("add --follow"), std::string::npos) << r.err;
  r = krow({"sync", manifest, "--follow", "--metrics-address", "localhost"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("--metrics-address takes HOST:PORT"), std::string::npos) << r.err;
  const int taken = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(taken, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(taken, 1), 0);
  socklen_t len = sizeof a;
  getsockname(taken, reinterpret_cast<sockaddr*>(&a), &len);
  r = krow({"sync", manifest, "--follow", "--metrics-address",
            "127.0.0.1:" + std::to_string(ntohs(a.sin_port))});
  close(taken);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("cannot listen on 127.0.0.1:"), std::string::npos) << r.err;

  pid_ = start_krow({"sync", "-q", manifest, "--follow", "--metrics-address", ":0"});
  int port = 0;
  ASSERT_TRUE(
      eventually([&] { return (port = metrics_port(dir() / "krow-bg.err")) > 0; }, seconds(60)));
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  EXPECT_EQ(http(base + "/metrics").status, 200);
  const auto traversal = http(base + "/../../../../etc/passwd");
  EXPECT_GE(traversal.status, 400);
  EXPECT_EQ(traversal.body.find("root:"), std::string::npos);
  EXPECT_EQ(http(base + "/metrics/../../etc/passwd").body.find("root:"), std::string::npos);
  EXPECT_EQ(http(base + "/%3Cscript%3Ealert(1)%3C/script%3E").status, 404);
  EXPECT_GE(http(base + "/metrics", "POST", std::string(2 << 20, 'x')).status, 400);
  EXPECT_GE(http(base + "/metrics", "DELETE").status, 400);
  // A request that is not HTTP at all, then one cut short.
  for (const std::string& raw :
       {std::string("GARBAGE\r\n\r\n"), std::string("GET /metrics HTTP/1.1\r\nHost: x")}) {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
    EXPECT_EQ(write(s, raw.data(), raw.size()), static_cast<ssize_t>(raw.size()));
    close(s);
  }
  // Still serving, and still syncing.
  const auto after = http(base + "/metrics");
  EXPECT_EQ(after.status, 200);
  EXPECT_NE(after.body.find("krow_rows_written_total"), std::string::npos);
  Producer p(bootstrap_);
  p.send(topic, Record{"k", "{\"n\": 1}"});
  p.flush();
  EXPECT_TRUE(eventually([&] { return rows_in(topic) == 1; }, seconds(60)));
  kill(pid_, SIGTERM);
  int status = 0;
  EXPECT_TRUE(finishes(pid_, seconds(60), status));
  pid_ = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
}  // namespace krow::testkit
