// `columns: infer` (columns/json_inference): the types picked from a sample of plain JSON
// values, mixed types included, and how a sample meets the columns a table already has.

#include "columns/json_inference.hpp"

#include <gtest/gtest.h>

namespace krow::columns {
namespace {

std::vector<std::pair<std::string, ColumnType>> columns_of(const ColumnPlan& plan) {
  std::vector<std::pair<std::string, ColumnType>> out;
  for (const auto& c : plan.columns) out.push_back({c.name, c.type});
  return out;
}

TEST(JsonInference, TypesFromTheSampleMixedOnesAsJson) {
  const auto plan = infer_json_columns(
      {R"({"i": 1, "f": 1, "s": "x", "b": true, "mixed": 1, "o": {"p": 1, "q": "a"}, "arr": [1], "shape": 1})",
       R"({"i": -9223372036854775808, "f": 2.5, "s": "y", "b": false, "mixed": "one", "o": {"p": 2}, "shape": {"x": 1}})",
       "not json", "[1, 2]", R"({"id": null, "big": 18446744073709551615, "late": 3})"},
      ColumnOptions{});
  EXPECT_EQ(columns_of(plan),
            (std::vector<std::pair<std::string, ColumnType>>{{"i", ColumnType::int64},
                                                             {"f", ColumnType::float64},
                                                             {"s", ColumnType::text},
                                                             {"b", ColumnType::boolean},
                                                             {"mixed", ColumnType::json},
                                                             {"o__p", ColumnType::int64},
                                                             {"o__q", ColumnType::text},
                                                             {"arr", ColumnType::json},
                                                             {"shape", ColumnType::json},
                                                             {"value__id", ColumnType::json},
                                                             {"big", ColumnType::json},
                                                             {"late", ColumnType::int64}}));
  for (const auto& c : plan.columns) EXPECT_TRUE(c.nullable) << c.name;
  EXPECT_EQ(plan.columns[5].path, (std::vector<std::string>{"o", "p"}));
  EXPECT_EQ(plan.root, "object (inferred from 3 sampled JSON value(s))");
}

// simdjson's DOM parser refuses integers beyond 64 bits, which left such values out of the
// sample silently. Every number is read: those beyond BIGINT make a JSON column.
TEST(JsonInference, IntegersBeyond64BitsAreSampledAsJson) {
  const auto plan =
      infer_json_columns({R"({"a": 4, "big": 1180591620717411303424, "neg": -9223372036854775809})",
                          R"({"a": 5, "big": 1, "neg": 1, "exp": 1e400})"},
                         ColumnOptions{});
  EXPECT_EQ(columns_of(plan),
            (std::vector<std::pair<std::string, ColumnType>>{{"a", ColumnType::int64},
                                                             {"big", ColumnType::json},
                                                             {"neg", ColumnType::json},
                                                             {"exp", ColumnType::float64}}));
  EXPECT_EQ(plan.root, "object (inferred from 2 sampled JSON value(s))");
}

TEST(JsonInference, TextThatIsNoJsonAddsNothing) {
  // It begins like an object and has a field before it breaks off.
  const auto plan = infer_json_columns({R"({"a": "text", "b": 1)", R"({"a": 1})"}, ColumnOptions{});
  EXPECT_EQ(columns_of(plan),
            (std::vector<std::pair<std::string, ColumnType>>{{"a", ColumnType::int64}}));
}

TEST(JsonInference, ABoundColumnTheSampleMissesIsFilledFromItsField) {
  ColumnSpec t;
  t.type = ColumnType::text;
  // A name shortened with a hash cannot be read back as a path; the binding says which field.
  const std::vector<TableColumn> table = {{"long_name_1a2b3c4d", "VARCHAR", t}};
  const auto plan = infer_json_columns({R"({"other": 1})"}, ColumnOptions{});
  const auto merged =
      merge_inferred(table, plan, ColumnOptions{}, {{{"deep", "field"}, "long_name_1a2b3c4d"}});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].path, (std::vector<std::string>{"deep", "field"}));
}

TEST(JsonInference, NestedAsJson) {
  ColumnOptions options;
  options.nested = NestedMode::json;
  const auto plan = infer_json_columns({R"({"o": {"p": 1}, "n": 2})"}, options);
  EXPECT_EQ(columns_of(plan), (std::vector<std::pair<std::string, ColumnType>>{
                                  {"o", ColumnType::json}, {"n", ColumnType::int64}}));
}

TEST(JsonInference, ASampleMeetsTheTable) {
  ColumnSpec i;
  i.name = "n";
  i.type = ColumnType::int64;
  ColumnSpec j = i;
  j.name = "j";
  j.type = ColumnType::json;
  ColumnSpec gone = i;
  gone.name = "o__gone";
  gone.type = ColumnType::text;
  const std::vector<TableColumn> table = {
      {"n", "BIGINT", i}, {"j", "JSON", j}, {"o__gone", "VARCHAR", gone}};
  // j seen as a number now: a JSON column holds it; n seen as a real: the table's column
  // would need another type (evolve_columns decides); o__gone not in this sample: kept, and
  // filled from o.gone when a value has it; `new` appended.
  const auto plan = infer_json_columns({R"({"n": 1.5, "j": 3, "new": "x"})"}, ColumnOptions{});
  const auto merged = merge_inferred(table, plan, ColumnOptions{});
  ASSERT_EQ(merged.size(), 4u);
  EXPECT_EQ(merged[0].type, ColumnType::float64);
  EXPECT_EQ(merged[1].type, ColumnType::json);
  EXPECT_EQ(merged[2].type, ColumnType::text);
  EXPECT_EQ(merged[2].path, (std::vector<std::string>{"o", "gone"}));
  EXPECT_EQ(merged[3].name, "new");
  EXPECT_EQ(merge_inferred(std::nullopt, plan, ColumnOptions{}).size(), 3u);
}

}  // namespace
}  // namespace krow::columns
