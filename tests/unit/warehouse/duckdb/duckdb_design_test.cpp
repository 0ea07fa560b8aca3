// DuckDB's physical design on a real DuckDB file (warehouse/duckdb/duckdb_design): `sort_by`
// recorded in the table's comment, each batch written in that order, an existing table's
// different order shown as a change and left alone unless applied, and applied by writing the
// whole table again in the new order.

#include "warehouse/duckdb/duckdb_design.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "rows/row_batch.hpp"
#include "warehouse/duckdb/duckdb_settings.hpp"
#include "warehouse/duckdb/duckdb_warehouse.hpp"
#include "warehouse_probe.hpp"

namespace krow {
namespace {

const TopicId kTopicId("Xq3ZVxwYQbGpT4mD2sW9aA");

TEST(DuckDBDesign, TheSortCommentReadsBackAsWritten) {
  const std::vector<std::string> names{"customer_id", "a \"quoted\", name", ""};
  EXPECT_EQ(duckdb_sort_comment({"a", "b"}), "krow sort_by: \"a\", \"b\"");
  EXPECT_EQ(duckdb_parse_sort_comment(duckdb_sort_comment(names)), names);
  EXPECT_TRUE(duckdb_parse_sort_comment("a comment of the user's").empty());
  EXPECT_TRUE(duckdb_parse_sort_comment("krow sort_by: \"unclosed").empty());
  EXPECT_TRUE(duckdb_parse_sort_comment("krow sort_by: \"a\" \"b\"").empty());
}

class DuckDBSortOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("krow-duckdb-design-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path() const { return (dir_ / "w.duckdb").string(); }

  std::unique_ptr<DuckDBWarehouse> open(OpenMode mode = OpenMode::write) {
    WarehouseConfig config;
    auto settings = std::make_shared<DuckDBSettings>();
    settings->path = path();
    config.settings = settings;
    return std::make_unique<DuckDBWarehouse>(config, "test", mode);
  }

  static TableSettings sorted_by(std::vector<std::string> columns, bool apply = false) {
    TableSettings s;
    s.design.sort_by = std::move(columns);
    s.apply_design = apply;
    return s;
  }

  // Rows at offsets [first, first + n) whose keys run backwards ("k<n-1>" first), so that a
  // sort by key reverses them.
  static void commit_rows(Warehouse& w, int64_t first, int64_t n,
                          Warehouse::WriteMode mode = Warehouse::WriteMode::append) {
    RowBatch b;
    const size_t slot = b.table_slot("orders", "orders", kTopicId);
    for (int64_t o = first; o < first + n; ++o) {
      Row r;
      r.partition = Partition(0);
      r.offset = Offset(o);
      r.key.format = Format::string;
      const std::string key = "k" + std::to_string(1000 - o);
      const size_t start = b.arena().size();
      b.arena().append(key);
      r.key.text = slice_since(b.arena(), start);
      b.tables()[slot].rows.push_back(r);
      b.count_row();
    }
    w.commit("test", b, {}, mode);
  }

  // The keys in the table's physical order.
  std::vector<std::string> stored_keys() {
    std::vector<std::string> out;
    for (const auto& row :
         testkit::query(path(), "SELECT key FROM confluent.orders ORDER BY rowid").rows)
      out.push_back(row[0].value_or("NULL"));
    return out;
  }

  std::string comment() {
    return testkit::scalar(path(),
                           "SELECT comment FROM duckdb_tables() WHERE schema_name = 'confluent' "
                           "AND table_name = 'orders'");
  }

  std::filesystem::path dir_;
};

TEST_F(DuckDBSortOrder, ANewTableRecordsItsOrderAndEachBatchIsWrittenInIt) {
  {
    auto w = open();
    const auto before = w->plan_design("orders", sorted_by({"key"}));
    EXPECT_FALSE(before.exists);
    ASSERT_EQ(before.ddl.size(), 2u);
    EXPECT_EQ(before.ddl[0],
              "COMMENT ON TABLE \"confluent\".\"orders\" IS 'krow sort_by: \"key\"'");
    EXPECT_EQ(before.ddl[1],
              "INSERT INTO \"confluent\".\"orders\" SELECT * FROM <each batch> ORDER BY \"key\"");
    w->create_table("test", "orders", "orders", sorted_by({"key"}), Warehouse::Creation::now);
    commit_rows(*w, 990, 5);  // keys k10 .. k6
    commit_rows(*w, 995, 5);  // keys k5 .. k1
  }
  EXPECT_EQ(comment(), "krow sort_by: \"key\"");
  // Each batch sorted within itself; batches in the order they came.
  EXPECT_EQ(stored_keys(), (std::vector<std::string>{"k10", "k6", "k7", "k8", "k9", "k1", "k2",
                                                     "k3", "k4", "k5"}));
  auto reader = open(OpenMode::read_only);
  const auto same = reader->plan_design("orders", sorted_by({"key"}));
  EXPECT_TRUE(same.exists);
  EXPECT_EQ(same.current, "rows sorted by key in each batch");
  EXPECT_TRUE(same.changes.empty());
}

TEST_F(DuckDBSortOrder, AnotherOrderIsShownLeftAloneAndAppliedOnlyWhenAsked) {
  {
    auto w = open();
    w->create_table("test", "orders", "orders", {}, Warehouse::Creation::now);  // no sort_by
    commit_rows(*w, 990, 5);
    const auto plan = w->plan_design("orders", sorted_by({"key"}));
    EXPECT_EQ(plan.current, "rows in the order krow read them (no sort_by)");
    ASSERT_EQ(plan.changes.size(), 1u);
    EXPECT_EQ(plan.changes[0].what,
              "write the table's rows again sorted by key, and each batch from then on");
    EXPECT_NE(plan.changes[0].ddl.find("ORDER BY \"key\""), std::string::npos)
        << plan.changes[0].ddl;
    EXPECT_NE(plan.changes[0].cost.find("rewrites every row"), std::string::npos);
  }
  {
    // Not asked: the table keeps its order, and so do the batches written to it.
    auto w = open();
    w->create_table("test", "orders", "orders", sorted_by({"key"}), Warehouse::Creation::now);
    commit_rows(*w, 995, 3);
  }
  EXPECT_EQ(comment(), "");
  EXPECT_EQ(stored_keys(),
            (std::vector<std::string>{"k10", "k9", "k8", "k7", "k6", "k5", "k4", "k3"}));
  {
    // Asked: the whole table is written again in the new order, and later batches follow it.
    auto w = open();
    w->create_table("test", "orders", "orders", sorted_by({"key"}, true), Warehouse::Creation::now);
    commit_rows(*w, 998, 2);
    EXPECT_TRUE(w->plan_design("orders", sorted_by({"key"})).changes.empty());
  }
  EXPECT_EQ(comment(), "krow sort_by: \"key\"");
  EXPECT_EQ(stored_keys(), (std::vector<std::string>{"k10", "k3", "k4", "k5", "k6", "k7", "k8",
                                                     "k9", "k1", "k2"}));
  {
    // And dropping sort_by, applied, only forgets the order.
    auto w = open();
    const auto plan = w->plan_design("orders", {});
    ASSERT_EQ(plan.changes.size(), 1u);
    EXPECT_EQ(plan.changes[0].ddl, "COMMENT ON TABLE \"confluent\".\"orders\" IS NULL");
    w->create_table("test", "orders", "orders", sorted_by({}, true), Warehouse::Creation::now);
  }
  EXPECT_EQ(comment(), "");
  EXPECT_EQ(testkit::duckdb_probe(path())->count("orders"), 10);
}

TEST_F(DuckDBSortOrder, EveryWayRowsReachTheTableFollowsItsOrder) {
  {
    // latest_by_key: the newest row of each key, inserted in the table's order.
    auto w = open();
    auto settings = sorted_by({"key"});
    settings.strategy = Strategy::latest_by_key;
    w->create_table("test", "orders", "orders", settings, Warehouse::Creation::now);
    commit_rows(*w, 995, 5);  // k5 .. k1
  }
  EXPECT_EQ(stored_keys(), (std::vector<std::string>{"k1", "k2", "k3", "k4", "k5"}));
  std::filesystem::remove(path());
  {
    // A full resync's merge: the re-read rows replace theirs, in the table's order.
    auto w = open();
    w->create_table("test", "orders", "orders", sorted_by({"key"}), Warehouse::Creation::now);
    commit_rows(*w, 997, 3);                               // k3 k2 k1 -> k1 k2 k3
    commit_rows(*w, 995, 5, Warehouse::WriteMode::merge);  // k5 .. k1 again
  }
  EXPECT_EQ(stored_keys(), (std::vector<std::string>{"k1", "k2", "k3", "k4", "k5"}));
  EXPECT_EQ(testkit::duckdb_probe(path())->distinct_ids("orders"), 5);
}

}  // namespace
}  // namespace krow
