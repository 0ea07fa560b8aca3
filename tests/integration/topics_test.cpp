// Topic lifecycle and shape, on every warehouse engine: many partitions, batch limits
// crossed several times, a compacted topic with gaps, a topic deleted and recreated, hostile
// and over-long names, and a second sync with nothing new.

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <simdjson.h>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Topics : public EngineTest {};

void produce_n(Producer& p, const std::string& topic, int n, const std::string& tag = "m") {
  for (int i = 0; i < n; ++i)
    p.send(topic, Record{"key-" + std::to_string(i % 97), "{\"" + tag + "\": " + std::to_string(i) + "}"});
  p.flush();
}

TEST_P(Topics, ManyPartitionsAndBatchLimitCrossedSeveralTimes) {
  const auto topic = make_topic("parts", 24);
  Producer p(bootstrap_);
  produce_n(p, topic, 2500);
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 300\n");
  sync_ok(manifest);
  const auto table = table_of(topic);
  EXPECT_EQ(probe().count(table), 2500);
  EXPECT_EQ(probe().distinct_ids(table), 2500);
  std::set<int32_t> partitions;
  for (const auto& r : probe().rows(table)) partitions.insert(r.partition);
  EXPECT_EQ(partitions.size(), 24u);
  // 2,500 rows in batches of at most 300 make at least 9 commits.
  const auto runs = probe().run_records();
  ASSERT_EQ(runs.size(), 1u);
  simdjson::dom::parser parser;
  EXPECT_GE(int64_t(parser.parse(runs[0])["batches"]), 9);
  // Every partition's position is its end offset.
  const auto oracle = consume_all(bootstrap_, topic);
  ASSERT_EQ(oracle.size(), 2500u);
  EXPECT_EQ(differences(probe().rows(table), oracle), 0u);
  std::map<int32_t, int64_t> ends;
  for (const auto& c : oracle) ends[c.partition] = c.offset + 1;
  const auto pos = probe().positions();
  ASSERT_EQ(pos.size(), 24u);
  for (const auto& p : pos) EXPECT_EQ(p.next_offset, ends[p.partition]) << "partition " << p.partition;

  // Nothing new: a fast no-op that writes no rows.
  produce_n(p, topic, 0);
  const auto again = sync_ok(manifest);
  EXPECT_NE(again.out.find(" 0 messages"), std::string::npos) << again.out;
  EXPECT_EQ(probe().count(table), 2500);

  // More messages: only they are read.
  produce_n(p, topic, 100, "later");
  sync_ok(manifest);
  EXPECT_EQ(probe().count(table), 2600);
  EXPECT_EQ(probe().distinct_ids(table), 2600);
}

TEST_P(Topics, CompactedTopicWithGaps) {
  const auto topic = make_topic("compacted", 1,
                                {{"cleanup.policy", "compact"}, {"segment.ms", "100"},
                                 {"min.cleanable.dirty.ratio", "0.01"}, {"delete.retention.ms", "100"}});
  Producer p(bootstrap_);
  // Each round overwrites five keys and adds one key of its own, which survives: the
  // compacted log keeps those with holes between them.
  for (int round = 0; round < 20; ++round) {
    for (int k = 0; k < 5; ++k)
      p.send(topic, Record{"k" + std::to_string(k), "{\"round\": " + std::to_string(round) + "}"});
    p.send(topic, Record{"unique-" + std::to_string(round), std::string("{\"kept\": true}")});
  }
  p.flush();
  // Wait for the cleaner: roll the segment with a later write until earlier offsets vanish.
  std::vector<Consumed> oracle;
  for (int i = 0; i < 120; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    p.send(topic, Record{std::string("roll"), std::string("{}")});
    p.flush();
    oracle = consume_all(bootstrap_, topic);
    if (oracle.size() < 80) break;
  }
  ASSERT_LT(oracle.size(), 80u) << "the broker did not compact the topic in time";
  sync_ok(write_manifest({topic}));
  const auto rows = probe().rows(table_of(topic));
  ASSERT_EQ(rows.size(), oracle.size());
  EXPECT_EQ(differences(rows, oracle), 0u);
  bool gap = false;
  for (size_t i = 1; i < oracle.size(); ++i)
    if (oracle[i].offset != oracle[i - 1].offset + 1) gap = true;
  EXPECT_TRUE(gap) << "expected offsets with gaps after compaction";
}

