// Schema evolution of typed tables (columns/column_evolution): which differences between a
// table's typed columns and the columns planned from the latest schema are applied (added,
// widened), which are breaking (narrowed, changed, removed) and what on_breaking: variant
// makes of them. Types are named as an engine would (DuckDB's names here).

#include "columns/column_evolution.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace krow::columns {
namespace {

using ::testing::HasSubstr;

ColumnSpec col(const std::string& name, ColumnType type, int32_t precision = 0, int32_t scale = 0) {
  ColumnSpec c;
  c.name = name;
  c.path = {name};
  c.type = type;
  c.precision = precision;
  c.scale = scale;
  c.source = std::string(column_type_name(type));
  return c;
}

std::string sql(const ColumnSpec& c) {
  switch (c.type) {
    case ColumnType::int32:
      return "INTEGER";
    case ColumnType::int64:
      return "BIGINT";
    case ColumnType::float32:
      return "FLOAT";
    case ColumnType::float64:
      return "DOUBLE";
    case ColumnType::decimal:
      return "DECIMAL(" + std::to_string(c.precision) + "," + std::to_string(c.scale) + ")";
    case ColumnType::text:
    case ColumnType::bytes:
      return "VARCHAR";
    case ColumnType::json:
      return "JSON";
    default:
      return std::string(column_type_name(c.type));
  }
}

TableColumn existing(const ColumnSpec& c) {
  return {c.name, sql(c), c};
}

Evolution evolve(const std::vector<TableColumn>& table, const std::vector<ColumnSpec>& planned,
                 OnBreaking on_breaking = OnBreaking::fail) {
  return evolve_columns(table, planned, sql, on_breaking, 63);
}

std::vector<std::string> names(const Evolution& e) {
  std::vector<std::string> out;
  for (const auto& c : e.columns) out.push_back(c.name);
  return out;
}

TEST(ColumnEvolution, TypesCompare) {
  EXPECT_EQ(compare_types(col("a", ColumnType::int32), col("a", ColumnType::int64)),
            Compatibility::widening);
  EXPECT_EQ(compare_types(col("a", ColumnType::float32), col("a", ColumnType::float64)),
            Compatibility::widening);
  EXPECT_EQ(
      compare_types(col("a", ColumnType::decimal, 10, 2), col("a", ColumnType::decimal, 12, 2)),
      Compatibility::widening);
  EXPECT_EQ(
      compare_types(col("a", ColumnType::decimal, 10, 2), col("a", ColumnType::decimal, 10, 2)),
      Compatibility::same);
  EXPECT_EQ(compare_types(col("a", ColumnType::text), col("a", ColumnType::bytes)),
            Compatibility::same);
  // Narrowed, another scale, another kind of type.
  EXPECT_EQ(compare_types(col("a", ColumnType::int64), col("a", ColumnType::int32)),
            Compatibility::breaking);
  EXPECT_EQ(compare_types(col("a", ColumnType::float64), col("a", ColumnType::float32)),
            Compatibility::breaking);
  EXPECT_EQ(
      compare_types(col("a", ColumnType::decimal, 12, 2), col("a", ColumnType::decimal, 10, 2)),
      Compatibility::breaking);
  EXPECT_EQ(
      compare_types(col("a", ColumnType::decimal, 10, 2), col("a", ColumnType::decimal, 10, 3)),
      Compatibility::breaking);
  EXPECT_EQ(compare_types(col("a", ColumnType::int64), col("a", ColumnType::decimal, 20, 2)),
            Compatibility::breaking);
  EXPECT_EQ(compare_types(col("a", ColumnType::text), col("a", ColumnType::int32)),
            Compatibility::breaking);
  EXPECT_EQ(compare_types(col("a", ColumnType::int64), col("a", ColumnType::float64)),
            Compatibility::breaking);
  // Every old value fits the new type exactly: more integer digits and a larger scale, an
  // integer into a decimal with as many integer digits, an INT into a DOUBLE.
  EXPECT_EQ(
      compare_types(col("a", ColumnType::decimal, 10, 2), col("a", ColumnType::decimal, 12, 3)),
      Compatibility::widening);
  EXPECT_EQ(compare_types(col("a", ColumnType::int64), col("a", ColumnType::decimal, 38, 9)),
            Compatibility::widening);
  EXPECT_EQ(compare_types(col("a", ColumnType::uint64), col("a", ColumnType::decimal, 20, 0)),
            Compatibility::widening);
  EXPECT_EQ(compare_types(col("a", ColumnType::int32), col("a", ColumnType::float64)),
            Compatibility::widening);
}

TEST(ColumnEvolution, ANewTableGetsThePlan) {
  const auto e =
      evolve_columns(std::nullopt, {col("a", ColumnType::int32)}, sql, OnBreaking::fail, 63);
  EXPECT_EQ(names(e), (std::vector<std::string>{"a"}));
  EXPECT_EQ(e.sql_types, (std::vector<std::string>{"INTEGER"}));
  EXPECT_TRUE(e.changes.empty());
  EXPECT_TRUE(e.breaking.empty());
}

TEST(ColumnEvolution, AddsAndWidensInTableOrder) {
  const auto e =
      evolve({existing(col("a", ColumnType::int32)), existing(col("b", ColumnType::float32)),
              existing(col("d", ColumnType::decimal, 10, 2))},
             {col("new", ColumnType::text), col("b", ColumnType::float64),
              col("a", ColumnType::int64), col("d", ColumnType::decimal, 20, 2)});
  ASSERT_TRUE(e.breaking.empty()) << e.breaking;
  // The table's columns keep their places; the added one comes last.
  EXPECT_EQ(names(e), (std::vector<std::string>{"a", "b", "d", "new"}));
  EXPECT_EQ(e.sql_types,
            (std::vector<std::string>{"BIGINT", "DOUBLE", "DECIMAL(20,2)", "VARCHAR"}));
  ASSERT_EQ(e.changes.size(), 4u);
  EXPECT_EQ(e.changes[0].kind, ChangeKind::widen);
  EXPECT_EQ(e.changes[0].column.name, "a");
  EXPECT_EQ(e.changes[0].from_type, "INTEGER");
  EXPECT_EQ(e.changes[0].to_type, "BIGINT");
  EXPECT_EQ(e.changes[2].to_type, "DECIMAL(20,2)");
  EXPECT_EQ(e.changes[3].kind, ChangeKind::add);
  EXPECT_EQ(e.changes[3].column.name, "new");
  for (const auto& c : e.changes) EXPECT_TRUE(c.ddl);
}

TEST(ColumnEvolution, BreakingChangesFailNamingTheFieldAndBothTypes) {
  const auto e =
      evolve({existing(col("name", ColumnType::text)), existing(col("n", ColumnType::int64)),
              existing(col("gone", ColumnType::boolean))},
             {col("name", ColumnType::int32), col("n", ColumnType::int32)});
  EXPECT_THAT(
      e.breaking,
      HasSubstr("field name: column name is VARCHAR in the table but INTEGER (int32) in the latest "
                "value schema (a changed type)"));
  EXPECT_THAT(
      e.breaking,
      HasSubstr("field n: column n is BIGINT in the table but INTEGER (int32) in the latest value "
                "schema (a narrowed type)"));
  EXPECT_THAT(
      e.breaking,
      HasSubstr("column gone (boolean) is in the table but its field is not in the latest value "
                "schema (removed)"));
  EXPECT_THAT(e.breaking, HasSubstr("on_breaking: variant"));
}

TEST(ColumnEvolution, ATypeKrowNeverPlansOnlyMatchesItself) {
  const auto e = evolve({{"a", "SMALLINT", std::nullopt}}, {col("a", ColumnType::int32)});
  EXPECT_THAT(e.breaking, HasSubstr("column a is SMALLINT in the table but INTEGER"));
}

TEST(ColumnEvolution, VariantIsolatesBreakingChangesAndKeepsRemovedColumns) {
  auto e =
      evolve({existing(col("name", ColumnType::text)), existing(col("gone", ColumnType::boolean)),
              existing(col("q", ColumnType::int32))},
             {col("name", ColumnType::int32), col("q", ColumnType::int64)}, OnBreaking::variant);
  ASSERT_TRUE(e.breaking.empty());
  EXPECT_EQ(names(e), (std::vector<std::string>{"name", "gone", "q", "__krow_nc__name"}));
  EXPECT_TRUE(e.columns[0].retired);  // NULL from now on
  EXPECT_TRUE(e.columns[1].retired);
  EXPECT_FALSE(e.columns[2].retired);
  EXPECT_EQ(e.columns[3].type, ColumnType::json);
  EXPECT_EQ(e.columns[3].path, (std::vector<std::string>{"name"}));  // filled from the field
  EXPECT_EQ(e.sql_types[3], "JSON");
  ASSERT_EQ(e.changes.size(), 3u);
  EXPECT_EQ(e.changes[0].kind, ChangeKind::retire);
  EXPECT_EQ(e.changes[0].of, "gone");
  EXPECT_FALSE(e.changes[0].ddl);
  EXPECT_EQ(e.changes[1].kind, ChangeKind::widen);
  EXPECT_EQ(e.changes[2].kind, ChangeKind::variant);
  EXPECT_EQ(e.changes[2].of, "name");
  EXPECT_EQ(e.changes[2].from_type, "VARCHAR");
  EXPECT_EQ(e.changes[2].to_type, "INTEGER");
  EXPECT_TRUE(e.changes[2].ddl);

  // The next run finds the variant column in the table and uses it again; a schema that goes
  // back to text fills `name` again and leaves the variant column NULL.
  std::vector<TableColumn> table = {
      existing(col("name", ColumnType::text)), existing(col("gone", ColumnType::boolean)),
      existing(col("q", ColumnType::int64)), existing(col("__krow_nc__name", ColumnType::json))};
  e = evolve(table, {col("name", ColumnType::int32), col("q", ColumnType::int64)},
             OnBreaking::variant);
  EXPECT_EQ(names(e), (std::vector<std::string>{"name", "gone", "q", "__krow_nc__name"}));
  EXPECT_FALSE(e.columns[3].retired);
  ASSERT_EQ(e.changes.size(), 2u);
  EXPECT_EQ(e.changes[1].kind, ChangeKind::variant);
  EXPECT_FALSE(e.changes[1].ddl);
  e = evolve(table, {col("name", ColumnType::text), col("q", ColumnType::int64)},
             OnBreaking::variant);
  EXPECT_FALSE(e.columns[0].retired);
  EXPECT_TRUE(e.columns[3].retired);
  ASSERT_EQ(e.changes.size(), 1u);  // `gone` only: an unused variant column is no change
  EXPECT_EQ(e.changes[0].of, "gone");
}

TEST(ColumnEvolution, LongVariantNamesStayWithinTheEngineLimit) {
  const std::string name(60, 'x');
  const auto e = evolve({existing(col(name, ColumnType::text))}, {col(name, ColumnType::int64)},
                        OnBreaking::variant);
  ASSERT_EQ(e.columns.size(), 2u);
  EXPECT_LE(e.columns[1].name.size(), 63u);
  EXPECT_EQ(e.columns[1].name.rfind("__krow_nc__", 0), 0u);
}

}  // namespace
}  // namespace krow::columns
