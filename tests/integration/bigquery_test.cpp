// BigQuery-only behaviour, against the local BigQuery-API emulator (scripts/bigquery.sh):
// the load job and the transaction that publishes it, an outage of the API mid-sync, and
// what a newcomer's manifest looks like. The shared adapter suite (Engines/*/bigquery)
// covers the rest.

#include <signal.h>
#include <sys/wait.h>

#include <simdjson.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class BigQuery : public SyncTest {
 protected:
  std::string engine() const override { return "bigquery"; }

  void fill(const std::string& topic, int partitions, int per_partition) {
    Producer p(bootstrap_, {}, {{"linger.ms", "5"}});
    for (int part = 0; part < partitions; ++part)
      for (int i = 0; i < per_partition; ++i)
        p.send(topic, Record{"k" + std::to_string(i % 17), "{\"p\": " + std::to_string(part) + ", \"i\": " +
                                                               std::to_string(i) + "}", {}, part});
    p.flush();
  }

  BqSession session() const { return BqSession(BqSession::default_endpoint(), bq_project()); }

  // The load tables krow left in its load dataset.
  int64_t load_tables_rows() {
    auto bq = session();
    int64_t n = 0;
    for (const auto& row : bq.query("SELECT table_name FROM `" + bq_project() +
                                    "._krow_loads_us`.INFORMATION_SCHEMA.TABLES WHERE table_name LIKE 'load_%'")
                               .rows)
      n += std::stoll(bq.scalar("SELECT COUNT(*) FROM `" + bq_project() + "._krow_loads_us." + *row[0] + "`"));
    return n;
  }

  // Runs scripts/bigquery.sh with `command`, with the environment the tests run in (the
  // same services folder and ports).
  static void emulator(const std::string& command) {
    const std::string line = "bash " + source_dir() + "/scripts/bigquery.sh " + command + " >/dev/null 2>&1";
    ASSERT_EQ(std::system(line.c_str()), 0) << line;
  }
};

// kill -9 after a batch was loaded and before the transaction that publishes it: nothing is
// published, and the next run stores every message once.
TEST_F(BigQuery, KilledBetweenLoadAndPublishPublishesNothingAndResumesWithoutDuplicates) {
  const auto topic = make_topic("bq-kill", 2);
  fill(topic, 2, 150);
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 100\n");
  const auto table = table_of(topic);

  set_env("KROW_TEST_STOP_AFTER_LOAD", "1");  // krow stops itself with SIGSTOP after the load job
  const pid_t pid = start_krow({"sync", manifest});
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, WUNTRACED), pid);
  ASSERT_TRUE(WIFSTOPPED(status)) << "krow ended instead of stopping after its first load";
  // The batch is loaded, and nothing of it is published.
  EXPECT_EQ(load_tables_rows(), 100);
  EXPECT_EQ(probe().count(table), 0);
  EXPECT_TRUE(probe().positions().empty());
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  set_env("KROW_TEST_STOP_AFTER_LOAD", "0");

  EXPECT_EQ(probe().count(table), 0);
  EXPECT_TRUE(probe().positions().empty());

  // The next run takes over the dead run's lease at once (same host, its pid is gone).
  const auto r = krow({"sync", manifest});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(probe().count(table), 300);
  EXPECT_EQ(probe().distinct_ids(table), 300);
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);
  EXPECT_EQ(probe().positions_sum(), 300);
}

// The API goes away mid-sync (the emulator stops, and starts again with its data): krow
// retries from its last committed batch, and every message is stored once.
TEST_F(BigQuery, EmulatorRestartMidSyncLosesAndDuplicatesNothing) {
  const auto topic = make_topic("bq-restart", 3);
  fill(topic, 3, 2000);
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 500\n");
  const auto table = table_of(topic);

  const pid_t pid = start_krow_frozen_after_first_batch({"sync", manifest});
  emulator("stop");
  kill(pid, SIGCONT);  // krow now meets a closed port, and retries
  std::this_thread::sleep_for(std::chrono::seconds(3));
  emulator("start");
  int status = 0;
  ASSERT_TRUE(finishes(pid, std::chrono::seconds(240), status)) << "krow did not finish after the restart";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);

  EXPECT_EQ(probe().count(table), 6000);
  EXPECT_EQ(probe().distinct_ids(table), 6000);
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);
  EXPECT_EQ(probe().positions_sum(), 6000);
}

// A full resync re-reads every message and replaces rows by id: still one row per message.
TEST_F(BigQuery, FullResyncReplacesRowsById) {
  const auto topic = make_topic("bq-resync", 2);
  fill(topic, 2, 120);
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 50\n");
  sync_ok(manifest);
  const auto r = krow({"resync", manifest, "--full"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto table = table_of(topic);
  EXPECT_EQ(probe().count(table), 240);
  EXPECT_EQ(probe().distinct_ids(table), 240);
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);
}

// Row tables are partitioned by day of kafka_timestamp and clustered by topic ID and
// partition, unless the manifest says otherwise.
TEST_F(BigQuery, TablesArePartitionedAndClusteredAsConfigured) {
  const auto topic = make_topic("bq-layout");
  fill(topic, 1, 3);
  sync_ok(write_manifest({topic}));
  auto bq = session();
  simdjson::dom::parser parser;
  simdjson::dom::element t = parser.parse(bq.table_json("confluent", table_of(topic)));
  EXPECT_EQ(std::string_view(t["timePartitioning"]["type"]), "DAY");
  EXPECT_EQ(std::string_view(t["timePartitioning"]["field"]), "kafka_timestamp");
  std::vector<std::string> clustering;
  for (auto f : t["clustering"]["fields"].get_array()) clustering.emplace_back(std::string_view(f));
  EXPECT_EQ(clustering, (std::vector<std::string>{"kafka_topic_id", "kafka_partition"}));

  // Configurable: hourly partitions, clustered by partition alone.
  const auto other = make_topic("bq-layout-hourly");
  fill(other, 1, 3);
  std::ofstream(dir() / "hourly.yaml") << "name: hourly\nsource:\n  bootstrap_servers: " << bootstrap_
                                       << "\ntopics:\n  names: [\"" << other << "\"]\n" << warehouse_yaml()
                                       << "  partition_by: hour\n  cluster_by: [kafka_partition]\n";
  sync_ok((dir() / "hourly.yaml").string());
  simdjson::dom::element h = parser.parse(bq.table_json("confluent", table_of(other)));
  EXPECT_EQ(std::string_view(h["timePartitioning"]["type"]), "HOUR");
  EXPECT_EQ(std::string_view(h["clustering"]["fields"].at(0)), "kafka_partition");
  EXPECT_EQ(probe().count(table_of(other)), 3);
}

}  // namespace
}  // namespace krow::testkit
