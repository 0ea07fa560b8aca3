// Fault injection for workers (docs/workers.md) into PostgreSQL and the BigQuery emulator,
// under steady production into a topic of 24 partitions: workers killed with SIGKILL and restarted
// (at once, within the session timeout, or after it), a worker added and one removed; a "zombie"
// worker frozen with SIGSTOP past its session timeout while the group gives its partitions to the
// others and they commit past it, then woken; the broker and the warehouse server restarted under
// running workers. After each, every message is in the table exactly once and equal to what
// an independent consumer reads.

#include <signal.h>

#include <chrono>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "chaos_fixture.hpp"
#include "workers_fixture.hpp"

namespace krow::testkit {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class WorkersChaos : public WithWorkers<Chaos>, public ::testing::WithParamInterface<std::string> {
 protected:
  static constexpr int kPartitions = 24;
  std::string engine() const override { return GetParam(); }
  // The engine's name in the scenarios' rows.
  std::string on() const {
    return GetParam() == "postgres" ? " into PostgreSQL" : " into the BigQuery emulator";
  }

  void SetUp() override {
    WithWorkers<Chaos>::SetUp();
    topic_ = make_topic("chaos-workers", kPartitions);
    manifest_ = write_manifest({topic_}, "batch:\n  max_messages: 5000\n  max_wait: 500ms\n");
  }

  void start_three() {
    for (const auto* id : {"w1", "w2", "w3"}) start_worker(manifest_, id);
    ASSERT_TRUE(eventually(
        [&] {
          return owned_evenly(manifest_, {"w1", "w2", "w3"}, kPartitions);
        },
        seconds(90)))
        << said();
  }

  // Checks that no offset is in the table twice (while the workers run).
  void expect_no_offset_twice(const std::string& when) {
    try {
      const auto table = table_of(topic_);
      EXPECT_EQ(probe().repeated_ids(table), 0) << when;
    } catch (const std::exception& e) {  // the server may be down in this scenario
      std::printf("[chaos] note: no count %s: %s\n", when.c_str(), e.what());
    }
  }

  // The greatest offset stored per partition.
  std::map<int32_t, int64_t> last_offsets() {
    std::map<int32_t, int64_t> out;
    for (const auto& r : probe().rows(table_of(topic_)))
      out[r.partition] = std::max(out[r.partition], r.offset);
    return out;
  }

  // Stops production, waits until the workers have stored every message produced, stops
  // them (each must exit 0), and tallies the table against an independent consumer.
  Tally finish(SteadyProducer& producer) {
    EXPECT_EQ(producer.stop(), "");
    const auto expected = static_cast<int64_t>(consume_all(bootstrap_, topic_).size());
    EXPECT_TRUE(eventually([&] { return rows_in(topic_) >= expected; }, seconds(180))) << said();
    for (auto& [id, pid] : workers_)
      if (pid > 0) {
        EXPECT_EQ(stop_worker(id), 0) << "worker " << id << "\n" << said();
      }
    return tally(Topic{topic_, false});
  }

