// Fault injection: krow killed with SIGKILL at random moments during a sync and a full
// resync, a continuous sync killed and restarted during steady production, two syncs of one
// sync ID started at the same instant, the warehouse file made
// unwritable mid-batch (a file size limit), the broker stopped and started during one sync,
// records deleted under a running sync.
// After each scenario every message up to the boundary must be in its table exactly once and
// equal to what an independent consumer reads.
//
// Short form by default (scripts/test.sh, ctest label "chaos"); KROW_CHAOS_LONG=1 gives the
// long form of scripts/chaos.sh (≥ 1,000,000 messages, 50 kills, 10 broker outages). Each
// scenario prints one line — what was injected, how many times, rows expected / found /
// duplicated / lost — and appends it to $KROW_CHAOS_REPORT when set.

#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <random>
#include <set>
#include <thread>

#include "chaos_fixture.hpp"

namespace krow::testkit {
namespace {

TEST_F(Chaos, KillNineDuringASyncAndAFullResync) {
  const int kills = scaled(6, 50), resync_kills = scaled(2, 10);
  const auto topics = make_topics(scaled(60000, 700000), scaled(20000, 200000), scaled(20000, 100000));
  const auto manifest = manifest_for(topics, 5000);
  const int landed = kill_repeatedly({"sync", "-q", manifest}, topics, kills, 400);
  sync_ok(manifest);
  const auto after_sync = tally(topics);
  expect_exact(after_sync);
  expect_audit_proves(manifest);
  report("kill -9 during one sync (JSON, Avro via registry, transactional)", landed, after_sync);
  EXPECT_GE(landed, kills / 2) << "most kills should land while krow runs";

  const int resync_landed = kill_repeatedly({"resync", "-q", manifest, "--full"}, topics, resync_kills, 1500);
  const auto r = krow({"resync", "-q", manifest, "--full"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto after_resync = tally(topics);
  expect_exact(after_resync);
  expect_audit_proves(manifest);
  report("kill -9 during a full resync", resync_landed, after_resync);
}

TEST_F(Chaos, TwoSyncsOfOneSyncIdStartedAtTheSameInstant) {
  const auto topics = make_topics(scaled(30000, 60000), 2000, 2000);
  const auto manifest = manifest_for(topics, 2000);
  const int rounds = scaled(5, 20);
  int exactly_one = 0;
  Producer p(bootstrap_, {}, {{"linger.ms", "20"}});
  for (int round = 0; round < rounds; ++round) {
    for (int i = 0; i < 20000; ++i) p.send(topics[0].name, Record{std::nullopt, "{\"round\": " + std::to_string(round) + "}"});
    p.flush();
    const pid_t a = start_krow({"sync", "-q", manifest});
    const pid_t b = start_krow({"sync", "-q", manifest});
    int sa = 0, sb = 0;
    waitpid(a, &sa, 0);
    waitpid(b, &sb, 0);
    const int ok = (WIFEXITED(sa) && WEXITSTATUS(sa) == 0) + (WIFEXITED(sb) && WEXITSTATUS(sb) == 0);
    // Refused as "try again later" (exit 75): the other one runs.
    const int refused =
        (WIFEXITED(sa) && WEXITSTATUS(sa) == 75) + (WIFEXITED(sb) && WEXITSTATUS(sb) == 75);
    exactly_one += ok == 1 && refused == 1;
  }
  sync_ok(manifest);  // whatever a refused round left is read now
  const auto t = tally(topics);
  expect_exact(t);
  EXPECT_EQ(exactly_one, rounds) << "each round: one sync runs, the other is refused";
  report("two syncs of one sync ID at the same instant (exactly one ran: " + std::to_string(exactly_one) + ")", rounds,
         t);
}

TEST_F(Chaos, WarehouseFileHitsASizeLimitMidBatchThenResumes) {
  const auto topics = make_topics(scaled(60000, 300000), 5000, 5000);
  const auto manifest = manifest_for(topics, 5000);
  // The file may grow to 6 MiB: a few batches land, then a write fails (EFBIG, as on a full
  // disk or a quota) in the middle of one.
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string cmd = "ulimit -f 6144 && exec " + std::string(KROW_BINARY) + " sync -q " + manifest + " >" +
                            (dir() / "limited.out").string() + " 2>" + (dir() / "limited.err").string();
    for (const auto& e : extra_env_) putenv(const_cast<char*>(e.c_str()));
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream err(dir() / "limited.err");
  std::stringstream said;
  said << err.rdbuf();
  ASSERT_TRUE(WIFEXITED(status)) << "krow died of signal " << WTERMSIG(status) << ": " << said.str();
  EXPECT_EQ(WEXITSTATUS(status), 1) << said.str();
  EXPECT_NE(said.str().find("free space there"), std::string::npos) << said.str();
  // Nothing half-written: what is there is exactly once, and the next sync completes it.
  for (const auto& t : topics) {
    const auto table = table_of(t.name);
    if (probe().has_table(table)) {
      EXPECT_EQ(probe().distinct_ids(table), probe().count(table));
    }
  }
  sync_ok(manifest);
  const auto t = tally(topics);
  expect_exact(t);
  report("warehouse file size limit (ulimit -f) mid-batch, then resume", 1, t);
}

TEST_F(Chaos, RegistryFrontStoppedLongerThanOneRetry) {
  const auto topics = make_topics(2000, scaled(20000, 100000), 2000);
  const auto manifest = manifest_for(topics, 2000);
  const int outages = scaled(1, 3);
  const std::string nginx_pid = services_dir() + "/registry/nginx/nginx.pid";
  int waited = 0;
  for (int i = 0; i < outages; ++i) {
    // The HTTPS front goes away (the registry behind it keeps its schemas), for longer than
    // the first retry's backoff; krow must wait, not write schema_registry error rows.
    ASSERT_EQ(std::system(("kill $(cat " + nginx_pid + ") && sleep 1").c_str()), 0);
    if (i > 0) {  // schemas already cached from the first run: new ones need the registry
      Producer p(bootstrap_);
      p.send(topics[1].name, Record{std::nullopt, std::string("\0\0\0\0\x7f", 5)});  // an unknown schema ID
      p.flush();
    }
    const pid_t pid = start_krow({"sync", "-q", manifest});
    std::this_thread::sleep_for(std::chrono::seconds(4));
    int status = 0;
    waited += waitpid(pid, &status, WNOHANG) == 0;
    ASSERT_EQ(std::system(("bash " + source_dir() + "/scripts/registry.sh start >/dev/null 2>&1").c_str()), 0);
    ASSERT_TRUE(finishes(pid, std::chrono::seconds(300), status));
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  EXPECT_EQ(waited, outages) << "the sync did not wait for the registry";
  Tally t = tally(topics[0]);
  t += tally(topics[2]);
  // The Avro topic: every message decoded except the ones with an unknown schema ID.
  const auto rows = probe().rows(table_of(topics[1].name));
  const auto oracle = consume_all(bootstrap_, topics[1].name);
  t.expected += static_cast<int64_t>(oracle.size());
  t.found += static_cast<int64_t>(rows.size());
  t.lost += std::max<int64_t>(0, static_cast<int64_t>(oracle.size() - rows.size()));
  t.duplicated += static_cast<int64_t>(rows.size()) - probe().distinct_ids(table_of(topics[1].name));
  int64_t unknown_ids = 0;
  for (const auto& r : rows) {
    if (!r.decode_error) continue;
    ++unknown_ids;
    EXPECT_NE(r.decode_error->find("schema"), std::string::npos) << *r.decode_error;
    EXPECT_EQ(r.decode_error->find("connect"), std::string::npos) << "an outage became a row: " << *r.decode_error;
  }
  EXPECT_EQ(unknown_ids, outages - 1);
  expect_exact(t);
  report("registry front stopped longer than one retry", waited, t);
}

TEST_F(Chaos, RecordsDeletedUnderARunningSyncAreRecordedAsGaps) {
  const int rounds = scaled(1, 5), partitions = 4, per_partition = 2000, deleted_below = 1500;
  Tally all;
  int64_t gapped = 0;
  const std::string pad(10000, 'g');
  for (int round = 0; round < rounds; ++round) {
    // 80 MB over 4 partitions: far more than a sync fetches ahead, so most of each partition
    // is still in Kafka when the records go.
    const auto topic = make_topic("chaos-expiring", partitions);
    Producer p(bootstrap_, {}, {{"linger.ms", "20"}, {"queue.buffering.max.kbytes", "1048576"}});
    for (int part = 0; part < partitions; ++part)
      for (int i = 0; i < per_partition; ++i) {
        Record r{"k" + std::to_string(i), "{\"p\": " + std::to_string(part) + ", \"i\": " + std::to_string(i) +
                                              ", \"pad\": \"" + pad + "\"}"};
        r.partition = part;
        p.send(topic, r);
      }
    p.flush();
    const auto before = consume_all(bootstrap_, topic);  // the oracle, taken before the deletion
    const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 500\n");
    const pid_t pid = start_krow_frozen_after_first_batch({"sync", "-q", manifest});
    for (int part = 0; part < partitions; ++part) admin_.delete_records(topic, part, deleted_below);
    kill(pid, SIGCONT);
    int status = 0;
    ASSERT_TRUE(finishes(pid, std::chrono::seconds(300), status));
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;

    // Every message is stored once and equal to the oracle's, or lies in a gap of the run
    // record; nothing else.
    simdjson::dom::parser parser;
    const auto record_text = probe().run_records().at(0);
    simdjson::dom::element record = parser.parse(record_text);
    std::map<int32_t, std::pair<int64_t, int64_t>> gaps;
    for (auto g : record["gaps"].get_array()) {
      EXPECT_NE(std::string_view(g["reason"]).find("while the sync ran"), std::string_view::npos) << record_text;
      gaps[static_cast<int32_t>(int64_t(g["partition"]))] = {int64_t(g["from"]), int64_t(g["to"])};
    }
    const auto rows = probe().rows(table_of(topic));
    std::map<std::pair<int32_t, int64_t>, const StoredRow*> stored;
    Tally t;
    for (const auto& r : rows)
      if (!stored.emplace(std::make_pair(r.partition, r.offset), &r).second) ++t.duplicated;
    t.expected = static_cast<int64_t>(before.size());
    t.found = static_cast<int64_t>(rows.size());
    int64_t in_gaps = 0;
    for (const auto& m : before) {
      const auto it = stored.find({m.partition, m.offset});
      const auto g = gaps.find(m.partition);
      const bool gap = g != gaps.end() && m.offset >= g->second.first && m.offset < g->second.second;
      if (it == stored.end()) {
        if (gap) ++in_gaps; else ++t.lost;
        continue;
      }
      t.differing += gap || it->second->value != probe().canonical_json(m.value);
    }
    t.expected -= in_gaps;  // messages the cluster deleted before krow could read them
    EXPECT_GT(in_gaps, 0) << "the deletion came after krow had read everything";
    expect_exact(t);
    all += t;
    gapped += in_gaps;
  }
  report("records deleted under a running sync (" + std::to_string(gapped) + " offsets recorded as gaps)", rounds,
         all);
}

TEST_F(Chaos, ContinuousSyncKilledAndRestartedDuringSteadyProduction) {
  // A producer writes all along (JSON, and transactions with aborted ones between), while a
  // `krow sync --follow` is killed with SIGKILL at random moments and started again at once.
  const int kills = scaled(5, 30);
  const auto json = make_topic("chaos-follow-json", 4), tx = make_topic("chaos-follow-tx", 2);
  const std::vector<Topic> topics{{json, false}, {tx, false}};
  const auto manifest =
      write_manifest({json, tx}, "batch:\n  max_messages: 2000\n  max_wait: 300ms\n");
  SteadyProducer producer(bootstrap_, json, tx, 200, std::chrono::milliseconds(20));
  std::mt19937 rng(static_cast<unsigned>(std::random_device{}()));
  std::uniform_int_distribution<int> delay(300, 2500);
  int landed = 0;
  for (int i = 0; i < kills; ++i) {
    const pid_t pid = start_krow({"sync", "-q", manifest, "--follow", "--refresh-interval", "2s"});
    std::this_thread::sleep_for(std::chrono::milliseconds(delay(rng)));
    int status = 0;
    landed += waitpid(pid, &status, WNOHANG) == 0;
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  ASSERT_EQ(producer.stop(), "");
  // The last one runs until everything produced is in, then stops on SIGTERM.
  const pid_t pid = start_krow({"sync", "-q", manifest, "--follow"});
  const auto expected = consume_all(bootstrap_, json).size() + consume_all(bootstrap_, tx).size();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      if (static_cast<size_t>(probe().count(table_of(json)) + probe().count(table_of(tx))) >=
          expected)
        break;
    } catch (const std::exception&) {  // the DuckDB file is the sync's while it writes
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  kill(pid, SIGTERM);
  int status = 0;
  ASSERT_TRUE(finishes(pid, std::chrono::seconds(60), status));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  const auto t = tally(topics);
  expect_exact(t);
  expect_audit_proves(manifest);
  EXPECT_GE(landed, kills - 1) << "most kills should land while krow runs";
  report("kill -9 of a continuous sync during steady production, restarted at once", landed, t);
}

TEST_F(Chaos, BrokerStoppedAndStartedDuringOneSync) {
  if (!long_form()) GTEST_SKIP() << "long form only (scripts/chaos.sh); the short form is Outage.BrokerStoppedMidSyncAndRestarted";
  const int outages = 10;
  const auto topics = make_topics(2000000, 20000, 20000);
  const auto manifest = manifest_for(topics, 5000);
  const pid_t pid = start_krow({"sync", "-q", manifest});
  auto kafka = [](const char* command) {
    return std::system(("bash " + source_dir() + "/scripts/kafka.sh " + command + " >/dev/null 2>&1").c_str());
  };
  int during = 0, status = 0;
  for (int i = 0; i < outages; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    during += waitpid(pid, &status, WNOHANG) == 0;
    ASSERT_EQ(kafka("stop"), 0);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ASSERT_EQ(kafka("start"), 0);
  }
  const bool exited = finishes(pid, std::chrono::seconds(600), status);
  ASSERT_TRUE(exited);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  for (const auto& t : topics) admin_.wait_for_topic(t.name, t.avro ? 2 : t.name.find("json") != std::string::npos ? 4 : 2);
  const auto t = tally(topics);
  expect_exact(t);
  EXPECT_EQ(during, outages) << "the sync ended before every outage";
  report("broker stopped and started during one sync", during, t);
}

}  // namespace
}  // namespace krow::testkit
