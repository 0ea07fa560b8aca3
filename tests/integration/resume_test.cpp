// Interruption and exclusion, on every warehouse engine: kill -9 in the middle of a sync,
// then resume, with no loss and no duplicate; SIGINT; messages produced during a sync; a
// sync already running keeps a second one out; changing the warehouse schema starts anew;
// a run that fails before reading still leaves its record. And, engine-free: a bad manifest
// names the key and the line, an unreachable broker says so.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Resume : public EngineTest {
 protected:
  // Messages {"i": from} .. {"i": from + n - 1}, flushed.
  static void produce_numbered(Producer& p, const std::string& topic, int from, int n) {
    for (int i = from; i < from + n; ++i) p.send(topic, Record{std::nullopt, "{\"i\": " + std::to_string(i) + "}"});
    p.flush();
  }

  struct Stored {
    int64_t rows = -1, distinct_ids = -1, positions = -1;
    bool operator==(const Stored&) const = default;
  };
  // The table and positions after a kill -9. A server may still carry out a COMMIT the killed
  // client sent just before it died, so three separate readings can straddle it: read until two
  // in a row agree.
  Stored stored_after_kill(const std::string& table) {
    Stored last;
    for (int i = 0; i < 50; ++i) {
      const Stored now{probe().count(table), probe().distinct_ids(table), probe().positions_sum()};
      if (now == last) return now;
      last = now;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return last;
  }
};

TEST_P(Resume, KillNineMidwayThenResumeLosesAndDuplicatesNothing) {
  const auto topic = make_topic("kill", 4);
  Producer p(bootstrap_, {}, {{"linger.ms", "20"}});
  const int total = 120000;
  for (int i = 0; i < total; ++i)
    p.send(topic, Record{"k" + std::to_string(i % 101), "{\"n\": " + std::to_string(i) + ", \"pad\": \"" +
                                                             std::string(120, 'x') + "\"}"});
  p.flush();
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 2000\n");
  const auto table = table_of(topic);

  // Kill repeatedly, each time a little later, until a kill lands between two commits.
  int midway_kills = 0;
  for (int attempt = 0; attempt < 14 && midway_kills < 2; ++attempt) {
    const pid_t pid = start_krow({"sync", manifest});
    std::this_thread::sleep_for(std::chrono::milliseconds(250 + 60 * attempt));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!probe().has_table(table)) continue;  // killed before the table was made
    const auto [rows, distinct_ids, positions] = stored_after_kill(table);
    EXPECT_EQ(distinct_ids, rows);
    // What is stored is exactly what the positions say was committed.
    EXPECT_EQ(rows, positions);
    if (rows > 0 && rows < total) ++midway_kills;
    if (rows == total) break;
  }
  EXPECT_GE(midway_kills, 1) << "no kill landed in the middle of the sync";

  sync_ok(manifest);
  EXPECT_EQ(probe().count(table), total);
  EXPECT_EQ(probe().distinct_ids(table), total);
  // Content equals what an independent consumer reads.
  const auto oracle = consume_all(bootstrap_, topic);
  ASSERT_EQ(oracle.size(), static_cast<size_t>(total));
  EXPECT_EQ(differences(probe().rows(table), oracle), 0u);
}

TEST_P(Resume, InterruptCommitsTheBatchInHandAndExits130) {
  const auto topic = make_topic("sigint", 2);
  Producer p(bootstrap_, {}, {{"linger.ms", "20"}});
  const int total = 150000;
  for (int i = 0; i < total; ++i) p.send(topic, Record{std::nullopt, "{\"n\": " + std::to_string(i) + "}"});
  p.flush();
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 5000\n");
  const pid_t pid = start_krow({"sync", manifest});
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  const int code = WEXITSTATUS(status);
  EXPECT_TRUE(code == 130 || code == 0) << code;
  EXPECT_EQ(probe().count(table_of(topic)), probe().positions_sum());
  if (code == 130) {
    const auto runs = probe().run_records();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_NE(runs[0].find("\"interrupted\""), std::string::npos) << runs[0];
  }
  sync_ok(manifest);
  EXPECT_EQ(probe().distinct_ids(table_of(topic)), total);
  EXPECT_EQ(probe().count(table_of(topic)), total);
}

