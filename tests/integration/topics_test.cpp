// Topic lifecycle and shape: many partitions, batch limits crossed several times, a
// compacted topic with gaps, a topic deleted and recreated, hostile names, and a second
// sync with nothing new.

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Topics : public SyncTest {};

void produce_n(Producer& p, const std::string& topic, int n, const std::string& tag = "m") {
  for (int i = 0; i < n; ++i)
    p.send(topic, Record{"key-" + std::to_string(i % 97), "{\"" + tag + "\": " + std::to_string(i) + "}"});
  p.flush();
}

TEST_F(Topics, ManyPartitionsAndBatchLimitCrossedSeveralTimes) {
  const auto topic = make_topic("parts", 24);
  Producer p(bootstrap_);
  produce_n(p, topic, 2500);
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 300\n");
  sync_ok(manifest);
  EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(topic)), "2500");
  EXPECT_EQ(sql1("SELECT count(DISTINCT id) FROM " + table_of(topic)), "2500");
  EXPECT_EQ(sql1("SELECT count(DISTINCT kafka_partition) FROM " + table_of(topic)), "24");
  // 2,500 rows in batches of at most 300 make at least 9 commits.
  const auto batches = std::stoi(sql1("SELECT (record->>'batches') FROM _krow.runs"));
  EXPECT_GE(batches, 9);
  // Every partition's position is its end offset.
  const auto oracle = consume_all(bootstrap_, topic);
  ASSERT_EQ(oracle.size(), 2500u);
  std::map<int32_t, int64_t> ends;
  for (const auto& c : oracle) ends[c.partition] = c.offset + 1;
  const auto pos = sql("SELECT kafka_partition, next_offset FROM _krow.positions ORDER BY 1");
  ASSERT_EQ(pos.rows.size(), 24u);
  for (const auto& row : pos.rows) EXPECT_EQ(std::stoll(*row[1]), ends[std::stoi(*row[0])]) << "partition " << *row[0];

  // Nothing new: a fast no-op that writes no rows.
  produce_n(p, topic, 0);
  const auto again = sync_ok(manifest);
  EXPECT_NE(again.out.find(" 0 messages"), std::string::npos) << again.out;
  EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(topic)), "2500");

  // More messages: only they are read.
  produce_n(p, topic, 100, "later");
  sync_ok(manifest);
  EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(topic)), "2600");
  EXPECT_EQ(sql1("SELECT count(*) - count(DISTINCT id) FROM " + table_of(topic)), "0");
}

TEST_F(Topics, CompactedTopicWithGaps) {
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
  const auto r = sql("SELECT kafka_offset, key, value FROM " + table_of(topic) + " ORDER BY kafka_offset");
  ASSERT_EQ(r.rows.size(), oracle.size());
  bool gap = false;
  for (size_t i = 0; i < oracle.size(); ++i) {
    EXPECT_EQ(r.rows[i][0], Cell(std::to_string(oracle[i].offset)));
    EXPECT_EQ(r.rows[i][1], oracle[i].key);
    EXPECT_EQ(r.rows[i][2], oracle[i].value);
    if (i > 0 && oracle[i].offset != oracle[i - 1].offset + 1) gap = true;
  }
  EXPECT_TRUE(gap) << "expected offsets with gaps after compaction";
}

TEST_F(Topics, DeletedAndRecreatedTopicRowsCoexist) {
  const auto topic = make_topic("recreated", 2);
  Producer p(bootstrap_);
  produce_n(p, topic, 40, "first");
  const auto manifest = write_manifest({topic});
  sync_ok(manifest);
  const auto first_id = sql1("SELECT DISTINCT kafka_topic_id FROM " + table_of(topic));

  admin_.delete_topic(topic);
  // Deleted: the table stops with its own message, others would go on (exit code partial).
  auto gone = krow({"sync", manifest});
  EXPECT_EQ(gone.exit_code, 2) << gone.out << gone.err;
  EXPECT_NE(gone.err.find("deleted"), std::string::npos) << gone.err;

  admin_.create_topic(topic, 1);
  Producer p2(bootstrap_);
  produce_n(p2, topic, 15, "second");
  sync_ok(manifest);
  const auto r = sql("SELECT kafka_topic_id, count(*) FROM " + table_of(topic) + " GROUP BY 1 ORDER BY 2 DESC");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0][0], Cell(first_id));
  EXPECT_EQ(r.rows[0][1], Cell("40"));
  EXPECT_NE(r.rows[1][0], Cell(first_id));
  EXPECT_EQ(r.rows[1][1], Cell("15"));
  EXPECT_EQ(sql1("SELECT count(*) - count(DISTINCT id) FROM " + table_of(topic)), "0");
}

TEST_F(Topics, HostileNamesBecomeSafeTables) {
  const auto a = make_topic("select");
  const auto b = make_topic("Robert-DROP.TABLE--students_");
  const auto c = make_topic("1.2.3");
  Producer p(bootstrap_);
  for (const auto& t : {a, b, c}) produce_n(p, t, 3);
  const auto manifest = write_manifest({a, b, c});
  sync_ok(manifest);
  for (const auto& t : {a, b, c}) EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(t)), "3") << t;
  const auto tables = sql("SELECT table_name FROM _krow.tables ORDER BY 1");
  ASSERT_EQ(tables.rows.size(), 3u);
  for (const auto& row : tables.rows)
    EXPECT_EQ(row[0]->find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"), std::string::npos) << *row[0];
  // The plan shows the mapping.
  const auto plan = krow({"plan", manifest});
  EXPECT_NE(plan.out.find(b + "  ->  confluent.robert_drop_table__students_"), std::string::npos) << plan.out;
}

TEST_F(Topics, PrefixAndGlobSelectionSkipsOthersAndInternalTopics) {
  const auto base = unique_name("sel");
  const auto in1 = base + ".orders.eu", in2 = base + ".orders.us", out = base + ".payments";
  for (const auto& t : {in1, in2, out}) admin_.create_topic(t, 1);
  Producer p(bootstrap_);
  for (const auto& t : {in1, in2, out}) produce_n(p, t, 2);
  std::ofstream(dir() / "sel.yaml") << "name: sel\nsource:\n  bootstrap_servers: " << bootstrap_
                                    << "\ntopics:\n  prefixes: [\"" << base << ".orders.\"]\n  exclude: [\"*.us\"]\n"
                                    << "warehouse:\n  path: warehouse.duckdb\n";
  const auto plan = krow({"plan", (dir() / "sel.yaml").string(), "--format", "json"});
  EXPECT_NE(plan.out.find(in1), std::string::npos);
  EXPECT_EQ(plan.out.find(in2), std::string::npos);
  EXPECT_EQ(plan.out.find("\"topic\":\"" + out), std::string::npos);
  EXPECT_EQ(plan.out.find("\"topic\":\"__consumer_offsets\""), std::string::npos);
  sync_ok((dir() / "sel.yaml").string());
  EXPECT_EQ(sql1("SELECT count(*) FROM _krow.tables"), "1");
  for (const auto& t : {in1, in2, out}) admin_.delete_topic(t);
}

}  // namespace
}  // namespace krow::testkit
