// BigQuery's types for typed columns, and the evolution they allow: what the emulator the
// integration suites run against cannot show (it has no BIGNUMERIC).

#include <gtest/gtest.h>

#include "columns/column_evolution.hpp"
#include "warehouse/bigquery/bigquery_types.hpp"

namespace krow::bigquery {
namespace {

columns::ColumnSpec decimal(const std::string& name, int32_t precision, int32_t scale) {
  columns::ColumnSpec c;
  c.name = name;
  c.path = {name};
  c.type = ColumnType::decimal;
  c.precision = precision;
  c.scale = scale;
  return c;
}

columns::ColumnSpec of(const std::string& name, ColumnType type) {
  columns::ColumnSpec c;
  c.name = name;
  c.path = {name};
  c.type = type;
  return c;
}

std::string sql(const columns::ColumnSpec& c) { return column_type(c.type, c.precision, c.scale); }

// The table's column of GoogleSQL type `type`, as BigQueryWarehouse::typed_columns reads it.
columns::TableColumn column(const std::string& name, const std::string& type) {
  return {name, type, held_by(type)};
}

TEST(BqTypes, DecimalsAreNumericWhereTheyFitAndBignumericUpTo38Digits) {
  EXPECT_EQ(column_type(ColumnType::decimal, 12, 2), "NUMERIC");
  EXPECT_EQ(column_type(ColumnType::decimal, 38, 9), "NUMERIC");  // 29 integer digits
  EXPECT_EQ(column_type(ColumnType::decimal, 38, 10), "BIGNUMERIC");
  EXPECT_EQ(column_type(ColumnType::decimal, 38, 4), "BIGNUMERIC");  // 34 integer digits
  EXPECT_EQ(column_type(ColumnType::uint64), "NUMERIC");
  EXPECT_EQ(column_type(ColumnType::int32), "INT64");
  EXPECT_EQ(column_type(ColumnType::float32), "FLOAT64");
  EXPECT_EQ(column_type(ColumnType::bytes), "BYTES");
  EXPECT_EQ(column_type(ColumnType::timestamp), "TIMESTAMP");
  // Every type it gives reads back as what it holds.
  for (const auto* t : {"BOOL", "INT64", "FLOAT64", "NUMERIC", "BIGNUMERIC", "STRING", "BYTES", "DATE", "TIME",
                        "TIMESTAMP", "JSON"})
    EXPECT_TRUE(held_by(t).has_value()) << t;
  EXPECT_FALSE(held_by("DATETIME").has_value());
  EXPECT_FALSE(held_by("GEOGRAPHY").has_value());
}

TEST(BqTypes, EvolutionAltersOnlyWhereTheTypeChangesAndNeverRounds) {
  auto evolve = [](const std::vector<columns::TableColumn>& table, const std::vector<columns::ColumnSpec>& planned) {
    return columns::evolve_columns(table, planned, sql, columns::OnBreaking::fail, 300, "the latest value schema",
                                   column_holds);
  };
  // int → long, float → double, decimal(6,2) → decimal(10,2): the same types, nothing to do.
  auto e = evolve({column("qty", "INT64"), column("price", "FLOAT64"), column("amount", "NUMERIC")},
                  {of("qty", ColumnType::int64), of("price", ColumnType::float64), decimal("amount", 10, 2)});
  EXPECT_TRUE(e.breaking.empty()) << e.breaking;
  EXPECT_TRUE(e.changes.empty());
  // long → decimal(38,9) and decimal(12,2) → decimal(38,10): altered to NUMERIC and BIGNUMERIC.
  e = evolve({column("qty", "INT64"), column("amount", "NUMERIC")},
             {decimal("qty", 38, 9), decimal("amount", 38, 10)});
  ASSERT_TRUE(e.breaking.empty()) << e.breaking;
  ASSERT_EQ(e.changes.size(), 2u);
  EXPECT_EQ(e.changes[0].kind, columns::ChangeKind::widen);
  EXPECT_EQ(e.changes[0].to_type, "NUMERIC");
  EXPECT_EQ(e.changes[1].to_type, "BIGNUMERIC");
  // long → double rounds beyond 2^53; BIGNUMERIC → NUMERIC and text → int narrow or change.
  for (const auto& [table, planned] :
       std::vector<std::pair<columns::TableColumn, columns::ColumnSpec>>{
           {column("n", "INT64"), of("n", ColumnType::float64)},
           {column("n", "BIGNUMERIC"), decimal("n", 12, 2)},
           {column("n", "STRING"), of("n", ColumnType::int64)}}) {
    const auto b = evolve({table}, {planned});
    EXPECT_NE(b.breaking.find("field n: column n is " + table.sql_type + " in the table but " + sql(planned)),
              std::string::npos)
        << b.breaking;
  }
}

}  // namespace
}  // namespace krow::bigquery
