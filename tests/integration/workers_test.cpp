// Workers (docs/workers.md): several `krow sync --follow --worker-id` processes share one
// sync's partitions through consumer group krow-<sync id>.workers, each partition taken in the
// warehouse (its epoch bumped) as the group gives it, so that only its current owner commits
// it. Real broker, real warehouse; only engines whose capabilities take concurrent writers run
// workers, the others must refuse --worker-id before anything is read.

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <map>
#include <optional>
#include <thread>

#include "workers_fixture.hpp"

namespace krow::testkit {
namespace {

using std::chrono::seconds;

class Workers : public WithWorkers<EngineTest> {
 protected:
  void produce(const std::string& topic, int from, int count) {
    Producer p(bootstrap_);
    for (int i = from; i < from + count; ++i)
      p.send(topic, Record{"k" + std::to_string(i), "{\"n\": " + std::to_string(i) + "}"});
    p.flush();
  }
};

TEST_P(Workers, ShareThePartitionsEachOnceAndASigtermedWorkersPartitionsMove) {
  if (!traits().concurrent_writers) GTEST_SKIP() << "this engine takes no workers";
  const int partitions = 12;
  const auto topic = make_topic("workers-share", partitions);
  const auto manifest = write_manifest({topic}, "batch:\n  max_wait: 300ms\n");
  produce(topic, 0, 1200);
  start_worker(manifest, "w1", {"--metrics-address", "127.0.0.1:0"});
  for (const auto* id : {"w2", "w3"}) start_worker(manifest, id);
  ASSERT_TRUE(eventually(
      [&] {
        return owned_evenly(manifest, {"w1", "w2", "w3"}, partitions);
      },
      seconds(90)))
      << said();
  ASSERT_TRUE(eventually([&] { return rows_in(topic) == 1200; }, seconds(60))) << said();

  // w1's metrics: the assignments it was told of, and a lag for each partition it reads (and
  // none for those that moved away).
  const int port = metrics_port(dir() / "worker-w1.err");
  ASSERT_GT(port, 0) << said();
  std::string figures;
  EXPECT_TRUE(eventually(
      [&] {
        figures = http("http://127.0.0.1:" + std::to_string(port) + "/metrics").body;
        size_t lags = 0;
        for (size_t at = 0;
             (at = figures.find("\nkrow_partition_lag_messages{", at)) != std::string::npos; ++at)
          ++lags;
        return lags == group(manifest)["w1"].size();
      },
      seconds(30)))
      << figures;
  EXPECT_GE(
      sample(figures, "krow_rebalances_total", "change=\"assigned\",sync=\"" + sync_id_ + "\"")
          .value_or(0),
      1)
      << figures;

  // krow's own record of the workers, and its text form.
  const auto status = krow({"status", manifest});
  EXPECT_NE(status.out.find("Workers (group krow-"), std::string::npos) << status.out;
  for (const auto* id : {"w1", "w2", "w3"})
    EXPECT_NE(status.out.find(std::string("recorded ") + id), std::string::npos) << status.out;

  // A plain sync of the same ID is refused while workers run (exit code 75: try again later),
  // saying so: PostgreSQL by the workers' shared lock, the others by the group's members.
  const auto plain = krow({"sync", "-q", manifest});
  EXPECT_EQ(plain.exit_code, 75) << plain.out << plain.err;
  EXPECT_NE(plain.err.find("workers of sync"), std::string::npos) << plain.err;
  EXPECT_NE(plain.err.find(GetParam() == "postgres" ? "3 sessions" : "w1, w2, w3"),
            std::string::npos)
      << plain.err;

  // Production goes on while w3 stops: its partitions move to the others (after the session
  // timeout: a static member does not leave the group), nothing is lost or doubled.
  std::thread producer([&] {
    for (int round = 0; round < 10; ++round) {
      produce(topic, 1200 + round * 100, 100);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  });
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(stop_worker("w3"), 0) << said();
  producer.join();
  EXPECT_TRUE(eventually(
      [&] {
        return owned_evenly(manifest, {"w1", "w2"}, partitions);
      },
      seconds(60)))
      << said();
  produce(topic, 2200, 300);
  EXPECT_TRUE(eventually([&] { return rows_in(topic) == 2500; }, seconds(60))) << said();
  EXPECT_EQ(stop_worker("w1"), 0) << said();
  EXPECT_EQ(stop_worker("w2"), 0) << said();
  expect_every_message_once(topic, 2500);
}

TEST_P(Workers, AWorkerKilledAndRestartedWithinTheSessionTimeoutGetsItsPartitionsBack) {
  if (!traits().concurrent_writers) GTEST_SKIP() << "this engine takes no workers";
  const int partitions = 12;
  const auto topic = make_topic("workers-restart", partitions);
  const auto manifest = write_manifest({topic}, "batch:\n  max_wait: 300ms\n");
  produce(topic, 0, 600);
  start_worker(manifest, "a");
  start_worker(manifest, "b");
  ASSERT_TRUE(eventually(
      [&] {
        return owned_evenly(manifest, {"a", "b"}, partitions);
      },
      seconds(90)))
      << said();
  ASSERT_TRUE(eventually([&] { return rows_in(topic) == 600; }, seconds(60))) << said();
  const auto before = group(manifest);
  const auto a_before = err_of("a").size();  // the group's first rounds may have moved some

  kill9("b");
  produce(topic, 600, 300);
  start_worker(manifest, "b");  // well within the 12 s session timeout
  ASSERT_TRUE(eventually([&] { return rows_in(topic) == 900; }, seconds(60))) << said();
  // Static membership: the group moved nothing, b has its own partitions back.
  EXPECT_EQ(group(manifest), before) << said();
  const auto a_said = err_of("a").substr(a_before);
  EXPECT_EQ(a_said.find("revoked"), std::string::npos) << a_said;
  EXPECT_EQ(stop_worker("a"), 0) << said();
  EXPECT_EQ(stop_worker("b"), 0) << said();
  expect_every_message_once(topic, 900);
}

// A partition taken in the warehouse by a process the group does not count (a worker that was
// paused, woken before it heard that its partitions moved, takes them again as it restarts
// reading: the state this test sets up directly, Probe::take_partition, as that race cannot be
// produced on demand).
// The worker whose commit is refused drops that partition and goes on with the others without
// taking them again, and takes it back once the group still gives it to it after twice the
// session timeout: no partition stays unread, nothing is lost or doubled.
TEST_P(Workers, AWorkerRefusedOnePartitionGoesOnWithTheOthersAndTakesItBackIfTheGroupKeepsIt) {
  if (!traits().concurrent_writers) GTEST_SKIP() << "this engine takes no workers";
  const int partitions = 4;
  const auto topic = make_topic("workers-refused-one", partitions);
  const auto manifest = write_manifest({topic}, "batch:\n  max_wait: 300ms\n");
  produce(topic, 0, 400);
  start_worker(manifest, "w1");
  ASSERT_TRUE(eventually([&] { return owned_once(manifest, {"w1"}, partitions); }, seconds(60)))
      << said();
  ASSERT_TRUE(eventually([&] { return rows_in(topic) == 400; }, seconds(60))) << said();
  std::map<int, std::optional<int64_t>> epochs;
  for (int p = 0; p < partitions; ++p) epochs[p] = probe().epoch(topic, p);
  ASSERT_TRUE(epochs[0].has_value());

  probe().take_partition(topic, 0);
  const auto before = err_of("w1").size();
  produce(topic, 400, 400);
  ASSERT_TRUE(eventually(
      [&] { return err_of("w1").find("taken by another worker", before) != std::string::npos; },
      seconds(30)))
      << said();
  // The others go on at the epochs it took them at: it took none of them again.
  ASSERT_TRUE(eventually(
      [&] {
        int64_t others = 0;
        for (const auto& r : probe().rows(table_of(topic))) others += r.partition != 0;
        int64_t produced = 0;
        for (const auto& m : consume_all(bootstrap_, topic)) produced += m.partition != 0;
        return others == produced;
      },
      seconds(30)))
      << said();
  for (int p = 1; p < partitions; ++p) EXPECT_EQ(probe().epoch(topic, p), epochs[p]) << p;

  // The group still gives it partition 0: taken back, its rows arrive.
  ASSERT_TRUE(eventually([&] { return rows_in(topic) == 800; }, seconds(90))) << said();
  EXPECT_NE(said().find("restart as the group still gives this worker"), std::string::npos)
      << said();
  EXPECT_EQ(probe().epoch(topic, 0), *epochs[0] + 2);
  for (int p = 1; p < partitions; ++p) EXPECT_EQ(probe().epoch(topic, p), epochs[p]) << p;
  EXPECT_EQ(stop_worker("w1"), 0) << said();
  expect_every_message_once(topic, 800);
}

// Two live processes under one worker ID: the group fences the older's membership when the
// newer joins. A fenced worker joins again once (a broker restart can fence a worker by
// itself), which fences the other, which does the same; fenced a second time within a minute,
// a worker stops, naming the clash. One is left running, and no message is lost or doubled.
TEST_P(Workers, TwoLiveWorkersUnderOneIdLeaveOneRunningAndTheOtherNamesTheClash) {
  if (!traits().concurrent_writers) GTEST_SKIP() << "this engine takes no workers";
  const int partitions = 6;
  const auto topic = make_topic("workers-clash", partitions);
  const auto manifest = write_manifest({topic}, "batch:\n  max_wait: 300ms\n");
  produce(topic, 0, 600);
  start_worker(manifest, "w1", {}, "first");
  ASSERT_TRUE(eventually([&] { return owned_evenly(manifest, {"w1"}, partitions); }, seconds(90)))
      << said();
  ASSERT_TRUE(eventually([&] { return rows_in(topic) == 600; }, seconds(60))) << said();
  start_worker(manifest, "w1", {}, "second");
  std::string stopped, running;
  int status = 0;
  ASSERT_TRUE(eventually(
      [&] {
        for (const auto* key : {"first", "second"})
          if (waitpid(workers_[key], &status, WNOHANG) == workers_[key]) {
            stopped = key;
            running = stopped == "first" ? "second" : "first";
            workers_[key] = -1;
            return true;
          }
        return false;
      },
      seconds(120)))
      << said();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 75) << said();
  EXPECT_NE(err_of(stopped).find("joining the group again"), std::string::npos) << said();
  EXPECT_NE(err_of(stopped).find("another live worker may use the same worker ID"),
            std::string::npos)
      << said();
  produce(topic, 600, 600);
  EXPECT_TRUE(eventually([&] { return rows_in(topic) == 1200; }, seconds(90))) << said();
  EXPECT_EQ(stop_worker(running), 0) << said();
  expect_every_message_once(topic, 1200);
}

TEST_P(Workers, AnEngineWithoutConcurrentWritersRefusesWorkersNamingAServerWarehouse) {
  if (traits().concurrent_writers) GTEST_SKIP() << "this engine takes workers";
  const auto topic = make_topic("workers-refused", 1);
  const auto manifest = write_manifest({topic});
  const auto r = krow({"sync", manifest, "--follow", "--worker-id", "w1"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("takes no workers"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("PostgreSQL"), std::string::npos) << r.err;
}

TEST_P(Workers, AWorkerIdNeedsFollowAndAStableName) {
  const auto topic = make_topic("workers-args", 1);
  const auto manifest = write_manifest({topic});
  auto r = krow({"sync", manifest, "--worker-id", "w1"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("add --follow"), std::string::npos) << r.err;
  if (!traits().concurrent_writers) return;
  r = krow({"sync", manifest, "--follow", "--worker-id", "no spaces/please"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("worker ID"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Engines, Workers, KROW_ALL_ENGINES);

}  // namespace
}  // namespace krow::testkit