TEST_P(Topics, DeletedAndRecreatedTopicRowsCoexist) {
  const auto topic = make_topic("recreated", 2);
  Producer p(bootstrap_);
  produce_n(p, topic, 40, "first");
  const auto manifest = write_manifest({topic});
  sync_ok(manifest);
  const auto first_rows = probe().rows(table_of(topic));
  ASSERT_EQ(first_rows.size(), 40u);
  const auto first_id = first_rows[0].topic_id;

  admin_.delete_topic(topic);
  // Deleted: the table stops with its own message, others would go on (exit code partial).
  auto gone = krow({"sync", manifest});
  EXPECT_EQ(gone.exit_code, 2) << gone.out << gone.err;
  EXPECT_NE(gone.err.find("deleted"), std::string::npos) << gone.err;

  admin_.create_topic(topic, 1);
  Producer p2(bootstrap_);
  produce_n(p2, topic, 15, "second");
  sync_ok(manifest);
  std::map<std::string, int> per_id;
  for (const auto& r : probe().rows(table_of(topic))) ++per_id[r.topic_id];
  ASSERT_EQ(per_id.size(), 2u);
  EXPECT_EQ(per_id[first_id], 40);
  per_id.erase(first_id);
  EXPECT_EQ(per_id.begin()->second, 15);
  EXPECT_EQ(probe().distinct_ids(table_of(topic)), 55);

  // Lag counts the live incarnation only: 4 new messages behind it, none for the dead one
  // (whose partition 0 position, 20ish, would otherwise count against the new partition 0).
  produce_n(p2, topic, 4, "third");
  const auto status = krow({"status", manifest});
  EXPECT_NE(status.out.find("total lag 4 message(s)"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("older incarnation"), std::string::npos) << status.out;
  const auto json = krow({"status", manifest, "--format", "json"});
  simdjson::dom::parser parser;
  int64_t lag = 0, dead = 0;
  for (auto pos : parser.parse(json.out)["positions"].get_array()) {
    if (!bool(pos["live"])) {
      ++dead;
      EXPECT_TRUE(pos["lag"].is_null());
    } else {
      lag += int64_t(pos["lag"]);
    }
  }
  EXPECT_EQ(dead, 2);
  EXPECT_EQ(lag, 4);
}

// Messages of ~10 kB, {"i": n, "tag": tag, "pad": ...}: 4,000 of them (40 MB) are more than
// the reader fetches ahead, so a sync frozen after its first batch has most still to fetch.
void produce_large(Producer& p, const std::string& topic, int n, const std::string& tag, int partition = -1) {
  const std::string pad(10000, 'x');
  for (int i = 0; i < n; ++i) {
    Record r{std::nullopt, "{\"i\": " + std::to_string(i) + ", \"tag\": \"" + tag + "\", \"pad\": \"" + pad + "\"}"};
    if (partition >= 0) r.partition = partition;
    p.send(topic, r);
  }
  p.flush();
}

TEST_P(Topics, TopicRecreatedDuringASyncStopsThereAndNothingOfTheNewOneIsStoredUnderTheOldId) {
  const auto topic = make_topic("recreated-live");
  Producer p(bootstrap_);
  produce_large(p, topic, 4000, "old");
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 200\n");
  const pid_t pid = start_krow_frozen_after_first_batch({"sync", "-q", manifest});
  // Under the frozen sync, the topic is deleted and made again, with as many messages.
  admin_.delete_topic(topic);
  admin_.create_topic(topic, 1);
  admin_.wait_for_topic(topic, 1);
  Producer p2(bootstrap_);
  produce_large(p2, topic, 4000, "new");
  kill(pid, SIGCONT);
  int status = 0;
  ASSERT_TRUE(finishes(pid, std::chrono::seconds(120), status));
  std::ifstream err_file(dir() / "krow-bg.err");
  const std::string err((std::istreambuf_iterator<char>(err_file)), std::istreambuf_iterator<char>());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2) << err;  // partial: that table stopped
  EXPECT_NE(err.find("deleted and recreated while the sync ran"), std::string::npos) << err;

  // Under the old topic ID: offsets 0..k-1 of the old topic, each once, none of the new one.
  const auto rows = probe().rows(table_of(topic));
  ASSERT_FALSE(rows.empty());
  const auto old_id = rows[0].topic_id;
  int64_t next = 0;
  for (const auto& r : rows) {
    ASSERT_EQ(r.topic_id, old_id);
    EXPECT_EQ(r.offset, next++);
    ASSERT_TRUE(r.value);
    EXPECT_NE(r.value->find("\"old\""), std::string::npos) << "a message of the new topic stored under the old ID, offset "
                                                            << r.offset;
  }
  EXPECT_LT(next, 4000);
  EXPECT_EQ(probe().positions_sum(), next);

  // The next sync copies the new topic, whole, under its own ID.
  sync_ok(manifest);
  std::map<std::string, int64_t> new_rows;
  for (const auto& r : probe().rows(table_of(topic)))
    if (r.topic_id != old_id) {
      ++new_rows[r.topic_id];
      EXPECT_NE(r.value->find("\"new\""), std::string::npos);
    }
  ASSERT_EQ(new_rows.size(), 1u);
  EXPECT_EQ(new_rows.begin()->second, 4000);
}

