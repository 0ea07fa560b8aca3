// `krow audit` on every warehouse engine: a table synced by krow is proven (by its counts
// alone, and message by message with --deep and --sample); a table damaged by another client
// (a row deleted, a row doubled, a value altered, a wrong id) has each damage found and
// named, with exit code 5; transaction markers and aborted records are not taken for
// missing messages; a sync killed with kill -9 and run again leaves a table that is proven.

#include <signal.h>

#include <string>
#include <vector>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Audit : public EngineTest {
 protected:
  // `count` JSON messages with keys and a header, spread over the topic's partitions in turn.
  void produce(const std::string& topic, int count, int partitions, int first = 0) {
    Producer p(bootstrap_);
    for (int i = first; i < first + count; ++i)
      p.send(topic,
             Record{"k" + std::to_string(i),
                    "{\"n\": " + std::to_string(i) + ", \"s\": \"v" + std::to_string(i) + "\"}",
                    {{"h", std::string("x")}},
                    i % partitions});
    p.flush();
  }
  std::string target(const std::string& topic) const {
    return "confluent.\"" + table_of(topic) + "\"";
  }
  RunOutput audit(const std::string& manifest, std::vector<std::string> more = {}) {
    std::vector<std::string> args{"audit", manifest, "--format", "json"};
    args.insert(args.end(), more.begin(), more.end());
    return krow(args);
  }
  static bool has(const RunOutput& r, const std::string& text) {
    return r.out.find(text) != std::string::npos;
  }
  // The sum of every `"<field>":N` of a JSON report.
  static int64_t sum_of(const RunOutput& r, const std::string& field) {
    int64_t sum = 0;
    const std::string key = "\"" + field + "\":";
    for (size_t at = 0; (at = r.out.find(key, at)) != std::string::npos; at += key.size())
      sum += std::stoll(r.out.substr(at + key.size()));
    return sum;
  }
};

