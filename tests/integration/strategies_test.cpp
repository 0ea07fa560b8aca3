// Load strategies on every warehouse engine, against a real broker: `latest_by_key` keeps one
// row per key, equal to the latest message of each key that an independent consumer reads
// (tombstones deleting, or kept), across several syncs and a kill -9; `full_refresh` replaces
// the table with the whole retained topic in one transaction each run, and a reader querying
// in a loop never sees a half table.

#include <signal.h>
#include <sys/wait.h>

#include <simdjson.h>

#include <atomic>
#include <ctime>
#include <map>
#include <set>
#include <thread>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Strategies : public EngineTest {
 protected:
  // The latest message of each key, as an independent consumer reads the topic: for each key
  // the message with the highest offset (every key here stays in one partition). Keys whose
  // latest message is a tombstone are left out unless `keep_tombstones`.
  std::map<std::string, Consumed> latest_per_key(const std::string& topic, bool keep_tombstones = false) {
    std::map<std::string, Consumed> out;
    for (const auto& c : consume_all(bootstrap_, topic))
      if (c.key) out[*c.key] = c;
    if (!keep_tombstones) std::erase_if(out, [](const auto& kv) { return !kv.second.value; });
    return out;
  }

  // The table as key -> row; fails the test on a key stored twice.
  std::map<std::string, StoredRow> rows_by_key(const std::string& table) {
    std::map<std::string, StoredRow> out;
    for (auto& r : probe().rows(table)) {
      const std::string key = r.key.value_or("<null>");
      EXPECT_TRUE(out.emplace(key, r).second) << "key " << key << " is stored twice";
    }
    return out;
  }

  // Every stored row is the latest message of its key, and every latest message is stored.
  void expect_latest_state(const std::string& topic, bool keep_tombstones = false) {
    const auto expected = latest_per_key(topic, keep_tombstones);
    const auto stored = rows_by_key(table_of(topic));
    EXPECT_EQ(stored.size(), expected.size());
    for (const auto& [key, c] : expected) {
      const auto it = stored.find(key);
      if (it == stored.end()) {
        ADD_FAILURE() << "key " << key << " missing";
        continue;
      }
      EXPECT_EQ(it->second.partition, c.partition) << key;
      EXPECT_EQ(it->second.offset, c.offset) << key;
      EXPECT_EQ(it->second.is_tombstone, !c.value.has_value()) << key;
      if (c.value) {
        EXPECT_EQ(it->second.value, stored_json(Cell(*c.value))) << key;
      }
    }
  }

  // `rounds` updates of keys k0..k<keys-1> (spread over the partitions by the key), then
  // a tombstone for every key divisible by `tombstone_every`.
  void produce_updates(const std::string& topic, int keys, int rounds, int tombstone_every, int round0 = 0) {
    Producer p(bootstrap_);
    for (int r = round0; r < round0 + rounds; ++r)
      for (int k = 0; k < keys; ++k)
        p.send(topic, Record{"k" + std::to_string(k),
                             "{\"id\": " + std::to_string(k) + ", \"round\": " + std::to_string(r) + "}"});
    if (tombstone_every > 0)
      for (int k = 0; k < keys; k += tombstone_every) p.send(topic, Record{"k" + std::to_string(k), std::nullopt});
    p.flush();
  }

  std::string compacted_topic(const std::string& prefix, int partitions) {
    return make_topic(prefix, partitions, {{"cleanup.policy", "compact"}, {"min.cleanable.dirty.ratio", "0.01"},
                                            {"segment.ms", "100"}});
  }
};

TEST_P(Strategies, LatestByKeyEqualsTheLatestMessageOfEachKeyAcrossSyncs) {
  const auto topic = compacted_topic("lbk", 3);
  produce_updates(topic, 60, 3, 7);
  const auto manifest =
      write_manifest({topic}, "tables:\n  \"lbk-*\": {strategy: latest_by_key}\nbatch:\n  max_messages: 37\n");
  const auto plan = krow({"plan", manifest});
  EXPECT_NE(plan.out.find("strategy latest_by_key (key: the Kafka key; a tombstone deletes its key's row)"),
            std::string::npos)
      << plan.out;
  sync_ok(manifest);
  expect_latest_state(topic);

  // Updates, new keys, tombstones of keys stored, and a key brought back after its tombstone.
  produce_updates(topic, 80, 2, 5, 3);
  {
    Producer p(bootstrap_);
    p.send(topic, Record{"k0", "{\"id\": 0, \"round\": \"back\"}"});
    p.flush();
  }
  sync_ok(manifest);
  expect_latest_state(topic);
  EXPECT_TRUE(rows_by_key(table_of(topic)).count("k0"));
  EXPECT_FALSE(rows_by_key(table_of(topic)).count("k5"));
}