TEST_P(Topics, PartitionsAddedDuringASyncAreReadByTheNextSync) {
  const auto topic = make_topic("grown", 2);
  Producer p(bootstrap_);
  produce_large(p, topic, 2000, "before", 0);
  produce_large(p, topic, 2000, "before", 1);
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 200\n");
  const pid_t pid = start_krow_frozen_after_first_batch({"sync", "-q", manifest});
  admin_.add_partitions(topic, 4);
  Producer p2(bootstrap_);  // one that learns of the new partitions
  for (int partition = 0; partition < 4; ++partition) produce_large(p2, topic, 10, "after", partition);
  kill(pid, SIGCONT);
  int status = 0;
  ASSERT_TRUE(finishes(pid, std::chrono::seconds(120), status));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  // This sync read the two partitions it planned, up to the boundaries it captured.
  std::map<int32_t, int64_t> per_partition;
  for (const auto& r : probe().rows(table_of(topic))) ++per_partition[r.partition];
  EXPECT_EQ(per_partition, (std::map<int32_t, int64_t>{{0, 2000}, {1, 2000}}));
  // The next one reads the rest, the new partitions from their start.
  sync_ok(manifest);
  const auto rows = probe().rows(table_of(topic));
  EXPECT_EQ(differences(rows, consume_all(bootstrap_, topic)), 0u);
  EXPECT_EQ(rows.size(), 4040u);
}

