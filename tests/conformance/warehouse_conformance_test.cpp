// The warehouse contract (src/warehouse/: StateStore, TableSchemas, BatchWriter), held against
// every engine in process: the same suite runs on a real DuckDB file, a database of its own on
// the local PostgreSQL server and a project of its own on the BigQuery-API emulator. A new
// adapter passes it before anything else.
//
// What it checks: a batch's rows and the positions it advances commit together; a commit
// fenced on a position that is no longer stored writes nothing and says conflict; a re-read
// merges by id; staged rows reach the table only with their positions, in one publish, and a
// discard leaves the table and positions as they were; taking a partition bumps its epoch, and
// a commit or publish fenced on an epoch no longer stored writes nothing and says conflict; a
// positions table of a krow before epochs is upgraded; counts by offset range; run records;
// and what the engine's capabilities promise (typed columns and their bindings, the newest
// row per key) where it promises them. The rows are read back with each engine's own client
// (tests/support/warehouse_probe) once the warehouse is closed.

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "engines/engines.hpp"
#include "manifest/manifest.hpp"
#include "rows/row_batch.hpp"
#include "sync_fixture.hpp"
#include "util/error.hpp"

namespace krow::testkit {
namespace {

const TopicId kTopicId("Cq3ZVxwYQbGpT4mD2sW9aA");
constexpr const char* kSync = "conformance";
constexpr const char* kTopic = "orders";

class WarehouseConformance : public EngineTest {
 protected:
  // The engine's warehouse, opened in process as a sync opens it, with table `orders` made.
  std::unique_ptr<Warehouse> open(const TableSettings& settings = {}) {
    // The manifest names the PostgreSQL password by its variable, as users' do.
    ::setenv("KROW_TEST_PG_PASSWORD", pg_server().krow_password.c_str(), 1);
    const auto manifest = load_manifest(write_manifest({kTopic}));
    config_ = manifest.warehouse;
    capabilities_ = warehouse_capabilities(config_.type);
    auto w = open_warehouse(config_, kSync, OpenMode::write);
    w->create_table(kSync, kTopic, table(), settings, BatchWriter::Creation::now);
    return w;
  }
  static std::string table() { return "orders"; }