TEST_P(Strategies, LatestByKeySurvivesAKillAndResumes) {
  const auto topic = compacted_topic("lbk-kill", 2);
  produce_updates(topic, 200, 10, 9);
  const auto manifest = write_manifest({topic}, "tables:\n  \"" + topic + "\": {strategy: latest_by_key}\n"
                                                "batch:\n  max_messages: 100\n");
  const pid_t pid = start_krow_frozen_after_first_batch({"sync", manifest});
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  EXPECT_GT(probe().count(table_of(topic)), 0);
  sync_ok(manifest);
  expect_latest_state(topic);
}

TEST_P(Strategies, UniqueKeyFromValueFieldsAndKeptTombstones) {
  const auto topic = make_topic("lbk-fields", 2);
  Producer p(bootstrap_);
  // Keys are random-ish; the identity is the value's (region, id).
  // Kafka keys spread an identity over both partitions; across partitions the later
  // kafka_timestamp wins, so each message is stamped 1 ms after the one before.
  const int64_t base = (static_cast<int64_t>(std::time(nullptr)) - 60) * 1000;
  for (int i = 0; i < 40; ++i) {
    Record r{"m" + std::to_string(i), "{\"region\": \"" + std::string(i % 2 ? "eu" : "us") +
                                          "\", \"id\": " + std::to_string(i % 10) + ", \"n\": " + std::to_string(i) +
                                          "}"};
    r.timestamp_ms = base + i;
    p.send(topic, r);
  }
  p.send(topic, Record{"no-fields", "{\"other\": true}"});  // no key fields: kept as its own row
  p.flush();
  const auto manifest = write_manifest(
      {topic}, "tables:\n  \"" + topic + "\": {strategy: latest_by_key, unique_key: [region, id]}\n");
  sync_ok(manifest);
  // Region and id pair up (odd i: eu and an odd id), so there are 10 identities; each holds
  // its newest message, n = 30..39; the message without the fields is a row of its own.
  std::set<int64_t> newest;
  int unkeyed = 0;
  simdjson::dom::parser parser;
  for (const auto& r : probe().rows(table_of(topic))) {
    ASSERT_TRUE(r.value) << "a row without a value";
    simdjson::dom::element v = parser.parse(*r.value);
    int64_t n = 0;
    if (v["n"].get(n)) ++unkeyed;
    else EXPECT_TRUE(newest.insert(n).second) << n;
  }
  EXPECT_EQ(unkeyed, 1);
  EXPECT_EQ(newest, (std::set<int64_t>{30, 31, 32, 33, 34, 35, 36, 37, 38, 39}));

  // Tombstones kept: the Kafka-key table keeps each deleted key's tombstone as its row.
  const auto kept_topic = make_topic("lbk-keep", 1);
  produce_updates(kept_topic, 10, 2, 2);
  const auto kept = write_manifest({kept_topic}, "tables:\n  \"" + kept_topic +
                                                     "\": {strategy: latest_by_key, tombstones: keep}\n",
                                   "kept.yaml");
  sync_ok(kept);
  expect_latest_state(kept_topic, /*keep_tombstones=*/true);
  EXPECT_EQ(probe().count(table_of(kept_topic)), 10);
}

TEST_P(Strategies, FullResyncOfALatestByKeyTableRebuildsIt) {
  const auto topic = compacted_topic("lbk-resync", 2);
  produce_updates(topic, 30, 2, 4);
  const auto manifest = write_manifest({topic}, "tables:\n  \"" + topic + "\": {strategy: latest_by_key}\n");
  sync_ok(manifest);
  const auto r = krow({"resync", manifest, "--full"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_latest_state(topic);  // a deleted key stays deleted; nothing older comes back
}

TEST_P(Strategies, FullRefreshReplacesTheTableWithTheRetainedTopicEachRun) {
  const auto topic = make_topic("refresh", 2);
  Producer p(bootstrap_);
  for (int i = 0; i < 50; ++i) {
    Record r{"k" + std::to_string(i), "{\"i\": " + std::to_string(i) + "}"};
    r.partition = i % 2;
    p.send(topic, r);
  }
  p.flush();
  const auto manifest = write_manifest({topic}, "tables:\n  \"" + topic + "\": {strategy: full_refresh}\n"
                                                "batch:\n  max_messages: 9\n");
  const auto table = table_of(topic);
  sync_ok(manifest);
  EXPECT_EQ(probe().count(table), 50);
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);

  // The next run reads the whole topic again: still each message once, plus the new ones.
  for (int i = 50; i < 60; ++i) p.send(topic, Record{std::nullopt, "{\"i\": " + std::to_string(i) + "}"});
  p.flush();
  sync_ok(manifest);
  EXPECT_EQ(probe().count(table), 60);
  EXPECT_EQ(probe().distinct_ids(table), 60);
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);

  // Records deleted from the log are gone from the table after the next refresh.
  admin_.delete_records(topic, 0, 10);
  sync_ok(manifest);
  const auto retained = consume_all(bootstrap_, topic);
  EXPECT_EQ(probe().count(table), static_cast<int64_t>(retained.size()));
  EXPECT_EQ(differences(probe().rows(table), retained), 0u);
}

