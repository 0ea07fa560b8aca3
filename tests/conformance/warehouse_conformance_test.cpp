// The warehouse contract (src/warehouse/: StateStore, TableSchemas, BatchWriter), held against
// every engine in process: the same suite runs on a real DuckDB file, a database of its own on
// the local PostgreSQL server and a project of its own on the BigQuery-API emulator. A new
// adapter passes it before anything else.
//
// What it checks: a batch's rows and the positions it advances commit together; a commit
// fenced on a position that is no longer stored writes nothing and says conflict; a re-read
// merges by id; staged rows reach the table only with their positions, in one publish, and a
// discard leaves the table and positions as they were; counts by offset range; run records;
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
  // The move of partition 0 from `from` (none: never committed) to `to`.
  static std::vector<PositionMove> move(std::optional<int64_t> from, int64_t to) {
    PositionMove m;
    m.to = Position{kTopic, kTopicId, Partition(0), Offset(to)};
    if (from) m.from = Offset(*from);
    return {m};
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