  // A batch of the rows of partition 0 at offsets [from, to), keyed "k<offset % keys>".
  static std::unique_ptr<RowBatch> batch(int64_t from, int64_t to, int64_t keys = 1000000) {
    auto b = std::make_unique<RowBatch>();
    const size_t slot = b->table_slot(table(), kTopic, kTopicId);
    for (int64_t o = from; o < to; ++o) {
      Row r;
      r.partition = Partition(0);
      r.offset = Offset(o);
      r.timestamp_ms = 1'700'000'000'000 + o;
      r.timestamp_type = contract::TimestampType::create_time;
      r.key.format = Format::string;
      r.key.text = put(*b, "k" + std::to_string(o % keys));
      r.value.format = Format::json;
      r.value.text = put(*b, R"({"offset":)" + std::to_string(o) + "}");
      r.value_size_bytes = static_cast<int32_t>(r.value.text.size);
      b->tables()[slot].rows.push_back(r);
      b->count_row();
    }
    return b;
  }
  static Slice put(RowBatch& b, const std::string& text) {
    const size_t start = b.arena().size();
    b.arena().append(text);
    return slice_since(b.arena(), start);
  }
  // The move of partition 0 from `from` (none: never committed) to `to`, by the writer that
  // took it at `epoch` (0: never taken).
  static std::vector<PositionMove> move(std::optional<int64_t> from, int64_t to,
                                        Epoch epoch = Epoch(0)) {
    PositionMove m;
    m.to = Position{kTopic, kTopicId, Partition(0), Offset(to)};
    if (from) m.from = Offset(*from);
    m.epoch = epoch;
    return {m};
  }
  // Partition `p` of the topic, as take() names it.
  static std::vector<PartitionKey> partition(int32_t p = 0) {
    return {{kTopic, kTopicId, Partition(p)}};
  }
  // Expects `commit` to throw conflict naming partition 0 and another worker.
  template <class Commit>
  static void expect_taken_by_another(Commit&& commit) {
    try {
      commit();
      ADD_FAILURE() << "a write fenced on a stale epoch was written";
    } catch (const Error& e) {
      EXPECT_EQ(e.error_class(), ErrorClass::conflict) << e.what();
      EXPECT_NE(std::string(e.what()).find("partition 0 of topic orders"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("taken by another worker"), std::string::npos)
          << e.what();
    }
  }
  static int64_t position(StateStore& w) {
    for (const auto& p : w.positions(kSync)) return p.next.value();
    return -1;
  }

  WarehouseConfig config_;
  WarehouseCapabilities capabilities_;
};

TEST_P(WarehouseConformance, RowsAndPositionsCommitTogetherAndEachCommitIsFencedOnItsStart) {
  auto w = open();
  auto first = batch(0, 10);
  w->commit(kSync, *first, move(std::nullopt, 10), BatchWriter::WriteMode::append);
  EXPECT_EQ(position(*w), 10);
  EXPECT_EQ(w->count_rows(kSync, table(), false, {}).rows, 10);
  // A commit that starts from a position no longer stored: nothing is written.
  auto stale = batch(5, 20);
  try {
    w->commit(kSync, *stale, move(5, 20), BatchWriter::WriteMode::append);
    ADD_FAILURE() << "a commit fenced on a stale position was written";
  } catch (const Error& e) {
    EXPECT_EQ(e.error_class(), ErrorClass::conflict) << e.what();
  }
  EXPECT_EQ(position(*w), 10);
  EXPECT_EQ(w->count_rows(kSync, table(), false, {}).rows, 10);
  auto next = batch(10, 20);
  w->commit(kSync, *next, move(10, 20), BatchWriter::WriteMode::append);
  EXPECT_EQ(position(*w), 20);
  // Counts by offset range, with the newest timestamp among them.
  const auto some =
      w->count_rows(kSync, table(), false, {{kTopicId, Partition(0), Offset(5), Offset(15)}});
  EXPECT_EQ(some.rows, 10);
  ASSERT_TRUE(some.newest_ms);
  EXPECT_EQ(*some.newest_ms, 1'700'000'000'000 + 14);
  w.reset();
  EXPECT_EQ(probe().count(table()), 20);
  EXPECT_EQ(probe().distinct_ids(table()), 20);
  EXPECT_EQ(probe().positions_sum(), 20);
}

TEST_P(WarehouseConformance, AReReadMergesById) {
  auto w = open();
  auto first = batch(0, 10);
  w->commit(kSync, *first, move(std::nullopt, 10), BatchWriter::WriteMode::append);
  auto again = batch(5, 15);  // a full resync reads 5..9 again, and 10..14 for the first time
  w->commit(kSync, *again, move(10, 15), BatchWriter::WriteMode::merge);
  EXPECT_EQ(w->count_rows(kSync, table(), false, {}).rows, 15);
  w.reset();
  EXPECT_EQ(probe().count(table()), 15);
  EXPECT_EQ(probe().distinct_ids(table()), 15);
}

TEST_P(WarehouseConformance, StagedRowsReachTheTableOnlyWithTheirPositionsInOnePublish) {
  auto w = open();
  w->begin_staging(kSync, {table()});
  auto staged = batch(0, 12);
  w->stage(kSync, *staged, false);
  auto again = batch(0, 12);
  w->stage(kSync, *again, true);  // a retry whose first try may have landed: replaced, not doubled
  EXPECT_EQ(w->count_rows(kSync, table(), true, {}).rows, 12);
  EXPECT_EQ(w->count_rows(kSync, table(), false, {}).rows, 0);
  EXPECT_EQ(position(*w), -1);
  w->publish(kSync, {table()}, move(std::nullopt, 12), BatchWriter::WriteMode::append);
  EXPECT_EQ(w->count_rows(kSync, table(), false, {}).rows, 12);
  EXPECT_EQ(position(*w), 12);
  // The next run stages and discards: the table and positions are as they were.
  w->begin_staging(kSync, {table()});
  auto discarded = batch(12, 20);
  w->stage(kSync, *discarded, false);
  w->discard_staged(kSync, {table()});
  EXPECT_EQ(w->count_rows(kSync, table(), false, {}).rows, 12);
  EXPECT_EQ(position(*w), 12);
  w.reset();
  EXPECT_EQ(probe().count(table()), 12);
  EXPECT_EQ(probe().positions_sum(), 12);
}

TEST_P(WarehouseConformance, TakeBumpsTheEpochAndTheLaterTakeWins) {
  auto w = open();
  auto first = batch(0, 10);
  w->commit(kSync, *first, move(std::nullopt, 10), BatchWriter::WriteMode::append);
  // Taking returns the new epoch and the stored position.
  const auto one = w->take(kSync, partition());
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].key.partition, Partition(0));
  EXPECT_EQ(one[0].epoch, Epoch(1));
  EXPECT_EQ(one[0].position, std::optional<Offset>(Offset(10)));
  // A commit with the current epoch passes.
  auto second = batch(10, 20);
  w->commit(kSync, *second, move(10, 20, one[0].epoch), BatchWriter::WriteMode::append);
  EXPECT_EQ(position(*w), 20);
  // Two takes in a row: each gets its own epoch, the later one wins.
  const auto earlier = w->take(kSync, partition());
  const auto later = w->take(kSync, partition());
  ASSERT_EQ(earlier.size(), 1u);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(earlier[0].epoch, Epoch(2));
  EXPECT_EQ(later[0].epoch, Epoch(3));
  EXPECT_EQ(later[0].position, std::optional<Offset>(Offset(20)));
  // The earlier taker lost the partition: its commit, from the right position, writes nothing.
  auto stale = batch(20, 30);
  expect_taken_by_another([&] {
    w->commit(kSync, *stale, move(20, 30, earlier[0].epoch), BatchWriter::WriteMode::append);
  });
  // So does a writer that never took it.
  auto untaken = batch(20, 30);
  expect_taken_by_another(
      [&] { w->commit(kSync, *untaken, move(20, 30), BatchWriter::WriteMode::append); });
  EXPECT_EQ(position(*w), 20);
  EXPECT_EQ(w->count_rows(kSync, table(), false, {}).rows, 20);
  // A stale position with the current epoch is still refused, as before epochs.
  auto behind = batch(15, 30);
  EXPECT_THROW(
      w->commit(kSync, *behind, move(15, 30, later[0].epoch), BatchWriter::WriteMode::append),
      Error);
  auto current = batch(20, 30);
  w->commit(kSync, *current, move(20, 30, later[0].epoch), BatchWriter::WriteMode::append);
  EXPECT_EQ(position(*w), 30);
  w.reset();
  EXPECT_EQ(probe().count(table()), 30);
  EXPECT_EQ(probe().distinct_ids(table()), 30);
  EXPECT_EQ(probe().positions_sum(), 30);
  EXPECT_EQ(probe().epoch(kTopic, 0), std::optional<int64_t>(3));
}

TEST_P(WarehouseConformance, APartitionTakenButNeverCommittedHasNoPosition) {
  auto w = open();
  const auto taken = w->take(kSync, partition());
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].epoch, Epoch(1));
  EXPECT_FALSE(taken[0].position);
  EXPECT_TRUE(w->positions(kSync).empty());
  w.reset();
  EXPECT_TRUE(probe().positions().empty());
  EXPECT_EQ(probe().epoch(kTopic, 0), std::optional<int64_t>(1));
  // Its first commit, by its taker, from no position.
  w = open();
  EXPECT_TRUE(w->positions(kSync).empty());
  auto stale = batch(0, 10);
  expect_taken_by_another(
      [&] { w->commit(kSync, *stale, move(std::nullopt, 10), BatchWriter::WriteMode::append); });
  EXPECT_EQ(w->count_rows(kSync, table(), false, {}).rows, 0);
  auto first = batch(0, 10);
  w->commit(kSync, *first, move(std::nullopt, 10, taken[0].epoch), BatchWriter::WriteMode::append);
  EXPECT_EQ(position(*w), 10);
  w.reset();
  EXPECT_EQ(probe().positions_sum(), 10);
}

