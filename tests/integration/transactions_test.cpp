// Transactions, on every warehouse engine: committed messages appear, aborted ones and
// control records never do, and a transaction still open when a sync starts neither blocks
// the sync nor leaks into it.

#include <chrono>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Transactions : public EngineTest {};

TEST_P(Transactions, CommittedAppearAbortedNever) {
  const auto topic = make_topic("tx", 2);
  Producer tx(bootstrap_, unique_name("tx-id"));
  for (int round = 0; round < 3; ++round) {
    tx.begin();
    for (int i = 0; i < 10; ++i)
      tx.send(topic, Record{std::string("c"), "{\"round\": " + std::to_string(round) + ", \"i\": " + std::to_string(i) + "}"});
    tx.commit();
    tx.begin();
    for (int i = 0; i < 10; ++i) tx.send(topic, Record{std::string("a"), std::string("{\"aborted\": true}")});
    tx.flush();  // in the log before the abort, so that the abort markers have something to hide
    tx.abort();
  }
  const auto manifest = write_manifest({topic});
  sync_ok(manifest);
  const auto rows = probe().rows(table_of(topic));
  ASSERT_EQ(rows.size(), 30u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.key, Cell("c"));
    EXPECT_EQ(r.value_format, Cell("json"));
  }
  // Rows equal what an independent read_committed consumer sees.
  const auto oracle = consume_all(bootstrap_, topic);
  ASSERT_EQ(oracle.size(), 30u);
  for (size_t i = 0; i < oracle.size(); ++i) {
    EXPECT_EQ(rows[i].partition, oracle[i].partition);
    EXPECT_EQ(rows[i].offset, oracle[i].offset);
    EXPECT_EQ(rows[i].value, stored_json(oracle[i].value));
  }
  // The positions reach past the trailing control records: a second sync has nothing to read.
  const auto plan = krow({"plan", manifest, "--format", "json"});
  EXPECT_NE(plan.out.find("\"messages_to_read\":0"), std::string::npos) << plan.out;
  const auto again = sync_ok(manifest);
  EXPECT_NE(again.out.find(" 0 messages"), std::string::npos) << again.out;
}

TEST_P(Transactions, OpenTransactionAtStartDoesNotBlockOrLeak) {
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
  auto rows = probe().rows(table_of(topic));
  ASSERT_EQ(rows.size(), 5u);
  for (size_t i = 0; i < rows.size(); ++i)
    EXPECT_EQ(rows[i].value, stored_json("{\"before\": " + std::to_string(i) + "}"));

  tx.commit();
  sync_ok(manifest);
  rows = probe().rows(table_of(topic));
  ASSERT_EQ(rows.size(), 13u);
  int in_tx = 0, after = 0;
  for (const auto& r : rows) {
    in_tx += r.value == stored_json("{\"in_tx\": true}");
    after += r.value == stored_json("{\"after\": true}");
  }
  EXPECT_EQ(in_tx, 5);
  EXPECT_EQ(after, 3);
  EXPECT_EQ(probe().distinct_ids(table_of(topic)), 13);
}

INSTANTIATE_TEST_SUITE_P(Engines, Transactions, KROW_ALL_ENGINES);

}  // namespace
}  // namespace krow::testkit
