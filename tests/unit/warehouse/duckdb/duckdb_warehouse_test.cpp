// The DuckDB adapter's write path on a real DuckDB file: rows encoded on the reading thread
// (Warehouse::encode) or at commit store the same values; rows changed after encoding are
// stored as changed; each batch stores its own rows, however big the one before; and each
// default batch fills whole row groups.

#include "warehouse/duckdb/duckdb_warehouse.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "contract/state_tables.hpp"
#include "manifest/manifest.hpp"
#include "rows/row_batch.hpp"
#include "warehouse/duckdb/duckdb_settings.hpp"
#include "warehouse_probe.hpp"

namespace krow {
namespace {

const TopicId kTopicId("Xq3ZVxwYQbGpT4mD2sW9aA");

class DuckDBWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("krow-duckdb-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / (name + ".duckdb")).string(); }

  std::unique_ptr<DuckDBWarehouse> open(const std::string& name) {
    WarehouseConfig config;
    auto settings = std::make_shared<DuckDBSettings>();
    settings->path = path(name);
    config.settings = settings;
    auto w = std::make_unique<DuckDBWarehouse>(config, "test", OpenMode::write);
    w->create_table("test", "orders", "orders", {}, Warehouse::Creation::now);
    return w;
  }

  // Text into the batch's arena as a present slice.
  static Slice put(RowBatch& b, std::string_view text) {
    const size_t start = b.arena().size();
    b.arena().append(text);
    return slice_since(b.arena(), start);
  }

  // Rows from `first` to `first + n`: short and long text (DuckDB inlines up to 12 bytes),
  // NULLs, a tombstone and a row without a timestamp among them.
  static void fill(RowBatch& b, int64_t first, int64_t n) {
    const size_t slot = b.table_slot("orders", "orders", kTopicId);
    for (int64_t o = first; o < first + n; ++o) {
      Row r;
      r.partition = Partition(static_cast<int32_t>(o % 3));
      r.offset = Offset(o);
      if (o % 7 != 0) {
        r.timestamp_ms = 1'700'000'000'000 + o;
        r.timestamp_type = contract::TimestampType::create_time;
      }
      r.key.format = Format::string;
      r.key.text = put(b, o % 2 ? "k" + std::to_string(o) : "a-key-longer-than-twelve-" + std::to_string(o));
      r.is_tombstone = o % 11 == 0;
      if (!r.is_tombstone) {
        r.value.format = Format::json;
        r.value.text = put(b, R"({"n":)" + std::to_string(o) + R"(,"note":"ünïcode and more than twelve bytes"})");
        r.value_size_bytes = static_cast<int32_t>(r.value.text.size);
      }
      if (o % 5 == 0) r.headers = put(b, R"([{"key":"h","value":"v"}])");
      b.tables()[slot].rows.push_back(r);
      b.count_row();
    }
  }

  std::filesystem::path dir_;
};

std::vector<PositionMove> no_moves() { return {}; }

TEST_F(DuckDBWrite, EncodedAndUnencodedBatchesStoreTheSameRows) {
  RowBatch encoded, plain;
  fill(encoded, 0, 5000);
  fill(plain, 0, 5000);
  {
    auto w = open("encoded");
    w->encode(encoded);
    w->commit("test", encoded, no_moves(), Warehouse::WriteMode::append);
    auto v = open("plain");
    v->commit("test", plain, no_moves(), Warehouse::WriteMode::append);
  }
  const auto a = testkit::duckdb_probe(path("encoded"))->rows("orders");
  const auto b = testkit::duckdb_probe(path("plain"))->rows("orders");
  ASSERT_EQ(a.size(), 5000u);
  ASSERT_EQ(b.size(), 5000u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].key, b[i].key);
    EXPECT_EQ(a[i].value, b[i].value);
    EXPECT_EQ(a[i].headers, b[i].headers);
    EXPECT_EQ(a[i].timestamp_ms, b[i].timestamp_ms);
    EXPECT_EQ(a[i].is_tombstone, b[i].is_tombstone);
  }
  // And what was stored is what the rows held, whichever way it went.
  const auto& r = a[14];  // partition 0 sorts first: offsets 0, 3, 6, ... → the 15th is 42
  EXPECT_EQ(r.offset, 42);
  EXPECT_EQ(r.id, kTopicId.str() + ":0:42");
  EXPECT_EQ(r.key, "a-key-longer-than-twelve-42");
  EXPECT_EQ(r.value, R"({"n":42,"note":"ünïcode and more than twelve bytes"})");
  EXPECT_FALSE(r.timestamp_ms.has_value());  // 42 % 7 == 0
  EXPECT_FALSE(r.headers.has_value());
  EXPECT_EQ(a[1].key, "k3");
  EXPECT_TRUE(a[0].is_tombstone);
  EXPECT_FALSE(a[0].value.has_value());
}