TEST_P(WarehouseConformance, APublishFencedOnAStaleEpochPublishesNothing) {
  auto w = open();
  const auto earlier = w->take(kSync, partition());
  w->begin_staging(kSync, {table()});
  auto staged = batch(0, 12);
  w->stage(kSync, *staged, false);
  const auto later = w->take(kSync, partition());
  expect_taken_by_another([&] {
    w->publish(kSync, {table()}, move(std::nullopt, 12, earlier[0].epoch),
               BatchWriter::WriteMode::append);
  });
  EXPECT_EQ(w->count_rows(kSync, table(), false, {}).rows, 0);
  EXPECT_TRUE(w->positions(kSync).empty());
  w->publish(kSync, {table()}, move(std::nullopt, 12, later[0].epoch),
             BatchWriter::WriteMode::append);
  EXPECT_EQ(w->count_rows(kSync, table(), false, {}).rows, 12);
  EXPECT_EQ(position(*w), 12);
}

TEST_P(WarehouseConformance, APositionsTableOfAKrowBeforeEpochsIsUpgradedAndKept) {
  auto w = open();
  auto first = batch(0, 10);
  w->commit(kSync, *first, move(std::nullopt, 10), BatchWriter::WriteMode::append);
  w.reset();
  probe().make_positions_table_old();
  // Opened for writing: the table gets its epoch column, and keeps its positions.
  w = open();
  EXPECT_EQ(position(*w), 10);
  const auto taken = w->take(kSync, partition());
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].epoch, Epoch(1));
  EXPECT_EQ(taken[0].position, std::optional<Offset>(Offset(10)));
  auto second = batch(10, 20);
  w->commit(kSync, *second, move(10, 20, taken[0].epoch), BatchWriter::WriteMode::append);
  // A partition never committed can now be taken (its next_offset is NULL).
  const auto fresh = w->take(kSync, partition(1));
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_FALSE(fresh[0].position);
  ASSERT_EQ(w->positions(kSync).size(), 1u);
  w.reset();
  // Opening again changes nothing (the upgrade is done once).
  w = open();
  EXPECT_EQ(position(*w), 20);
  EXPECT_EQ(w->positions(kSync).size(), 1u);
  w.reset();
  EXPECT_EQ(probe().positions_sum(), 20);
  EXPECT_EQ(probe().epoch(kTopic, 0), std::optional<int64_t>(1));
  EXPECT_EQ(probe().count(table()), 20);
}

