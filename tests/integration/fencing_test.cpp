// Fencing, on every warehouse engine whose sync lock can be taken from a live process: a
// "zombie" `krow sync` — stopped (SIGSTOP) after its first commit while another run of the
// same sync takes its lock, takes its partitions (bumping their epochs) and finishes — writes
// nothing more once it goes on (SIGCONT), and ends with a message that another worker took its
// partition. The table then holds every message exactly once.
//
// A DuckDB file cannot be taken over from a process that still has it open (its lock file and
// DuckDB's own lock stay with the stopped process), so the test skips it there: the same fence
// is held against DuckDB in process by the conformance suite (WarehouseConformance.*Epoch*).

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <iterator>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Fencing : public EngineTest {};

TEST_P(Fencing, AStoppedSyncWhoseLockWasTakenWritesNothingMoreWhenItResumes) {
  if (!traits().break_sync_lock)
    GTEST_SKIP() << traits().display_name
                 << ": a stopped process keeps its lock; fencing is shown in process "
                    "(WarehouseConformance)";
  const auto topic = make_topic("zombie", 2);
  Producer p(bootstrap_, {}, {{"linger.ms", "20"}});
  const int total = 20000;
  const std::string pad(200, 'x');
  for (int i = 0; i < total; ++i)
    p.send(topic, Record{"k" + std::to_string(i % 37),
                         "{\"n\": " + std::to_string(i) + ", \"pad\": \"" + pad + "\"}"});
  p.flush();
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 200\n");
  const auto table = table_of(topic);

  // The zombie: stopped after its first commit, its lock taken away.
  const pid_t zombie = start_krow_frozen_after_first_batch({"sync", manifest});
  ASSERT_TRUE(break_sync_lock("it", zombie));  // the manifests' sync ID
  ASSERT_LT(probe().positions_sum(), total) << "the first run finished before it was stopped";

  // Another run of the same sync takes over and finishes.
  const auto second = krow({"sync", manifest});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const auto rows = probe().count(table);
  const auto positions = probe().positions_sum();
  EXPECT_EQ(rows, total);
  EXPECT_EQ(positions, total);

  // The zombie goes on: it writes nothing more and says why.
  kill(zombie, SIGCONT);
  int status = 0;
  ASSERT_TRUE(finishes(zombie, std::chrono::seconds(180), status));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << "status " << status;
  std::ifstream err_file(dir() / "krow-bg.err");
  const std::string err((std::istreambuf_iterator<char>(err_file)),
                        std::istreambuf_iterator<char>());
  EXPECT_NE(err.find("was taken by another worker"), std::string::npos) << err;
  EXPECT_EQ(probe().count(table), rows);
  EXPECT_EQ(probe().positions_sum(), positions);
  expect_every_message_once(topic, total);
}

INSTANTIATE_TEST_SUITE_P(Engines, Fencing, KROW_ALL_ENGINES);

}  // namespace
}  // namespace krow::testkit