TEST_F(DuckDBWrite, ARowChangedAfterEncodingIsStoredAsChanged) {
  RowBatch b;
  fill(b, 1, 10);
  auto w = open("changed");
  w->encode(b);
  b.replace_unstorable(0, 2, contract::kValue, RowBatch::Fallback::as_text, "refused for the test");
  w->commit("test", b, no_moves(), Warehouse::WriteMode::append);
  w.reset();
  const auto rows = testkit::duckdb_probe(path("changed"))->rows("orders");
  ASSERT_EQ(rows.size(), 10u);
  const auto it = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.offset == 3; });
  ASSERT_NE(it, rows.end());
  ASSERT_TRUE(it->value.has_value());
  EXPECT_EQ(it->value->front(), '"');  // a JSON string now, holding the refused JSON's text
  EXPECT_NE(it->value->find(R"({\"n\":3,)"), std::string::npos) << *it->value;
  EXPECT_EQ(it->value_format, "string");
  ASSERT_TRUE(it->decode_error.has_value());
  EXPECT_NE(it->decode_error->find("refused for the test"), std::string::npos);
}

TEST_F(DuckDBWrite, EachBatchStoresOnlyItsOwnRows) {
  RowBatch b;
  auto w = open("reused");
  fill(b, 0, 9000);
  w->encode(b);
  w->commit("test", b, no_moves(), Warehouse::WriteMode::append);
  b.clear();
  fill(b, 9000, 100);  // far fewer rows than the batch before
  w->encode(b);
  w->commit("test", b, no_moves(), Warehouse::WriteMode::append);
  b.clear();
  fill(b, 9100, 50);  // not encoded beforehand: commit builds the chunks itself
  w->commit("test", b, no_moves(), Warehouse::WriteMode::append);
  w.reset();
  auto probe = testkit::duckdb_probe(path("reused"));
  EXPECT_EQ(probe->count("orders"), 9150);
  EXPECT_EQ(probe->distinct_ids("orders"), 9150);
}

TEST_F(DuckDBWrite, EachDefaultBatchFillsWholeRowGroups) {
  const int64_t batch = BatchConfig{}.max_messages;
  RowBatch b;
  auto w = open("groups");
  for (int i = 0; i < 3; ++i) {
    b.clear();
    fill(b, i * batch, i < 2 ? batch : 1000);
    w->encode(b);
    w->commit("test", b, no_moves(), Warehouse::WriteMode::append);
  }
  w.reset();
  const auto r = testkit::query(path("groups"),
                                "SELECT row_group_id, max(count) FROM pragma_storage_info('confluent.orders') "
                                "GROUP BY ALL ORDER BY 1");
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0][1], std::to_string(batch));
  EXPECT_EQ(r.rows[1][1], std::to_string(batch));
  EXPECT_EQ(r.rows[2][1], "1000");
}

}  // namespace
}  // namespace krow

namespace krow {
namespace {

// krow's state tables come from their one declaration (contract/state_tables.hpp), keys
// included; a typed table's field → column bindings are recorded with it, kept while it lives,
// and start afresh when a table of its name is made again after a drop.
TEST_F(DuckDBWrite, StateTablesFollowTheirDeclarationAndBindingsLiveAsLongAsTheirTable) {
  WarehouseConfig config;
  auto settings = std::make_shared<DuckDBSettings>();
  settings->path = path("state");
  config.settings = settings;
  TableSettings typed;
  typed.columns = TypedColumns::from_schema;
  columns::ColumnSpec a;
  a.name = "a__b";
  a.path = {"a", "b"};
  a.type = ColumnType::text;
  typed.typed_columns = {a};
  {
    DuckDBWarehouse w(config, "test", OpenMode::write);
    w.create_table("test", "t", "t", typed, Warehouse::Creation::now);
    ASSERT_EQ(w.column_bindings("t").size(), 1u);
    EXPECT_EQ(w.column_bindings("t")[0].column, "a__b");
    // The same settings again: nothing new, nothing changed.
    w.create_table("test", "t", "t", typed, Warehouse::Creation::now);
    EXPECT_EQ(w.column_bindings("t").size(), 1u);
  }
  auto probe = testkit::duckdb_probe(path("state"));
  for (const auto* table : contract::kStateTables) {
    const auto key = probe->query(
        "SELECT string_agg(c, ',' ORDER BY c) FROM (SELECT unnest(constraint_column_names) "
        "AS c FROM duckdb_constraints() WHERE schema_name = '_krow' AND table_name = '" +
        std::string(table->name) + "' AND constraint_type = 'PRIMARY KEY')");
    std::vector<std::string> want(table->key.begin(), table->key.end());
    std::sort(want.begin(), want.end());
    std::string joined;
    for (const auto& k : want) joined += (joined.empty() ? "" : ",") + k;
    ASSERT_EQ(key.rows.size(), 1u);
    EXPECT_EQ(key.rows[0][0], testkit::Cell(joined)) << table->name;
  }
  probe->execute("DROP TABLE confluent.t");
  probe.reset();
  // Made again, with another field first: the bindings are the new table's alone.
  columns::ColumnSpec top = a;
  top.path = {"a__b"};
  typed.typed_columns = {top};
  DuckDBWarehouse w(config, "test", OpenMode::write);
  w.create_table("test", "t", "t", typed, Warehouse::Creation::now);
  const auto bound = w.column_bindings("t");
  ASSERT_EQ(bound.size(), 1u);
  EXPECT_EQ(bound[0].path, std::vector<std::string>{"a__b"});
}

}  // namespace
}  // namespace krow