  std::string topic_, manifest_;
};

TEST_P(WorkersChaos, WorkersKilledAndRestartedAddedAndRemovedUnderSteadyProduction) {
  const int kills = scaled(6, 30);
  SteadyProducer producer(bootstrap_, topic_, {}, 100, milliseconds(50));
  start_three();
  std::mt19937 rng(static_cast<unsigned>(std::random_device{}()));
  std::uniform_int_distribution<int> delay(300, 3000);
  int late = 0;
  for (int i = 0; i < kills; ++i) {
    if (i == kills / 3) start_worker(manifest_, "w4");  // added: the group rebalances
    if (i == 2 * kills / 3) {
      EXPECT_EQ(stop_worker("w4"), 0) << said();  // removed
    }
    std::this_thread::sleep_for(milliseconds(delay(rng)));
    const std::string victim = "w" + std::to_string(1 + rng() % 3);
    kill9(victim);
    expect_no_offset_twice("after kill " + std::to_string(i));
    // Most come back at once (static membership: the group moves nothing); every fifth only
    // after the session timeout, once the others have taken its partitions.
    if (i % 5 == 1) {
      ++late;
      std::this_thread::sleep_for(seconds(15));
    }
    start_worker(manifest_, victim);
  }
  const auto t = finish(producer);
  expect_exact(t);
  report("kill -9 of one of 3 workers (24 partitions, " + std::to_string(late) +
             " restarted after the session timeout), a 4th added and removed" + on(),
         kills, t);
}

TEST_P(WorkersChaos, AZombieWorkerWokenAfterItsPartitionsMovedWritesNothing) {
  const int rounds = scaled(1, 3);
  SteadyProducer producer(bootstrap_, topic_, {}, 100, milliseconds(50));
  start_three();
  int fenced = 0, dropped = 0;
  for (int round = 0; round < rounds; ++round) {
    ASSERT_TRUE(eventually(
        [&] {
          return owned_evenly(manifest_, {"w1", "w2", "w3"}, kPartitions);
        },
        seconds(90)))
        << said();
    const auto its = group(manifest_)["w3"];
    ASSERT_FALSE(its.empty());
    std::this_thread::sleep_for(
        milliseconds(1500 + 300 * round));  // mid-batch: it holds read messages
    kill(workers_["w3"], SIGSTOP);
    const auto stopped = std::chrono::steady_clock::now();
    // Whatever w3 read before it froze is at most what Kafka held by now.
    std::map<int32_t, int64_t> held;
    for (const auto& m : consume_all(bootstrap_, topic_))
      held[m.partition] = std::max(held[m.partition], m.offset);
    // The group gives its partitions to w1 and w2 after the session timeout (12 s), and they
    // commit past everything w3 can have read.
    ASSERT_TRUE(eventually(
        [&] {
          return owned_evenly(manifest_, {"w1", "w2"}, kPartitions);
        },
        seconds(60)))
        << said();
    const auto moved = std::chrono::steady_clock::now();
    std::string behind;
    const bool past = eventually(
        [&] {
          const auto now = last_offsets();
          behind.clear();
          for (int p : its)
            if (now.count(p) == 0 || now.at(p) <= held[p])
              behind += " " + std::to_string(p) + " (stored " +
                        (now.count(p) ? std::to_string(now.at(p)) : std::string("none")) +
                        ", held " + std::to_string(held[p]) + ")";
          return behind.empty();
        },
        seconds(150));
    std::printf(
        "[chaos] round %d: the group moved w3's partitions after %lld s, the others "
        "committed past what it held %lld s later\n",
        round, static_cast<long long>(std::chrono::duration_cast<seconds>(moved - stopped).count()),
        static_cast<long long>(
            std::chrono::duration_cast<seconds>(std::chrono::steady_clock::now() - moved).count()));
    ASSERT_TRUE(past) << "partitions not committed past:" << behind << "\n" << said();
    const auto before = err_of("w3");
    kill(workers_["w3"], SIGCONT);
    // It wakes with a batch of partitions no longer its own: the fence refuses its commit,
    // or the group tells it first that its assignment was lost and it drops the batch.
    ASSERT_TRUE(eventually(
        [&] {
          const auto now = err_of("w3").substr(before.size());
          return now.find("taken by another worker") != std::string::npos ||
                 now.find("lost") != std::string::npos;
        },
        seconds(30)))
        << said();
    const auto woke = err_of("w3").substr(before.size());
    std::printf("[chaos] the zombie said on waking:\n%s\n", woke.c_str());
    fenced += woke.find("taken by another worker") != std::string::npos;
    dropped += woke.find("lost") != std::string::npos;
    expect_no_offset_twice("after the zombie woke in round " + std::to_string(round));
  }
  const auto t = finish(producer);
  expect_exact(t);
  report(
      "a worker frozen past its session timeout, its partitions moved and committed past, woken (" +
          std::to_string(fenced) + " fenced at commit, " + std::to_string(dropped) + " told lost)" +
          on(),
      rounds, t);
}

TEST_P(WorkersChaos, BrokerAndWarehouseServerRestartedUnderRunningWorkers) {
  // The emulator's restart is the slowest scenario here; CI runs PostgreSQL's.
  if (GetParam() == "bigquery" && !long_form()) GTEST_SKIP() << "long form only (scripts/chaos.sh)";
  const int rounds = scaled(1, 3);
  auto service = [&](const char* script, const char* command) {
    return std::system(
        ("bash " + source_dir() + "/scripts/" + script + " " + command + " >/dev/null 2>&1")
            .c_str());
  };
  SteadyProducer producer(bootstrap_, topic_, {}, 100, milliseconds(50));
  start_three();
  int restarts = 0;
  for (int round = 0; round < rounds; ++round) {
    for (const char* script :
         {"kafka.sh", GetParam() == "postgres" ? "postgres.sh" : "bigquery.sh"}) {
      std::this_thread::sleep_for(seconds(3));
      int64_t rows = -1;
      ASSERT_TRUE(eventually([&] { return (rows = rows_in(topic_)) >= 0; }, seconds(30)));
      ASSERT_EQ(service(script, "stop"), 0) << script;
      std::this_thread::sleep_for(seconds(2));
      ASSERT_EQ(service(script, "start"), 0) << script;
      ++restarts;
      // The workers go on: rows keep coming after the restart.
      ASSERT_TRUE(eventually([&] { return rows_in(topic_) > rows + 1000; }, seconds(120)))
          << script << " restarted in round " << round << "\n"
          << said();
    }
  }
  const auto t = finish(producer);
  expect_exact(t);
  report(std::string("broker and ") +
             (GetParam() == "postgres" ? "PostgreSQL server" : "BigQuery emulator") +
             " each restarted under 3 running workers",
         restarts, t);
}

INSTANTIATE_TEST_SUITE_P(Engines, WorkersChaos, ::testing::Values("postgres", "bigquery"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace krow::testkit