TEST_P(Topics, HostileNamesBecomeSafeTables) {
  const auto a = make_topic("select");
  const auto b = make_topic("Robert-DROP.TABLE--students_");
  const auto c = make_topic("1.2.3");
  // Longer than PostgreSQL's 63-byte identifiers, twice with the same first 100 characters.
  const auto long1 = make_topic(std::string(100, 'l') + ".one"), long2 = make_topic(std::string(100, 'l') + ".two");
  Producer p(bootstrap_);
  for (const auto& t : {a, b, c, long1, long2}) produce_n(p, t, 3);
  const auto manifest = write_manifest({a, b, c, long1, long2});
  sync_ok(manifest);
  const auto tables = probe().tables();
  ASSERT_EQ(tables.size(), 5u);
  std::set<std::string> names;
  for (const auto& t : tables) {
    EXPECT_EQ(t.table.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"), std::string::npos) << t.table;
    if (const size_t limit = traits().max_table_name_length) {
      EXPECT_LE(t.table.size(), limit) << t.table;
    }
    EXPECT_EQ(probe().count(t.table), 3) << t.topic;
    names.insert(t.table);
  }
  EXPECT_EQ(names.size(), 5u);
  for (const auto& t : {a, b, c}) EXPECT_TRUE(names.count(table_of(t))) << t;
  // The plan shows the mapping.
  const auto plan = krow({"plan", manifest});
  EXPECT_NE(plan.out.find(b + "  ->  confluent.robert_drop_table__students_"), std::string::npos) << plan.out;
}

TEST_P(Topics, NamesThatDifferOnlyByCaseGetTablesOfTheirOwn) {
  const auto base = unique_name("names");
  const std::vector<std::string> topics{base + "-Mixed", base + "-mixed", base + "-MIXED", "select"};
  for (const auto& t : topics) {
    admin_.create_topic(t, 1);
    delete_after_test(t);
  }
  Producer p(bootstrap_);
  for (size_t i = 0; i < topics.size(); ++i)
    for (size_t k = 0; k <= i; ++k) p.send(topics[i], Record{std::nullopt, "{\"topic\": " + std::to_string(i) + "}"});
  p.flush();
  sync_ok(write_manifest(topics));
  const auto tables = probe().tables();
  std::map<std::string, std::string> table_of_topic;
  for (const auto& t : tables) table_of_topic[t.topic] = t.table;
  std::set<std::string> distinct;
  for (size_t i = 0; i < topics.size(); ++i) {
    ASSERT_TRUE(table_of_topic.count(topics[i])) << topics[i];
    distinct.insert(table_of_topic[topics[i]]);
    EXPECT_EQ(probe().count(table_of_topic[topics[i]]), static_cast<int64_t>(i + 1)) << topics[i];
  }
  EXPECT_EQ(distinct.size(), topics.size());
  // Kafka itself refuses a name that differs from an existing one only by '.' vs '_'
  // (both map to the same metric names), so krow never sees that pair.
}

TEST_P(Topics, PrefixAndGlobSelectionSkipsOthersAndInternalTopics) {
  const auto base = unique_name("sel");
  const auto in1 = base + ".orders.eu", in2 = base + ".orders.us", out = base + ".payments";
  for (const auto& t : {in1, in2, out}) admin_.create_topic(t, 1);
  Producer p(bootstrap_);
  for (const auto& t : {in1, in2, out}) produce_n(p, t, 2);
  std::ofstream(dir() / "sel.yaml") << "name: sel\nsource:\n  bootstrap_servers: " << bootstrap_
                                    << "\ntopics:\n  prefixes: [\"" << base << ".orders.\"]\n  exclude: [\"*.us\"]\n"
                                    << warehouse_yaml();
  const auto plan = krow({"plan", (dir() / "sel.yaml").string(), "--format", "json"});
  EXPECT_NE(plan.out.find(in1), std::string::npos);
  EXPECT_EQ(plan.out.find(in2), std::string::npos);
  EXPECT_EQ(plan.out.find("\"topic\":\"" + out), std::string::npos);
  EXPECT_EQ(plan.out.find("\"topic\":\"__consumer_offsets\""), std::string::npos);
  sync_ok((dir() / "sel.yaml").string());
  EXPECT_EQ(probe().tables().size(), 1u);
  for (const auto& t : {in1, in2, out}) admin_.delete_topic(t);
}

INSTANTIATE_TEST_SUITE_P(Engines, Topics, KROW_ALL_ENGINES);

}  // namespace
}  // namespace krow::testkit