TEST_P(Resume, MessagesProducedDuringASyncWaitForTheNext) {
  const auto topic = make_topic("during", 3);
  Producer p(bootstrap_, {}, {{"linger.ms", "5"}});
  for (int i = 0; i < 30000; ++i) p.send(topic, Record{std::nullopt, "{\"before\": " + std::to_string(i) + "}"});
  p.flush();
  std::atomic<bool> done{false};
  std::atomic<int> during{0};
  std::thread producer([&] {
    Producer q(bootstrap_, {}, {{"linger.ms", "1"}});
    while (!done) {
      q.send(topic, Record{std::nullopt, std::string("{\"during\": true}")});
      ++during;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    q.flush();
  });
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 1000\n");
  const auto r = krow({"sync", manifest});
  done = true;
  producer.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_GT(during.load(), 0);
  // The run read exactly up to the boundaries it captured at start, and no further.
  const auto runs = probe().run_records();
  ASSERT_EQ(runs.size(), 1u);
  simdjson::dom::parser parser;
  simdjson::dom::element record = parser.parse(runs[0]);
  std::map<int64_t, int64_t> boundaries;
  for (auto part : record["tables"].at(0)["partitions"].get_array())
    boundaries[int64_t(part["partition"])] = int64_t(part["boundary"]);
  ASSERT_EQ(boundaries.size(), 3u);
  const auto rows = probe().rows(table_of(topic));
  std::map<int64_t, int64_t> per_partition;
  for (const auto& row : rows) {
    EXPECT_LT(row.offset, boundaries[row.partition]) << "partition " << row.partition;
    ++per_partition[row.partition];
  }
  int64_t sum = 0;
  for (const auto& [part, boundary] : boundaries) sum += boundary;
  EXPECT_EQ(static_cast<int64_t>(rows.size()), sum);
  for (const auto& pos : probe().positions()) EXPECT_EQ(pos.next_offset, boundaries[pos.partition]);
  // The next sync picks up the rest.
  sync_ok(manifest);
  EXPECT_EQ(probe().count(table_of(topic)), 30000 + during.load());
  EXPECT_EQ(probe().distinct_ids(table_of(topic)), 30000 + during.load());
}

TEST_P(Resume, SecondSyncOfTheSameManifestIsRefusedWhileOneRuns) {
  const auto topic = make_topic("locked");
  Producer p(bootstrap_);
  p.send(topic, Record{std::nullopt, std::string("{}")});
  p.flush();
  const auto manifest = write_manifest({topic});
  {
    // Sync ID `it` held as a running sync holds it, for as long as `lock` lives.
    const auto lock = hold_sync_lock("it");
    const auto r = krow({"sync", manifest});
    EXPECT_EQ(r.exit_code, 75) << r.err;  // not a failure to fix: try again later
    EXPECT_NE(r.err.find("another sync of 'it' is already running"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("try again later"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(traits().sync_lock_holder), std::string::npos) << r.err;
    EXPECT_EQ(probe().count(table_of(topic)), 0);
  }
  sync_ok(manifest);
  EXPECT_EQ(probe().count(table_of(topic)), 1);
}

TEST_P(Resume, AnotherWarehouseSchemaStartsFromNothing) {
  const auto topic = make_topic("schemas", 2);
  Producer p(bootstrap_);
  for (int i = 0; i < 40; ++i) p.send(topic, Record{std::nullopt, "{\"i\": " + std::to_string(i) + "}"});
  p.flush();
  sync_ok(write_manifest({topic}));
  EXPECT_EQ(probe().count(table_of(topic)), 40);
  // Same sync ID, another schema: its tables are new, so it must not resume from the
  // positions of the first one.
  std::ofstream(dir() / "other.yaml") << "name: it\nsource:\n  bootstrap_servers: " << bootstrap_
                                      << "\ntopics:\n  names: [\"" << topic << "\"]\n" << warehouse_yaml("other");
  sync_ok((dir() / "other.yaml").string());
  const auto other = probe_for("other");
  EXPECT_EQ(other->count(table_of(topic)), 40);
  EXPECT_EQ(other->distinct_ids(table_of(topic)), 40);
  EXPECT_EQ(probe().count(table_of(topic)), 40);
  int64_t first = 0, second = 0;
  for (const auto& pos : probe().positions("confluent")) first += pos.next_offset;
  for (const auto& pos : probe().positions("other")) second += pos.next_offset;
  EXPECT_EQ(first, 40);
  EXPECT_EQ(second, 40);
}

TEST_P(Resume, RunThatFailsBeforeReadingLeavesARecord) {
  std::ofstream(dir() / "down.yaml") << "name: it\nsource:\n  bootstrap_servers: 127.0.0.1:1\n  connect_timeout: 2\n"
                                     << warehouse_yaml();
  const auto r = krow({"sync", (dir() / "down.yaml").string()});
  EXPECT_EQ(r.exit_code, 75);  // may pass by itself: run again later
  const auto runs = probe().run_records();
  ASSERT_EQ(runs.size(), 1u);
  simdjson::dom::parser parser;
  simdjson::dom::element record = parser.parse(runs[0]);
  EXPECT_EQ(std::string_view(record["status"]), "failed");
  const std::string error(std::string_view(record["errors"].at(0)));
  EXPECT_NE(error.find("bootstrap_servers"), std::string::npos) << error;
  EXPECT_EQ(int64_t(record["messages"]), 0);
  EXPECT_TRUE(bool(record["retry_later"]));
}

TEST_P(Resume, StoredPositionBeyondATruncatedLogResumesAtItsEndAndRecordsTheGap) {
  const auto topic = make_topic("truncated");
  Producer p(bootstrap_);
  auto produce = [&](int from, int n) { produce_numbered(p, topic, from, n); };
  produce(0, 10);
  const auto manifest = write_manifest({topic});
  sync_ok(manifest);
  // The state an unclean leader election leaves: krow had copied up to offset 25, the log
  // now ends at 10. Offsets 10..24 will be written again, with new messages.
  probe().set_position(topic, 0, 25);
  const auto plan = krow({"plan", manifest});
  EXPECT_NE(plan.out.find("the log now ends at 10, below the position"), std::string::npos) << plan.out;
  sync_ok(manifest);  // moves the position down to the log's end, and says so
  EXPECT_EQ(probe().positions_sum(), 10);
  simdjson::dom::parser parser;
  const auto record_text = probe().run_records().at(0);
  simdjson::dom::element record = parser.parse(record_text);
  ASSERT_EQ(record["gaps"].get_array().size(), 1u) << record_text;
  EXPECT_EQ(int64_t(record["gaps"].at(0)["from"]), 10);
  EXPECT_EQ(int64_t(record["gaps"].at(0)["to"]), 25);
  EXPECT_NE(std::string_view(record["gaps"].at(0)["reason"]).find("truncated"), std::string_view::npos);
  produce(10, 20);
  sync_ok(manifest);
  const auto rows = probe().rows(table_of(topic));
  ASSERT_EQ(rows.size(), 30u);
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].offset, static_cast<int64_t>(i));
  EXPECT_EQ(probe().positions_sum(), 30);
}

TEST_P(Resume, RetentionGapFoundAtStartIsSkippedAndRecorded) {
  const auto topic = make_topic("expired");
  Producer p(bootstrap_);
  auto produce = [&](int from, int n) { produce_numbered(p, topic, from, n); };
  produce(0, 30);
  const auto manifest = write_manifest({topic});
  sync_ok(manifest);
  produce(30, 20);
  admin_.delete_records(topic, 0, 40);  // offsets 30..39 expire before krow reads them
  const auto plan = krow({"plan", manifest});
  EXPECT_NE(plan.out.find("offsets 30..39 expired before they were read"), std::string::npos) << plan.out;
  sync_ok(manifest);
  const auto rows = probe().rows(table_of(topic));
  ASSERT_EQ(rows.size(), 40u);
  EXPECT_EQ(rows[29].offset, 29);
  EXPECT_EQ(rows[30].offset, 40);
  EXPECT_EQ(probe().positions_sum(), 50);
  simdjson::dom::parser parser;
  const auto record_text = probe().run_records().at(0);
  simdjson::dom::element record = parser.parse(record_text);
  ASSERT_EQ(record["gaps"].get_array().size(), 1u) << record_text;
  EXPECT_EQ(int64_t(record["gaps"].at(0)["from"]), 30);
  EXPECT_EQ(int64_t(record["gaps"].at(0)["to"]), 40);
}

TEST_P(Resume, RetentionGapOpenedDuringASyncIsSkippedAndRecorded) {
  const auto topic = make_topic("expiring");
  Producer p(bootstrap_);
  // 4,000 messages of ~10 kB: more than the reader fetches ahead of a frozen sync.
  const std::string pad(10000, 'x');
  for (int i = 0; i < 4000; ++i) p.send(topic, Record{std::nullopt, "{\"i\": " + std::to_string(i) + ", \"pad\": \"" + pad + "\"}"});
  p.flush();
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 200\n");
  const pid_t pid = start_krow_frozen_after_first_batch({"sync", "-q", manifest});
  admin_.delete_records(topic, 0, 3000);  // under the running sync, as retention would
  kill(pid, SIGCONT);
  int status = 0;
  ASSERT_TRUE(finishes(pid, std::chrono::seconds(120), status));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  // Rows: 0..g-1 (read before the deletion) and 3000..3999, each once; g..2999 are the gap.
  const auto rows = probe().rows(table_of(topic));
  int64_t below = 0;
  std::set<int64_t> offsets;
  for (const auto& r : rows) {
    below += r.offset < 3000;
    offsets.insert(r.offset);
  }
  ASSERT_EQ(offsets.size(), rows.size());
  EXPECT_EQ(*offsets.rbegin(), 3999);
  EXPECT_EQ(rows.size(), static_cast<size_t>(below + 1000));
  EXPECT_LT(below, 3000);
  EXPECT_EQ(probe().positions_sum(), 4000);
  simdjson::dom::parser parser;
  const auto record_text = probe().run_records().at(0);
  simdjson::dom::element record = parser.parse(record_text);
  ASSERT_EQ(record["gaps"].get_array().size(), 1u) << record_text;
  EXPECT_EQ(int64_t(record["gaps"].at(0)["from"]), below);
  EXPECT_EQ(int64_t(record["gaps"].at(0)["to"]), 3000);
  EXPECT_NE(std::string_view(record["gaps"].at(0)["reason"]).find("while the sync ran"), std::string_view::npos);
}

INSTANTIATE_TEST_SUITE_P(Engines, Resume, KROW_ALL_ENGINES);

class Manifests : public SyncTest {};

TEST_F(Manifests, TypoNamesTheKeyAndLine) {
  std::ofstream(dir() / "typo.yaml") << "name: typo\nsource:\n  bootstrap_server: 127.0.0.1:9092\n"
                                        "warehouse:\n  path: w.duckdb\n";
  const auto r = krow({"sync", (dir() / "typo.yaml").string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("typo.yaml:3: unknown key 'bootstrap_server' in source; did you mean 'bootstrap_servers'?"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir() / "w.duckdb"));
}

TEST_F(Manifests, WarehousePathInAnUnwritablePlaceNamesTheSetting) {
  // /proc cannot hold new folders or files, whoever runs the test (root included).
  for (const std::string path : {"/proc/krow-nowhere/w.duckdb", "/proc/self/w.duckdb"}) {
    std::ofstream(dir() / "nowhere.yaml") << "name: nowhere\nsource:\n  bootstrap_servers: " << bootstrap_
                                          << "\nwarehouse:\n  path: " << path << "\n";
    const auto r = krow({"sync", (dir() / "nowhere.yaml").string()});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("warehouse.path"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("unexpected error"), std::string::npos) << r.err;
  }
}

TEST_F(Manifests, UnreachableBrokerFailsWithAClearMessage) {
  std::ofstream(dir() / "down.yaml") << "name: down\nsource:\n  bootstrap_servers: 127.0.0.1:1\n  connect_timeout: 3\n"
                                        "warehouse:\n  path: w.duckdb\n";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = krow({"plan", (dir() / "down.yaml").string()});
  EXPECT_EQ(r.exit_code, 75);
  EXPECT_NE(r.err.find("bootstrap_servers is reachable"), std::string::npos) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

}  // namespace
}  // namespace krow::testkit