TEST_P(Audit, ACorrectTableIsProvenByItsCountsAndMessageByMessage) {
  const auto topic = make_topic("audit-ok", 2);
  produce(topic, 60, 2);
  const auto manifest = write_manifest({topic});
  sync_ok(manifest);

  auto r = audit(manifest);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r, "\"clean\":true")) << r.out;
  // Every offset of the range stored once: the counts prove it, Kafka is not read.
  EXPECT_FALSE(has(r, "\"read_kafka\":true")) << r.out;
  EXPECT_TRUE(has(r, "\"partition\":0,\"from\":0,\"to\":30")) << r.out;
  EXPECT_TRUE(has(r, "\"expected\":30,\"found\":30,\"missing\":0,\"doubled\":0")) << r.out;

  r = audit(manifest, {"--deep"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r, "\"depth\":\"deep\"")) << r.out;
  EXPECT_TRUE(has(r, "\"differing\":0,\"wrong_ids\":0")) << r.out;
  // Each message decoded again and compared with its row.
  EXPECT_EQ(sum_of(r, "compared"), 60) << r.out;

  r = audit(manifest, {"--sample", "40", "--seed", "7"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r, "\"depth\":\"sample 40\"")) << r.out;
  // One run of up to 100 consecutive offsets: all of one partition's 30.
  EXPECT_EQ(sum_of(r, "compared"), 30) << r.out;

  // The text form says what it proved, and one table name too many is refused by name.
  r = krow({"audit", manifest});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("proven: every audited table"), std::string::npos) << r.out;
  r = krow({"audit", manifest, "--tables", "no_such_table"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("--tables names no_such_table"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(table_of(topic)), std::string::npos) << r.err;
}

TEST_P(Audit, EveryDamageAnotherClientDidIsFoundAndNamed) {
  const auto topic = make_topic("audit-damage");
  produce(topic, 40, 1);
  const auto manifest = write_manifest({topic});
  sync_ok(manifest);
  const auto t = target(topic);
  probe().execute("DELETE FROM " + t + " WHERE kafka_offset = 3");
  probe().execute("INSERT INTO " + t + " SELECT * FROM " + t + " WHERE kafka_offset = 7");
  probe().execute("UPDATE " + t + " SET key = 'altered' WHERE kafka_offset = 11");
  probe().execute("UPDATE " + t + " SET id = 'not-its-id' WHERE kafka_offset = 15");

  auto r = audit(manifest);
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
  EXPECT_TRUE(has(r, "\"clean\":false")) << r.out;
  EXPECT_TRUE(has(r, "\"read_kafka\":true")) << r.out;
  EXPECT_TRUE(has(
      r,
      "\"expected\":40,\"found\":40,\"missing\":1,\"doubled\":1,\"differing\":0,\"wrong_ids\":1"))
      << r.out;
  EXPECT_TRUE(has(r, "{\"kind\":\"missing\",\"offset\":3,")) << r.out;
  EXPECT_TRUE(has(r, "{\"kind\":\"doubled\",\"offset\":7,\"detail\":\"2 rows\"}")) << r.out;
  EXPECT_TRUE(has(r, "{\"kind\":\"wrong_id\",\"offset\":15,")) << r.out;

  // Message by message, the altered key shows too (and nothing else differs).
  r = audit(manifest, {"--deep"});
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
  EXPECT_TRUE(has(r, "{\"kind\":\"differing\",\"offset\":11,\"detail\":\"key\"}")) << r.out;
  EXPECT_TRUE(has(r, "{\"kind\":\"differing\",\"offset\":15,\"detail\":\"id\"}")) << r.out;
  EXPECT_TRUE(has(r, "\"differing\":2,")) << r.out;

  // The text form names each.
  r = krow({"audit", manifest});
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
  EXPECT_NE(r.out.find("partition 0 offset 3: missing"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("partition 0 offset 7: doubled (2 rows)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NOT PROVEN"), std::string::npos) << r.out;
}

TEST_P(Audit, TransactionMarkersAndAbortedRecordsAreNotMissingMessages) {
  const auto topic = make_topic("audit-tx");
  Producer tx(bootstrap_, unique_name("audit-tx-id"));
  for (int round = 0; round < 3; ++round) {
    tx.begin();
    for (int i = 0; i < 5; ++i)
      tx.send(topic, Record{std::string("c"), "{\"i\": " + std::to_string(i) + "}"});
    tx.commit();
    tx.begin();
    for (int i = 0; i < 5; ++i)
      tx.send(topic, Record{std::string("a"), std::string("{\"aborted\": true}")});
    tx.flush();
    tx.abort();
  }
  const auto manifest = write_manifest({topic});
  sync_ok(manifest);
  auto r = audit(manifest);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // 15 committed messages among 36 offsets (15 aborted records, 6 markers): Kafka is read.
  EXPECT_TRUE(has(r, "\"read_kafka\":true,\"expected\":15,\"found\":15,\"missing\":0")) << r.out;
  EXPECT_TRUE(has(r, "\"not_messages\":21")) << r.out;

  probe().execute("DELETE FROM " + target(topic) + " WHERE kafka_offset = 0");
  r = audit(manifest);
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
  EXPECT_TRUE(has(r, "\"expected\":15,\"found\":14,\"missing\":1")) << r.out;
  EXPECT_TRUE(has(r, "{\"kind\":\"missing\",\"offset\":0,")) << r.out;
}

TEST_P(Audit, ASyncKilledMidwayAndRunAgainLeavesAProvenTable) {
  const auto topic = make_topic("audit-kill", 3);
  produce(topic, 3000, 3);
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 100\n");
  const pid_t pid = start_krow_frozen_after_first_batch({"sync", manifest});
  ::kill(pid, SIGKILL);
  int status = 0;
  finishes(pid, std::chrono::seconds(30), status);
  produce(topic, 300, 3, 3000);
  sync_ok(manifest);
  // Retention removes the first offsets of partition 0: the rows stay, and are not audited.
  admin_.delete_records(topic, 0, 100);
  auto r = audit(manifest, {"--sample", "300", "--seed", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r, "\"partition\":0,\"from\":100,\"to\":1100")) << r.out;
  EXPECT_TRUE(has(r, "\"rows_before\":100,")) << r.out;
  EXPECT_FALSE(has(r, "\"clean\":false")) << r.out;
  EXPECT_EQ(sum_of(r, "compared"), 300) << r.out;
}

// Snapshot reconciliation of a latest_by_key table: a key whose tombstone was compacted away
// before krow read it keeps its row, which only reconciliation finds; rows another client
// deleted or copied too. --apply mends them in one transaction, and the table then holds the
// topic's state key by key.
TEST_P(Audit, ReconciliationFindsAKeyWhoseTombstoneWasCompactedAwayAndApplyMendsIt) {
  const auto topic = make_topic("reconcile", 1,
                                {{"cleanup.policy", "compact"},
                                 {"min.cleanable.dirty.ratio", "0.01"},
                                 {"segment.ms", "100"},
                                 {"delete.retention.ms", "0"},
                                 {"min.compaction.lag.ms", "0"}});
  Producer p(bootstrap_);
  for (int k = 1; k <= 5; ++k)
    p.send(topic, Record{"k" + std::to_string(k), "{\"k\": " + std::to_string(k) + ", \"v\": 1}"});
  p.flush();
  const auto manifest =
      write_manifest({topic}, "tables:\n  \"" + topic + "\": {strategy: latest_by_key}\n");
  sync_ok(manifest);
  auto r = krow({"reconcile", manifest, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r, "\"keys\":5,\"rows\":5,\"unkeyed_rows\":0,\"matching\":5,\"gone\":0"))
      << r.out;
  // krow audit leaves latest_by_key tables to reconciliation.
  r = audit(manifest);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r, "\"skipped\":\"latest_by_key keeps one row per key")) << r.out;

  // k2 is deleted and k3 updated; the log cleaner removes k2's value and then its tombstone
  // (delete.retention.ms 0) while more messages roll the segments, before krow reads on.
  p.send(topic, Record{"k2", std::nullopt});
  p.send(topic, Record{"k3", std::string("{\"k\": 3, \"v\": 2}")});
  p.flush();
  int filler = 0;
  ASSERT_TRUE(eventually(
      [&] {
        p.send(topic, Record{"filler", "{\"n\": " + std::to_string(++filler) + "}"});
        p.flush();
        for (const auto& c : consume_all(bootstrap_, topic))
          if (c.key == std::optional<std::string>("k2")) return false;
        return true;
      },
      std::chrono::seconds(120), std::chrono::milliseconds(300)))
      << "the log cleaner did not remove k2's messages";
  sync_ok(manifest);
  const auto t = target(topic);
  EXPECT_EQ(probe().query("SELECT count(*) FROM " + t + " WHERE key = 'k2'").rows.at(0).at(0),
            Cell("1"))
      << "the sync never saw k2's tombstone, so its row stays";
  // Another client deletes k4's row and copies k5's.
  probe().execute("DELETE FROM " + t + " WHERE key = 'k4'");
  probe().execute("INSERT INTO " + t + " SELECT * FROM " + t + " WHERE key = 'k5'");

  r = krow({"reconcile", manifest, "--format", "json"});
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
  EXPECT_TRUE(has(r, "\"gone\":1,\"stale\":0,\"missing\":1,\"doubled\":1")) << r.out;
  EXPECT_TRUE(has(r,
                  "{\"kind\":\"gone\",\"key\":\"k2\",\"detail\":\"row at 0:1, no message of the "
                  "key left in the topic\"}"))
      << r.out;
  EXPECT_TRUE(has(r, "{\"kind\":\"missing\",\"key\":\"k4\",")) << r.out;
  EXPECT_TRUE(has(r, "{\"kind\":\"doubled\",\"key\":\"k5\",\"detail\":\"2 rows\"}")) << r.out;
  const auto text = krow({"reconcile", manifest});
  EXPECT_EQ(text.exit_code, 5) << text.out << text.err;
  EXPECT_NE(text.out.find("gone: key k2 (row at 0:1, no message of the key left in the topic)"),
            std::string::npos)
      << text.out;
  // Report-only wrote nothing.
  EXPECT_EQ(probe().query("SELECT count(*) FROM " + t + " WHERE key = 'k2'").rows.at(0).at(0),
            Cell("1"));

  const auto positions = probe().positions();
  r = krow({"reconcile", manifest, "--apply", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(
      has(r, "\"applied\":true,\"rows_written\":2,\"rows_deleted\":1,\"left_after_apply\":0"))
      << r.out;
  r = krow({"reconcile", manifest, "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::map<std::string, int64_t> keys;
  for (const auto& row : probe().rows(table_of(topic))) ++keys[row.key.value_or("<null>")];
  EXPECT_EQ(keys, (std::map<std::string, int64_t>{
                      {"filler", 1}, {"k1", 1}, {"k3", 1}, {"k4", 1}, {"k5", 1}}));
  // The positions stayed where they were, and the next sync goes on from them.
  EXPECT_EQ(probe().positions_sum(), positions.front().next_offset);
  p.send(topic, Record{"k6", std::string("{\"k\": 6}")});
  p.flush();
  sync_ok(manifest);
  EXPECT_EQ(probe().query("SELECT count(*) FROM " + t + " WHERE key = 'k6'").rows.at(0).at(0),
            Cell("1"));
}

INSTANTIATE_TEST_SUITE_P(Engines, Audit, KROW_ALL_ENGINES);

}  // namespace
}  // namespace krow::testkit
