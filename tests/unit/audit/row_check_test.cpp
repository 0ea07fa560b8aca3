// The message-level comparison of `krow audit`: what a row must hold, and which stored
// columns differ from it, JSON compared as JSON.

#include "audit/row_check.hpp"

#include <gtest/gtest.h>

namespace krow::audit {
namespace {

TEST(AuditJson, SameValueInAnEnginesOwnSpellingIsTheSame) {
  EXPECT_TRUE(same_json(R"({"a":1,"b":[true,null,"x"]})", R"({"b": [true, null, "x"], "a": 1})"));
  EXPECT_TRUE(same_json(R"({"n":1.50})", R"({"n":1.5})"));
  EXPECT_TRUE(same_json(R"({"n":100})", R"({"n":1e2})"));
  EXPECT_TRUE(same_json(R"({"n":18446744073709551615})", R"({"n":18446744073709551615})"));
  // A repeated key: the last one counts, as engines keep it.
  EXPECT_TRUE(same_json(R"({"a":1,"a":2})", R"({"a":2})"));
}

TEST(AuditJson, AnyDifferenceOfValueIsADifference) {
  EXPECT_FALSE(same_json(R"({"a":1})", R"({"a":2})"));
  EXPECT_FALSE(same_json(R"({"a":1})", R"({"a":1,"b":1})"));
  EXPECT_FALSE(same_json(R"([1,2])", R"([2,1])"));
  EXPECT_FALSE(same_json(R"({"a":"1"})", R"({"a":1})"));
  EXPECT_FALSE(same_json(R"({"a":-1})", R"({"a":18446744073709551615})"));
  EXPECT_FALSE(same_json(R"({"a":true})", R"({"a":false})"));
  EXPECT_FALSE(same_json("not json", "not  json"));
}

Cells row_cells() {
  Row row;
  row.partition = Partition(2);
  row.offset = Offset(41);
  row.timestamp_ms = 1700000000123;
  row.timestamp_type = contract::TimestampType::create_time;
  std::string arena = "k1{\"v\":1}";
  row.key.format = Format::string;
  row.key.text = Slice{0, 2, true};
  row.value.format = Format::json;
  row.value.text = Slice{2, 7, true};
  row.value_size_bytes = 7;
  return expected_cells(row, TopicId("AAAAAAAAAAAAAAAAAAAAAA"), arena);
}

TEST(AuditRow, TheContractColumnsOfAMessageAsTheWarehouseGivesThemBack) {
  const auto c = row_cells();
  EXPECT_EQ(c[contract::kId], "AAAAAAAAAAAAAAAAAAAAAA:2:41");
  EXPECT_EQ(c[contract::kPartition], "2");
  EXPECT_EQ(c[contract::kOffset], "41");
  EXPECT_EQ(c[contract::kTimestamp], "1700000000123");
  EXPECT_EQ(c[contract::kTimestampType], "create_time");
  EXPECT_EQ(c[contract::kKey], "k1");
  EXPECT_EQ(c[contract::kKeyFormat], "string");
  EXPECT_EQ(c[contract::kKeySchemaId], std::nullopt);
  EXPECT_EQ(c[contract::kValue], "{\"v\":1}");
  EXPECT_EQ(c[contract::kValueSize], "7");
  EXPECT_EQ(c[contract::kTombstone], "false");
  EXPECT_EQ(c[contract::kDecodeError], std::nullopt);
  EXPECT_EQ(c[contract::kHeaders], std::nullopt);
}

TEST(AuditRow, EachAlteredColumnIsNamed) {
  const auto expected = row_cells();
  auto stored = expected;
  stored[contract::kValue] = "{ \"v\": 1 }";  // respaced by the engine: the same
  EXPECT_TRUE(differing_columns(expected, stored).empty());
  stored[contract::kKey] = "altered";
  stored[contract::kValue] = "{\"v\":2}";
  stored[contract::kTimestamp] = std::nullopt;
  const auto differ = differing_columns(expected, stored);
  ASSERT_EQ(differ.size(), 3u);
  EXPECT_EQ(differ[0], "kafka_timestamp");
  EXPECT_EQ(differ[1], "key");
  EXPECT_EQ(differ[2], "value");
}

TEST(AuditRow, AValueTheEngineStoredAnotherWayIsNotADifference) {
  const auto expected = row_cells();
  auto stored = expected;
  // As RowBatch::replace_unstorable leaves it: the value as a JSON string, and a note.
  stored[contract::kValue] = "\"{\\\"v\\\":1}\"";
  stored[contract::kValueFormat] = "string";
  stored[contract::kDecodeError] = "value not stored as JSON: ...";
  EXPECT_TRUE(differing_columns(expected, stored).empty());
  // A decode_error that is not decoding's own, followed by notes, is named.
  stored = expected;
  auto with_error = expected;
  with_error[contract::kDecodeError] = "value: not JSON";
  stored[contract::kDecodeError] = "something else";
  const auto differ = differing_columns(with_error, stored);
  ASSERT_EQ(differ.size(), 1u);
  EXPECT_EQ(differ[0], "decode_error");
}

}  // namespace
}  // namespace krow::audit