TEST_P(WarehouseConformance, RunRecordsAreStoredAndReadBackNewestFirst) {
  auto w = open();
  w->record_run({"run-1", kSync, 1000, 2000, "success", R"({"run_id":"run-1"})"});
  w->record_run({"run-2", kSync, 3000, 4000, "partial", R"({"run_id":"run-2"})"});
  w->record_run(
      {"run-2", kSync, 3000, 5000, "failed", R"({"run_id":"run-2","again":true})"});  // replaced
  const auto runs = w->runs(kSync, 10);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].run_id, "run-2");
  EXPECT_EQ(runs[0].status, "failed");
  EXPECT_EQ(runs[0].finished_at_ms, 5000);
  EXPECT_EQ(runs[1].run_id, "run-1");
}

TEST_P(WarehouseConformance, WhatTheCapabilitiesPromiseTheEngineDoes) {
  const auto capabilities = warehouse_capabilities(engine());
  if (capabilities.typed_columns) {
    TableSettings typed;
    typed.columns = TypedColumns::from_schema;
    columns::ColumnSpec offset;
    offset.name = "value__offset";
    offset.path = {"offset"};
    offset.type = ColumnType::int64;
    typed.typed_columns = {offset};
    if (capabilities.latest_by_key) typed.strategy = Strategy::latest_by_key;
    auto w = open(typed);
    const auto columns = w->typed_columns(table());
    ASSERT_TRUE(columns);
    ASSERT_EQ(columns->size(), 1u);
    EXPECT_EQ(columns->at(0).name, "value__offset");
    const auto bound = w->column_bindings(table());
    ASSERT_EQ(bound.size(), 1u);
    EXPECT_EQ(bound[0].path, std::vector<std::string>{"offset"});
    // Ten messages of three keys: with latest_by_key, one row per key, the newest.
    auto b = batch(0, 10, 3);
    b->tables()[0].typed = std::make_shared<const rows::TypedLayout>(typed.typed_columns);
    for (size_t i = 0; i < 10; ++i) {
      rows::TypedCell cell;
      cell.a = static_cast<int64_t>(i);
      cell.present = true;
      b->tables()[0].cells.push_back(cell);
    }
    w->commit(kSync, *b, move(std::nullopt, 10), BatchWriter::WriteMode::append);
    const int64_t want = capabilities.latest_by_key ? 3 : 10;
    EXPECT_EQ(w->count_rows(kSync, table(), false, {}).rows, want);
    w.reset();
    EXPECT_EQ(probe().count(table()), want);
    if (capabilities.latest_by_key) {
      const auto newest =
          probe().query("SELECT CAST(max(value__offset) AS VARCHAR) FROM confluent.orders");
      EXPECT_EQ(newest.rows.at(0).at(0), Cell("9"));
    }
  } else {
    // What an engine does not take never reaches it: the manifest refuses it (Manifest tests).
    EXPECT_FALSE(capabilities.latest_by_key) << "latest_by_key needs typed-table support here";
  }
  EXPECT_EQ(capabilities.concurrent_writers, traits().concurrent_writers);
}

INSTANTIATE_TEST_SUITE_P(Engines, WarehouseConformance, KROW_ALL_ENGINES);

}  // namespace
}  // namespace krow::testkit
