// Interruption and exclusion: kill -9 in the middle of a sync, then resume, with no loss
// and no duplicate; a sync already running keeps a second one out; a bad manifest names
// the key and the line.

#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Resume : public SyncTest {};

TEST_F(Resume, KillNineMidwayThenResumeLosesAndDuplicatesNothing) {
  const auto topic = make_topic("kill", 4);
  Producer p(bootstrap_, {}, {{"linger.ms", "20"}});
  const int total = 120000;
  for (int i = 0; i < total; ++i)
    p.send(topic, Record{"k" + std::to_string(i % 101), "{\"n\": " + std::to_string(i) + ", \"pad\": \"" +
                                                             std::string(120, 'x') + "\"}"});
  p.flush();
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 2000\n");

  // Kill repeatedly, each time a little later, until a kill lands between two commits.
  int midway_kills = 0;
  for (int attempt = 0; attempt < 12 && midway_kills < 2; ++attempt) {
    const pid_t pid = start_krow({"sync", manifest});
    std::this_thread::sleep_for(std::chrono::milliseconds(250 + 50 * attempt));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!std::filesystem::exists(db())) continue;
    const auto rows = std::stoll(sql1("SELECT count(*) FROM " + table_of(topic)));
    EXPECT_EQ(sql1("SELECT count(*) - count(DISTINCT id) FROM " + table_of(topic)), "0");
    // What is stored is exactly what the positions say was committed.
    const auto covered = std::stoll(sql1("SELECT coalesce(sum(next_offset), 0) FROM _krow.positions"));
    EXPECT_EQ(rows, covered);
    if (rows > 0 && rows < total) ++midway_kills;
    if (rows == total) break;
  }
  EXPECT_GE(midway_kills, 1) << "no kill landed in the middle of the sync";

  sync_ok(manifest);
  EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(topic)), std::to_string(total));
  EXPECT_EQ(sql1("SELECT count(DISTINCT id) FROM " + table_of(topic)), std::to_string(total));
  // Content equals what an independent consumer reads.
  const auto oracle = consume_all(bootstrap_, topic);
  ASSERT_EQ(oracle.size(), static_cast<size_t>(total));
  const auto r = sql("SELECT kafka_partition, kafka_offset, key, value FROM " + table_of(topic) + " ORDER BY 1, 2");
  ASSERT_EQ(r.rows.size(), oracle.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < oracle.size(); ++i) {
    const bool same = r.rows[i][0] == Cell(std::to_string(oracle[i].partition)) &&
                      r.rows[i][1] == Cell(std::to_string(oracle[i].offset)) && r.rows[i][2] == oracle[i].key &&
                      r.rows[i][3] == oracle[i].value;
    mismatches += !same;
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST_F(Resume, InterruptCommitsTheBatchInHandAndExits130) {
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
  const auto rows = std::stoll(sql1("SELECT count(*) FROM " + table_of(topic)));
  EXPECT_EQ(rows, std::stoll(sql1("SELECT sum(next_offset) FROM _krow.positions")));
  if (code == 130) {
    EXPECT_EQ(sql1("SELECT status FROM _krow.runs"), "interrupted");
  }
  sync_ok(manifest);
  EXPECT_EQ(sql1("SELECT count(DISTINCT id) FROM " + table_of(topic)), std::to_string(total));
}

TEST_F(Resume, MessagesProducedDuringASyncWaitForTheNext) {
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
  const auto boundaries = sql(
      "SELECT (p->>'partition')::INT, (p->>'boundary')::BIGINT FROM "
      "(SELECT unnest(from_json(record->'tables'->0->'partitions', '[\"JSON\"]')) AS p FROM _krow.runs) ORDER BY 1");
  ASSERT_EQ(boundaries.rows.size(), 3u);
  int64_t sum = 0;
  for (const auto& b : boundaries.rows) {
    const auto part = *b[0];
    const auto boundary = std::stoll(*b[1]);
    sum += boundary;
    EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(topic) + " WHERE kafka_partition = " + part + " AND kafka_offset >= " +
                   std::to_string(boundary)), "0");
    EXPECT_EQ(sql1("SELECT next_offset FROM _krow.positions WHERE kafka_partition = " + part), std::to_string(boundary));
  }
  EXPECT_EQ(std::stoll(sql1("SELECT count(*) FROM " + table_of(topic))), sum);
  // The next sync picks up the rest.
  sync_ok(manifest);
  EXPECT_EQ(std::stoll(sql1("SELECT count(*) FROM " + table_of(topic))), 30000 + during.load());
  EXPECT_EQ(sql1("SELECT count(*) - count(DISTINCT id) FROM " + table_of(topic)), "0");
}

TEST_F(Resume, SecondSyncOfTheSameManifestIsRefusedWhileOneRuns) {
  const auto topic = make_topic("locked");
  Producer p(bootstrap_);
  p.send(topic, Record{std::nullopt, std::string("{}")});
  p.flush();
  const auto manifest = write_manifest({topic});
  // Hold the sync's lock as a running sync would.
  const auto lock_path = db() + ".it.lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  ASSERT_EQ(::write(fd, "4242\n", 5), 5);
  const auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("another sync of 'it' is already running (pid 4242)"), std::string::npos) << r.err;
  ::close(fd);
  sync_ok(manifest);
  EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(topic)), "1");
}

TEST_F(Resume, ManifestTypoNamesTheKeyAndLine) {
  std::ofstream(dir() / "typo.yaml") << "name: typo\nsource:\n  bootstrap_server: 127.0.0.1:9092\n"
                                        "warehouse:\n  path: w.duckdb\n";
  const auto r = krow({"sync", (dir() / "typo.yaml").string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("typo.yaml:3: unknown key 'bootstrap_server' in source; did you mean 'bootstrap_servers'?"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir() / "w.duckdb"));
}

TEST_F(Resume, UnreachableBrokerFailsWithAClearMessage) {
  std::ofstream(dir() / "down.yaml") << "name: down\nsource:\n  bootstrap_servers: 127.0.0.1:1\n  connect_timeout: 3\n"
                                        "warehouse:\n  path: w.duckdb\n";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = krow({"plan", (dir() / "down.yaml").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bootstrap_servers is reachable"), std::string::npos) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

}  // namespace
}  // namespace krow::testkit