TEST_P(Strategies, FullRefreshKilledBeforeItsSwapLeavesTheOldTable) {
  const auto topic = make_topic("refresh-kill", 1);
  Producer p(bootstrap_);
  for (int i = 0; i < 20; ++i) p.send(topic, Record{std::nullopt, "{\"i\": " + std::to_string(i) + "}"});
  p.flush();
  const auto manifest = write_manifest({topic}, "tables:\n  \"" + topic + "\": {strategy: full_refresh}\n");
  sync_ok(manifest);
  const auto before = probe().rows(table_of(topic));
  for (int i = 20; i < 30; ++i) p.send(topic, Record{std::nullopt, "{\"i\": " + std::to_string(i) + "}"});
  p.flush();

  set_env("KROW_TEST_STOP_BEFORE_PUBLISH", "1");
  const pid_t pid = start_krow({"sync", manifest});
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, WUNTRACED), pid);
  ASSERT_TRUE(WIFSTOPPED(status));
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  set_env("KROW_TEST_STOP_BEFORE_PUBLISH", "0");
  EXPECT_EQ(probe().rows(table_of(topic)).size(), before.size());
  EXPECT_EQ(probe().count(table_of(topic)), 20);

  sync_ok(manifest);
  EXPECT_EQ(probe().count(table_of(topic)), 30);
  EXPECT_EQ(differences(probe().rows(table_of(topic)), consume_all(bootstrap_, topic)), 0u);
}

TEST_P(Strategies, BoundsAndFullRefreshAreRefused) {
  const auto topic = make_topic("refresh-bounds", 1);
  const auto manifest = write_manifest({topic}, "tables:\n  \"" + topic + "\": {strategy: full_refresh}\n");
  const auto r = krow({"sync", manifest, "--max-messages", "10"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("is full_refresh: every run re-reads the whole retained topic"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Engines, Strategies, KROW_ENGINES);

// A reader querying the table in a loop while full refreshes run: it never sees fewer rows
// than the topic held before the refresh (the topic only grows here), nor a count that is
// not one of the refreshes' whole tables. PostgreSQL only: a DuckDB file has one writer
// process and no concurrent reader from another process.
class StrategiesPostgres : public SyncTest {
 protected:
  std::string engine() const override { return "postgres"; }
};

TEST_F(StrategiesPostgres, ReadersNeverSeeAHalfRefreshedTable) {
  const auto topic = make_topic("refresh-readers", 2);
  const auto manifest = write_manifest({topic}, "tables:\n  \"" + topic + "\": {strategy: full_refresh}\n"
                                                "batch:\n  max_messages: 50\n");
  const auto table = table_of(topic);
  Producer p(bootstrap_);
  auto produce = [&](int n) {
    for (int i = 0; i < n; ++i) p.send(topic, Record{std::nullopt, "{\"i\": " + std::to_string(i) + "}"});
    p.flush();
  };
  produce(500);
  sync_ok(manifest);

  std::atomic<bool> stop{false};
  std::atomic<int64_t> queries{0}, bad{0};
  std::thread reader([&] {
    PgSession s(pg_server().conninfo(pg_database()));
    while (!stop.load()) {
      const auto n = std::stoll(s.scalar("SELECT count(*) FROM confluent.\"" + table + "\""));
      ++queries;
      if (n % 500 != 0 || n == 0) ++bad;  // every refresh holds a multiple of 500 rows
    }
  });
  for (int round = 0; round < 4; ++round) {
    produce(500);
    sync_ok(manifest);
  }
  stop = true;
  reader.join();
  EXPECT_GT(queries.load(), 10);
  EXPECT_EQ(bad.load(), 0) << "a reader saw a count that no whole refresh leaves";
  EXPECT_EQ(probe().count(table), 2500);
}

}  // namespace
}  // namespace krow::testkit
