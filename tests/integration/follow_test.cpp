// `krow sync --follow`, the continuous sync (docs/continuous-sync.md), against a real broker
// and each warehouse: rows produced while it runs land within seconds (a quiet topic's within
// batch.max_wait), SIGTERM commits what was read and exits 0, new partitions and new topics
// of the selection join while it runs, a run record is left per interval, and what cannot be
// continuous is refused before anything is read.
//
// The warehouse is read through the probe while the sync runs: for a DuckDB file that works
// only because the sync, once caught up, closes the file between batches and whenever it has
// been idle for max_wait, so these tests also prove that read path.

#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <thread>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

using std::chrono::seconds;

class Follow : public EngineTest {
 protected:
  void TearDown() override {
    // A test that failed half-way leaves no krow behind.
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    EngineTest::TearDown();
  }

  void produce(const std::string& topic, int from, int count,
               int32_t partition = RD_KAFKA_PARTITION_UA) {
    Producer p(bootstrap_);
    for (int i = from; i < from + count; ++i) {
      Record r{"k" + std::to_string(i), "{\"n\": " + std::to_string(i) + "}"};
      r.partition = partition;
      p.send(topic, r);
    }
    p.flush();
  }

  void start_follow(const std::string& manifest, const std::vector<std::string>& more = {}) {
    std::vector<std::string> args{"sync", "-q", manifest, "--follow"};
    args.insert(args.end(), more.begin(), more.end());
    pid_ = start_krow(args);
  }

