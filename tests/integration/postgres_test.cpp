// PostgreSQL only: what a server warehouse adds to the shared suite — the server restarted
// in the middle of a sync, a role without the privileges krow needs, a wrong password, two
// syncs of one sync ID from two processes (the lock lives in the server), a value the server
// refuses, and a connection given as a libpq dsn.

#include <signal.h>
#include <sys/wait.h>

#include <simdjson.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Postgres : public SyncTest {
 protected:
  std::string engine() const override { return "postgres"; }

  static int postgres_script(const std::string& command) {
    return std::system(("bash " + source_dir() + "/scripts/postgres.sh " + command + " >/dev/null 2>&1").c_str());
  }

  // A manifest whose warehouse logs in as `user`.
  std::string manifest_as(const std::string& user, const std::vector<std::string>& topics) {
    std::string yaml = warehouse_yaml();
    yaml.replace(yaml.find("user: krow"), 10, "user: " + user);
    std::ofstream out(dir() / (user + ".yaml"));
    out << "name: it\nsource:\n  bootstrap_servers: " << bootstrap_ << "\ntopics:\n  names:\n";
    for (const auto& t : topics) out << "    - \"" << t << "\"\n";
    out << yaml;
    return (dir() / (user + ".yaml")).string();
  }

  void produce(const std::string& topic, int n, int pad = 0) {
    Producer p(bootstrap_, {}, {{"linger.ms", "20"}});
    for (int i = 0; i < n; ++i)
      p.send(topic, Record{"k" + std::to_string(i % 1000), "{\"n\": " + std::to_string(i) + ", \"pad\": \"" +
                                                                std::string(pad, 'p') + "\"}"});
    p.flush();
  }
};

TEST_F(Postgres, ServerRestartedMidSyncCompletesWithNothingLostOrDoubled) {
  const auto topic = make_topic("pg-restart", 3);
  const int total = 400000;
  produce(topic, total, 150);
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 5000\n");
  const pid_t pid = start_krow({"sync", manifest, "-v"});
  // Restart once the sync is writing.
  for (int i = 0; i < 100 && probe().positions_sum() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  int status = 0;
  const bool running = waitpid(pid, &status, WNOHANG) == 0;
  ASSERT_EQ(postgres_script("restart"), 0);
  const bool exited = !running || finishes(pid, std::chrono::seconds(180), status);
  ASSERT_TRUE(running) << "the sync ended before the server restarted; the restart was not exercised";
  ASSERT_TRUE(exited) << "the sync did not finish after the server came back";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;

  expect_every_message_once(topic, total);
  // The restart did meet a commit: it was retried, and the run says so.
  const auto runs = probe().run_records();
  ASSERT_EQ(runs.size(), 1u);
  simdjson::dom::parser parser;
  EXPECT_GE(int64_t(parser.parse(runs[0])["warehouse_retries"]), 1) << runs[0];
}

TEST_F(Postgres, RoleWithoutCreateStopsWithTheGrantToRunAndWritesNothing) {
  const auto topic = make_topic("pg-perm");
  produce(topic, 25);
  const auto manifest = manifest_as("krow_nocreate", {topic});
  const auto secret = pg_server().krow_password;

  // No CREATE on the database: krow cannot make its schemas.
  auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("GRANT CREATE ON DATABASE " + pg_database() + " TO krow_nocreate"), std::string::npos) << r.err;
  EXPECT_EQ((r.out + r.err).find(secret), std::string::npos);
  EXPECT_EQ(pg_admin().scalar("SELECT count(*) FROM pg_namespace WHERE nspname IN ('_krow', 'confluent')"), "0");

  // Its state schema, but no CREATE on the warehouse schema: nothing half-written.
  pg_admin().exec("CREATE SCHEMA _krow AUTHORIZATION krow_nocreate; CREATE SCHEMA confluent; "
                  "GRANT USAGE ON SCHEMA confluent TO krow_nocreate");
  r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("GRANT USAGE, CREATE ON SCHEMA confluent TO krow_nocreate"), std::string::npos) << r.err;
  EXPECT_FALSE(probe().has_table(table_of(topic)));
  EXPECT_TRUE(probe().positions().empty());
  const auto runs = probe().run_records();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_NE(runs[0].find("\"failed\""), std::string::npos) << runs[0];

  // Granted: the same manifest syncs everything.
  pg_admin().exec("GRANT CREATE ON SCHEMA confluent TO krow_nocreate");
  sync_ok(manifest);
  EXPECT_EQ(probe().count(table_of(topic)), 25);
}

