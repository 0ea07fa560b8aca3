// Transactions: committed messages appear, aborted ones and control records never do, and
// a transaction still open when a sync starts neither blocks the sync nor leaks into it.

#include <chrono>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Transactions : public SyncTest {};

TEST_F(Transactions, CommittedAppearAbortedNever) {
  const auto topic = make_topic("tx", 2);
  Producer tx(bootstrap_, unique_name("tx-id"));
  for (int round = 0; round < 3; ++round) {
    tx.begin();
    for (int i = 0; i < 10; ++i)
      tx.send(topic, Record{std::string("c"), "{\"round\": " + std::to_string(round) + ", \"i\": " + std::to_string(i) + "}"});
    tx.commit();
    tx.begin();
    for (int i = 0; i < 10; ++i) tx.send(topic, Record{std::string("a"), std::string("{\"aborted\": true}")});
    tx.abort();
  }
  const auto manifest = write_manifest({topic});
  sync_ok(manifest);
  EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(topic)), "30");
  EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(topic) + " WHERE key = 'a' OR value_format <> 'json'"), "0");
  // Rows equal what an independent read_committed consumer sees.
  const auto oracle = consume_all(bootstrap_, topic);
  ASSERT_EQ(oracle.size(), 30u);
  const auto r = sql("SELECT kafka_partition, kafka_offset, value FROM " + table_of(topic) + " ORDER BY 1, 2");
  for (size_t i = 0; i < oracle.size(); ++i) {
    EXPECT_EQ(r.rows[i][0], Cell(std::to_string(oracle[i].partition)));
    EXPECT_EQ(r.rows[i][1], Cell(std::to_string(oracle[i].offset)));
    EXPECT_EQ(r.rows[i][2], oracle[i].value);
  }
  // The positions reach past the trailing control records: a second sync has nothing to read.
  const auto plan = krow({"plan", manifest, "--format", "json"});
  EXPECT_NE(plan.out.find("\"messages_to_read\":0"), std::string::npos) << plan.out;
  const auto again = sync_ok(manifest);
  EXPECT_NE(again.out.find(" 0 messages"), std::string::npos) << again.out;
}

TEST_F(Transactions, OpenTransactionAtStartDoesNotBlockOrLeak) {
  const auto topic = make_topic("open-tx");
  Producer plain(bootstrap_);
  for (int i = 0; i < 5; ++i) plain.send(topic, Record{std::nullopt, "{\"before\": " + std::to_string(i) + "}"});
  plain.flush();
  Producer tx(bootstrap_, unique_name("open-tx-id"));
  tx.begin();
  for (int i = 0; i < 5; ++i) tx.send(topic, Record{std::nullopt, std::string("{\"in_tx\": true}")});
  tx.flush();
  // Non-transactional messages after the open transaction wait behind it (LSO).
  for (int i = 0; i < 3; ++i) plain.send(topic, Record{std::nullopt, std::string("{\"after\": true}")});
  plain.flush();

  const auto manifest = write_manifest({topic});
  const auto t0 = std::chrono::steady_clock::now();
  sync_ok(manifest);
  const auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 30.0) << "the sync waited for the open transaction";
  EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(topic)), "5");
  EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(topic) + " WHERE value->>'before' IS NULL"), "0");

  tx.commit();
  sync_ok(manifest);
  EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(topic)), "13");
  EXPECT_EQ(sql1("SELECT count(*) FROM " + table_of(topic) + " WHERE value->>'in_tx' = 'true'"), "5");
  EXPECT_EQ(sql1("SELECT count(*) - count(DISTINCT id) FROM " + table_of(topic)), "0");
}

}  // namespace
}  // namespace krow::testkit