  // SIGTERM, then the exit status (waits up to 60 s).
  int stop_follow() {
    kill(pid_, SIGTERM);
    int status = 0;
    const bool ended = finishes(pid_, seconds(60), status);
    pid_ = -1;
    EXPECT_TRUE(ended) << "krow did not end within 60 s of SIGTERM";
    EXPECT_TRUE(WIFEXITED(status)) << "status " << status;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  std::string said() const {
    std::ifstream out(dir() / "krow-bg.out"), err(dir() / "krow-bg.err");
    std::stringstream s;
    s << out.rdbuf() << err.rdbuf();
    return s.str();
  }

  pid_t pid_ = -1;
};

TEST_P(Follow, MessagesProducedWhileItRunsLandWithinSecondsAndSigtermExitsZero) {
  const auto topic = make_topic("follow-live", 2);
  produce(topic, 0, 100);
  const auto manifest = write_manifest({topic}, "batch:\n  max_wait: 500ms\n");
  start_follow(manifest);
  ASSERT_TRUE(eventually([&] { return rows_in(topic) == 100; }, seconds(60))) << said();
  for (int round = 1; round <= 3; ++round) {
    produce(topic, 100 * round, 100);
    EXPECT_TRUE(eventually([&] { return rows_in(topic) == 100 * (round + 1); }, seconds(15)))
        << "round " << round << ": " << said();
  }
  EXPECT_EQ(stop_follow(), 0) << said();
  expect_every_message_once(topic, 400);
}

TEST_P(Follow, AQuietTopicsFewMessagesLandWithinMaxWait) {
  const auto topic = make_topic("follow-quiet", 1);
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 10000\n  max_wait: 1s\n");
  produce(topic, 0, 1);
  start_follow(manifest);
  ASSERT_TRUE(eventually([&] { return rows_in(topic) == 1; }, seconds(60))) << said();
  // Three messages, far from a full batch: only max_wait commits them.
  const auto t0 = std::chrono::steady_clock::now();
  produce(topic, 1, 3);
  ASSERT_TRUE(eventually([&] { return rows_in(topic) == 4; }, seconds(30))) << said();
  const auto took =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  // max_wait (1 s) + the commit + the probe's polling; generous for the BigQuery emulator.
  EXPECT_LT(took.count(), 8000) << "the quiet topic's messages took " << took.count() << " ms";
  EXPECT_EQ(stop_follow(), 0) << said();
  expect_every_message_once(topic, 4);
}

TEST_P(Follow, UnderSteadyProductionReadersSeeEachBatchAsItCommits) {
  // Messages every 50 ms, never a pause as long as max_wait: the sync is never idle, yet a
  // reader must see the rows grow batch by batch while production goes on (a DuckDB file is
  // let go between batches once the sync has caught up).
  const auto topic = make_topic("follow-steady", 2);
  const auto manifest = write_manifest({topic}, "batch:\n  max_wait: 500ms\n");
  start_follow(manifest);
  std::atomic<bool> producing{true};
  std::atomic<int> produced{0};
  std::thread producer([&] {
    Producer p(bootstrap_, {}, {{"linger.ms", "1"}});
    while (producing.load()) {
      for (int k = 0; k < 10; ++k, ++produced)
        p.send(topic, Record{"k", "{\"n\": " + std::to_string(produced.load()) + "}"});
      p.flush();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  std::set<int64_t> counts_seen;
  const auto until = std::chrono::steady_clock::now() + seconds(12);
  while (std::chrono::steady_clock::now() < until) {
    try {
      counts_seen.insert(rows_in(topic));
    } catch (const std::exception&) {  // the sync has the file: a batch is being committed
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  producing.store(false);
  producer.join();
  counts_seen.erase(0);
  EXPECT_GE(counts_seen.size(), 5u) << "a reader saw the rows grow only " << counts_seen.size()
                                    << " times in 12 s of steady production\n"
                                    << said();
  ASSERT_TRUE(eventually([&] { return rows_in(topic) == produced.load(); }, seconds(30))) << said();
  EXPECT_EQ(stop_follow(), 0) << said();
  expect_every_message_once(topic, produced.load());
}

TEST_P(Follow, SigtermCommitsTheBatchInHand) {
  const auto topic = make_topic("follow-drain", 2);
  // Neither limit nor max_wait is reached: only the drain at SIGTERM commits these rows.
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 100000\n  max_wait: 1h\n");
  start_follow(manifest, {"--refresh-interval", "1h"});
  produce(topic, 0, 500);
  // Setup, not an assertion: time to read them (nothing in the warehouse shows it).
  std::this_thread::sleep_for(seconds(4));
  EXPECT_EQ(stop_follow(), 0) << said();
  expect_every_message_once(topic, 500);
}

TEST_P(Follow, NewPartitionsAndNewTopicsOfTheSelectionArePickedUp) {
  const auto base = unique_name("follow-grow");
  const std::string a = base + ".a", b = base + ".b";
  admin_.create_topic(a, 1);
  delete_after_test(a);
  delete_after_test(b);
  produce(a, 0, 10);
  const auto path = dir() / "grow.yaml";
  std::ofstream(path) << "name: it\nsource:\n  bootstrap_servers: " << bootstrap_
                      << "\ntopics:\n  prefixes:\n    - \"" << base << ".\"\n"
                      << warehouse_yaml() << "batch:\n  max_wait: 500ms\n";
  start_follow(path.string(), {"--refresh-interval", "1s"});
  ASSERT_TRUE(eventually([&] { return rows_in(a) == 10; }, seconds(60))) << said();

  admin_.add_partitions(a, 3);
  produce(a, 10, 5, 2);  // into the new partition 2
  produce(a, 15, 5, 0);
  EXPECT_TRUE(eventually([&] { return rows_in(a) == 20; }, seconds(30)))
      << "new partition: " << said();

  admin_.create_topic(b, 2);
  admin_.wait_for_topic(b, 2);
  produce(b, 0, 30);
  EXPECT_TRUE(eventually([&] { return rows_in(b) == 30; }, seconds(30))) << "new topic: " << said();

  EXPECT_EQ(stop_follow(), 0) << said();
  // Both tables against an independent consumer (positions: 20 offsets of a, 30 of b).
  for (const auto& [topic, total] : {std::pair{a, 20}, std::pair{b, 30}}) {
    EXPECT_EQ(probe().distinct_ids(table_of(topic)), total) << topic;
    EXPECT_EQ(differences(probe().rows(table_of(topic)), consume_all(bootstrap_, topic)), 0u)
        << topic;
  }
  EXPECT_EQ(probe().positions_sum(), 50);
}

TEST_P(Follow, LeavesARunRecordPerIntervalAndOneAtExit) {
  const auto topic = make_topic("follow-records", 1);
  const auto manifest = write_manifest({topic}, "batch:\n  max_wait: 200ms\n");
  start_follow(manifest, {"--record-interval", "1s"});
  int produced = 0;
  auto interval_records = [&] {
    int n = 0;
    simdjson::dom::parser parser;
    for (const auto& text : probe().run_records()) {
      simdjson::dom::element r = parser.parse(text);
      n += std::string_view(r["status"]) == "running";
    }
    return n;
  };
  // Messages in several intervals, until at least three interval records are there.
  ASSERT_TRUE(eventually(
      [&] {
        produce(topic, produced, 7);
        produced += 7;
        return interval_records() >= 3;
      },
      seconds(60)))
      << said();
  // SIGTERM commits what was read; the last messages may not have been read yet.
  EXPECT_TRUE(eventually([&] { return rows_in(topic) == produced; }, seconds(15)));
  EXPECT_EQ(stop_follow(), 0) << said();

  // Every record of the process: counts since the previous one, so they add up to all rows.
  simdjson::dom::parser parser;
  std::string process;
  int64_t rows = 0;
  int finals = 0;
  std::set<int64_t> sequences;
  for (const auto& text : probe().run_records()) {
    simdjson::dom::element r = parser.parse(text);
    EXPECT_EQ(std::string_view(r["mode"]), "follow") << text;
    const auto p = std::string(std::string_view(r["follow"]["process_run_id"]));
    if (process.empty()) process = p;
    EXPECT_EQ(p, process) << "one process, one process_run_id";
    rows += int64_t(r["rows_published"]);
    sequences.insert(int64_t(r["follow"]["sequence"]));
    if (bool(r["follow"]["final"])) {
      ++finals;
      EXPECT_EQ(std::string_view(r["status"]), "success") << text;
      EXPECT_EQ(std::string_view(r["follow"]["reason"]), "exit") << text;
    }
  }
  EXPECT_EQ(finals, 1);
  EXPECT_EQ(rows, produced) << "the records' rows_published add up to every row";
  EXPECT_EQ(static_cast<int64_t>(sequences.size()), *sequences.rbegin())
      << "sequences 1..n, each once";
  expect_every_message_once(topic, produced);

  // `krow runs` lists them.
  const auto r = krow({"runs", manifest});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("running"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("follow"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Engines, Follow, KROW_ALL_ENGINES);

// What cannot be continuous is refused before anything is read (DuckDB: the refusal does not
// depend on the engine).
class FollowRefusals : public SyncTest {};

TEST_F(FollowRefusals, BoundsGatesStagedPublishAndFullRefreshAreRefusedWithTheReason) {
  const auto topic = make_topic("follow-refused", 1);
  struct Case {
    std::string extra;               // manifest YAML
    std::vector<std::string> flags;  // sync flags
    std::string says;
  };
  const std::vector<Case> cases{
      {"", {"--max-messages", "5"}, "bounds"},
      {"bounds:\n  until_offset: 10\n", {}, "bounds"},
      {"quality:\n  publish: staged\n", {}, "publish: staged"},
      {"quality:\n  gates:\n    - id: some\n      type: min_rows\n      min: 1\n",
       {},
       "quality gates"},
      {"tables:\n  \"*\": {strategy: full_refresh}\n", {}, "full_refresh"},
  };
  for (const auto& c : cases) {
    const auto manifest = write_manifest({topic}, c.extra);
    std::vector<std::string> args{"sync", "-q", manifest, "--follow"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    const auto r = krow(args);
    EXPECT_EQ(r.exit_code, 3) << c.says << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("--follow cannot"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  const auto r = krow({"sync", "-q", write_manifest({topic}), "--record-interval", "10s"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("add --follow"), std::string::npos) << r.err;
  EXPECT_FALSE(probe().has_table(table_of(topic))) << "a refused sync read nothing";
}

}  // namespace
}  // namespace krow::testkit