TEST_F(Postgres, WrongPasswordIsRefusedAndNotEchoed) {
  const auto topic = make_topic("pg-pw");
  produce(topic, 3);
  const auto manifest = write_manifest({topic});
  set_env("KROW_TEST_PG_PASSWORD", "not-the-pg-secret-77");
  std::string everything;
  for (const char* cmd : {"sync", "plan", "status"}) {
    const auto r = krow({cmd, manifest});
    EXPECT_EQ(r.exit_code, 1) << cmd << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("password authentication failed for user \"krow\""), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("warehouse.user and the password"), std::string::npos) << r.err;
    everything += r.out + r.err;
  }
  EXPECT_EQ(everything.find("not-the-pg-secret-77"), std::string::npos);
  EXPECT_EQ(pg_admin().scalar("SELECT count(*) FROM pg_namespace WHERE nspname = '_krow'"), "0");
}

TEST_F(Postgres, SecondProcessOfOneSyncIdIsRefusedByTheServerLock) {
  const auto topic = make_topic("pg-lock", 2);
  const int total = 200000;
  produce(topic, total, 100);
  // The connection as a libpq dsn this time (the password still from the environment).
  const auto s = pg_server();
  std::ofstream(dir() / "dsn.yaml") << "name: it\nsource:\n  bootstrap_servers: " << bootstrap_
                                    << "\ntopics:\n  names: [\"" << topic << "\"]\nbatch:\n  max_messages: 2000\n"
                                    << "warehouse:\n  type: postgres\n  dsn: \"host=" << s.host << " port=" << s.port
                                    << " dbname=" << pg_database() << " user=krow\"\n"
                                    << "  password: ${KROW_TEST_PG_PASSWORD}\n";
  const auto manifest = (dir() / "dsn.yaml").string();
  const pid_t first = start_krow({"sync", manifest});
  bool locked = false;
  for (int i = 0; i < 200 && !locked; ++i) {
    locked = pg_admin().scalar("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted") != "0";
    if (!locked) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(locked) << "the first sync never took its lock";
  const auto second = krow({"sync", manifest});
  int status = 0;
  const bool first_still_running = waitpid(first, &status, WNOHANG) == 0;
  if (first_still_running) waitpid(first, &status, 0);
  ASSERT_TRUE(first_still_running) << "the first sync ended before the second started";
  EXPECT_EQ(second.exit_code, 75) << second.out << second.err;
  EXPECT_NE(second.err.find("another sync of 'it' is already running (krow pid " + std::to_string(first)),
            std::string::npos)
      << second.err;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(probe().count(table_of(topic)), total);
  EXPECT_EQ(probe().distinct_ids(table_of(topic)), total);
}

TEST_F(Postgres, ValueTheServerRefusesBecomesThatRowsDecodeError) {
  const auto topic = make_topic("pg-refused");
  Producer p(bootstrap_);
  p.send(topic, Record{std::string("k1"), std::string("{\"i\": 1}")});
  p.flush();
  const auto manifest = write_manifest({topic});
  sync_ok(manifest);
  // A DBA narrowed a column since: the server now refuses longer keys (SQLSTATE 22001).
  pg_admin().exec("ALTER TABLE confluent." + table_of(topic) + " ALTER COLUMN key TYPE varchar(5)");
  p.send(topic, Record{std::string("k2"), std::string("{\"i\": 2}")});
  p.send(topic, Record{std::string("a key far too long"), std::string("{\"i\": 3}")});
  p.send(topic, Record{std::string("k4"), std::string("{\"i\": 4}")});
  p.flush();
  sync_ok(manifest);
  const auto rows = probe().rows(table_of(topic));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].key, Cell("k2"));
  EXPECT_EQ(rows[2].key, Cell());
  EXPECT_EQ(rows[2].value, stored_json("{\"i\": 3}"));
  ASSERT_TRUE(rows[2].decode_error);
  EXPECT_NE(rows[2].decode_error->find("key not stored: PostgreSQL refused it (value too long for type character "
                                       "varying(5))"),
            std::string::npos)
      << *rows[2].decode_error;
  EXPECT_EQ(rows[3].key, Cell("k4"));
  EXPECT_EQ(rows[3].decode_error, Cell());
  EXPECT_EQ(probe().positions_sum(), 4);
}

}  // namespace
}  // namespace krow::testkit
