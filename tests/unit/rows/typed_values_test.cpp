// Typed columns' values read out of a decoded value's JSON (rows/typed_values): every column
// type, the text forms the decoders write (64-bit integers and decimals as strings, dates,
// times and timestamps as ISO 8601), and misfits: NULL with a note, never a failure.

#include "rows/typed_values.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace krow::rows {
namespace {

using columns::ColumnSpec;
using ::testing::HasSubstr;

ColumnSpec col(std::string name, ColumnType type, std::vector<std::string> path,
               int32_t precision = 0, int32_t scale = 0) {
  ColumnSpec c;
  c.name = std::move(name);
  c.type = type;
  c.path = std::move(path);
  c.precision = precision;
  c.scale = scale;
  return c;
}

struct Extracted {
  std::vector<TypedCell> cells;
  std::string arena;
  std::string notes;
};

Extracted run(const TypedLayout& layout, std::string_view json) {
  static TypedExtractor extractor;
  Extracted out;
  out.cells.resize(layout.columns.size());
  out.arena = "prefix";  // text cells land after what the arena already holds
  extractor.extract(json, layout, out.cells.data(), out.arena, out.notes);
  return out;
}

TEST(TypedValues, EveryTypeFromTheDecodersJson) {
  const TypedLayout layout(std::vector<ColumnSpec>{
      col("flag", ColumnType::boolean, {"flag"}),
      col("small", ColumnType::int32, {"small"}),
      col("big", ColumnType::int64, {"big"}),
      col("big_text", ColumnType::int64, {"big_text"}),
      col("huge", ColumnType::uint64, {"huge"}),
      col("ratio", ColumnType::float32, {"ratio"}),
      col("score", ColumnType::float64, {"score"}),
      col("nan", ColumnType::float64, {"nan"}),
      col("amount", ColumnType::decimal, {"amount"}, 12, 2),
      col("wide", ColumnType::decimal, {"wide"}, 38, 10),
      col("name", ColumnType::text, {"name"}),
      col("blob", ColumnType::bytes, {"blob"}),
      col("day", ColumnType::date, {"day"}),
      col("at", ColumnType::time, {"at"}),
      col("placed", ColumnType::timestamp, {"placed"}),
      col("city", ColumnType::text, {"customer", "address", "city"}),
      col("lines", ColumnType::json, {"lines"}),
  });
  const auto e = run(layout, R"({"flag": true, "small": -2147483648, "big": 9007199254740993,
      "big_text": "-9223372036854775808", "huge": "18446744073709551615", "ratio": 0.5, "score": 1e300,
      "nan": "NaN", "amount": "-1234.5", "wide": "1234567890123456789012345678.0123456789",
      "name": "Zoë \"Q\"", "blob": "AAEC", "day": "2026-01-31", "at": "13:45:00.123",
      "placed": "2026-01-31T13:45:00.123456Z", "customer": {"address": {"city": "Köln"}},
      "lines": [1, 2.5, "x", {"a": null}, true]})");
  EXPECT_EQ(e.notes, "");
  for (const auto& c : e.cells) EXPECT_TRUE(c.present);
  EXPECT_EQ(e.cells[0].a, 1);
  EXPECT_EQ(e.cells[1].a, -2147483648LL);
  EXPECT_EQ(e.cells[2].a, 9007199254740993LL);
  EXPECT_EQ(e.cells[3].a, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(e.cells[4].unsigned_value(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(e.cells[5].real(), 0.5);
  EXPECT_EQ(e.cells[6].real(), 1e300);
  EXPECT_TRUE(std::isnan(e.cells[7].real()));
  EXPECT_TRUE(e.cells[8].decimal() == -123450);
  Int128 wide = 0;
  ASSERT_TRUE(parse_decimal("12345678901234567890123456780123456789", 38, 0, wide));
  EXPECT_TRUE(e.cells[9].decimal() == wide);
  EXPECT_EQ(e.cells[10].text(e.arena), "Zoë \"Q\"");
  EXPECT_EQ(e.cells[11].text(e.arena), "AAEC");
  EXPECT_EQ(e.cells[12].a, 20484);  // days since 1970-01-01
  EXPECT_EQ(e.cells[13].a, (13 * 3600 + 45 * 60) * 1000000LL + 123000);
  EXPECT_EQ(e.cells[14].a, 1769867100123456LL);
  EXPECT_EQ(e.cells[15].text(e.arena), "Köln");
  EXPECT_EQ(e.cells[16].text(e.arena), R"([1,2.5,"x",{"a":null},true])");
}

TEST(TypedValues, MissingFieldsAndNullsAreNullWithoutANote) {
  const TypedLayout layout(std::vector<ColumnSpec>{col("a", ColumnType::int64, {"a"}),
                                                   col("b", ColumnType::text, {"x", "b"}),
                                                   col("c", ColumnType::json, {"c"})});
  const auto e = run(layout, R"({"a": null, "x": null, "c": null})");
  EXPECT_EQ(e.notes, "");
  for (const auto& c : e.cells) EXPECT_FALSE(c.present);
  const auto f = run(layout, R"({"x": 5})");  // "x" is no object: no field b in it
  EXPECT_EQ(f.notes, "");
  for (const auto& c : f.cells) EXPECT_FALSE(c.present);
}

TEST(TypedValues, MisfitsAreNullWithANoteNamingColumnTypeAndValue) {
  const TypedLayout layout(
      std::vector<ColumnSpec>{
          col("amount", ColumnType::decimal, {"amount"}, 12, 2),
          col("small", ColumnType::int32, {"small"}),
          col("flag", ColumnType::boolean, {"flag"}),
          col("day", ColumnType::date, {"day"}),
          col("placed", ColumnType::timestamp, {"placed"}),
          col("ratio", ColumnType::float32, {"ratio"}),
          col("huge", ColumnType::uint64, {"huge"}),
          col("name", ColumnType::text, {"name"}),
          col("ok", ColumnType::int64, {"ok"}),
      },
      std::vector<std::string>{"DECIMAL(12,2)", "INTEGER", "BOOLEAN", "DATE", "TIMESTAMPTZ",
                               "FLOAT", "UBIGINT", "VARCHAR", "BIGINT"});
  const auto e =
      run(layout, R"({"amount": "abc", "small": 2147483648, "flag": "yes", "day": "2026-02-30",
      "placed": "yesterday", "ratio": 1e300, "huge": -1, "name": {"first": "A"}, "ok": 7})");
  for (size_t i = 0; i + 1 < e.cells.size(); ++i) EXPECT_FALSE(e.cells[i].present) << i;
  EXPECT_TRUE(e.cells.back().present);
  EXPECT_EQ(e.cells.back().a, 7);
  EXPECT_THAT(e.notes, HasSubstr(R"(column amount (DECIMAL(12,2)): got "abc")"));
  EXPECT_THAT(e.notes, HasSubstr("column small (INTEGER): got 2147483648"));
  EXPECT_THAT(e.notes, HasSubstr(R"(column flag (BOOLEAN): got "yes")"));
  EXPECT_THAT(e.notes, HasSubstr(R"(column day (DATE): got "2026-02-30")"));
  EXPECT_THAT(e.notes, HasSubstr(R"(column placed (TIMESTAMPTZ): got "yesterday")"));
  EXPECT_THAT(e.notes, HasSubstr("column ratio (FLOAT): got 1e300"));  // the value as written
  EXPECT_THAT(e.notes, HasSubstr("column huge (UBIGINT): got -1"));
  EXPECT_THAT(e.notes, HasSubstr(R"(column name (VARCHAR): got {"first":"A"})"));
  EXPECT_THAT(e.notes, HasSubstr("; "));
}

TEST(TypedValues, LongMisfitsAreCutInTheirNote) {
  const TypedLayout layout(std::vector<ColumnSpec>{col("n", ColumnType::int64, {"n"})});
  const auto e = run(layout, R"({"n": ")" + std::string(500, 'x') + R"("})");
  EXPECT_FALSE(e.cells[0].present);
  EXPECT_LT(e.notes.size(), 120u);
  EXPECT_THAT(e.notes, HasSubstr("..."));
}

TEST(TypedValues, AValueThatDoesNotParseFillsNothing) {
  const TypedLayout layout(std::vector<ColumnSpec>{col("n", ColumnType::int64, {"n"})});
  const auto e = run(layout, R"({"n": 1)");
  EXPECT_FALSE(e.cells[0].present);
  EXPECT_THAT(e.notes, HasSubstr("typed columns not filled"));
}

// An integer beyond 64 bits leaves only its own cell NULL (with the reason); every other
// column of the row is filled, and JSON columns keep such numbers exactly.
TEST(TypedValues, IntegersBeyond64BitsLeaveOnlyTheirOwnCellEmpty) {
  const TypedLayout layout(
      std::vector<ColumnSpec>{
          col("id", ColumnType::int64, {"id"}), col("name", ColumnType::text, {"name"}),
          col("u", ColumnType::uint64, {"u"}), col("r", ColumnType::float64, {"r"}),
          col("doc", ColumnType::json, {"doc"}), col("n", ColumnType::int64, {"n"})},
      std::vector<std::string>{"BIGINT", "VARCHAR", "UBIGINT", "DOUBLE", "JSON", "BIGINT"});
  const auto e =
      run(layout, R"({"id": 1180591620717411303424, "name": "x", "u": 18446744073709551616,
      "r": 1180591620717411303424, "doc": {"big": -99999999999999999999999, "f": 1.50}, "n": -9223372036854775809})");
  EXPECT_FALSE(e.cells[0].present);
  ASSERT_TRUE(e.cells[1].present);
  EXPECT_EQ(e.cells[1].text(e.arena), "x");
  EXPECT_FALSE(e.cells[2].present);
  ASSERT_TRUE(e.cells[3].present);
  EXPECT_EQ(e.cells[3].real(), 1180591620717411303424.0);
  ASSERT_TRUE(e.cells[4].present);
  EXPECT_EQ(e.cells[4].text(e.arena), R"({"big":-99999999999999999999999,"f":1.50})");
  EXPECT_FALSE(e.cells[5].present);
  EXPECT_THAT(e.notes, HasSubstr("column id (BIGINT): got 1180591620717411303424"));
  EXPECT_THAT(e.notes, HasSubstr("column u (UBIGINT): got 18446744073709551616"));
  EXPECT_THAT(e.notes, HasSubstr("column n (BIGINT): got -9223372036854775809"));
  EXPECT_THAT(e.notes, ::testing::Not(HasSubstr("not filled")));
  // The edges of 64 bits still fit.
  const auto edges =
      run(layout,
          R"({"id": -9223372036854775808, "u": 18446744073709551615, "n": 9223372036854775807})");
  EXPECT_EQ(edges.notes, "");
  EXPECT_EQ(edges.cells[0].a, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(edges.cells[2].unsigned_value(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(edges.cells[5].a, std::numeric_limits<int64_t>::max());
  // A real beyond DOUBLE's range is a misfit too, not a failed row.
  const auto huge = run(layout, R"({"r": 1e400, "name": "y"})");
  EXPECT_FALSE(huge.cells[3].present);
  EXPECT_TRUE(huge.cells[1].present);
  EXPECT_THAT(huge.notes, HasSubstr("column r (DOUBLE): got 1e400"));
}

TEST(TypedValues, TheFirstOfTwoFieldsOfOneNameCounts) {
  const TypedLayout layout(std::vector<ColumnSpec>{col("a", ColumnType::int64, {"a"}),
                                                   col("b", ColumnType::int64, {"o", "b"}),
                                                   col("c", ColumnType::int64, {"o", "c"})});
  const auto e = run(layout, R"({"a": 1, "o": {"b": 2}, "a": 3, "o": {"b": 4, "c": 5}})");
  EXPECT_EQ(e.notes, "");
  EXPECT_EQ(e.cells[0].a, 1);
  EXPECT_EQ(e.cells[1].a, 2);
  EXPECT_FALSE(e.cells[2].present);
}

// An inferred table may keep a flattened column (o__p) beside a newer JSON column of its
// parent (o): both are filled from the one value.
TEST(TypedValues, AValueFillsItsOwnJsonColumnAndItsFieldsColumns) {
  const TypedLayout layout(std::vector<ColumnSpec>{
      col("o", ColumnType::json, {"o"}), col("o__p", ColumnType::boolean, {"o", "p"}),
      col("o__q__r", ColumnType::text, {"o", "q", "r"}), col("z", ColumnType::int64, {"z"})});
  const auto e = run(layout, R"({"o": {"p": true, "q": {"r": "deep"}}, "z": 9})");
  EXPECT_EQ(e.notes, "");
  EXPECT_EQ(e.cells[0].text(e.arena), R"({"p":true,"q":{"r":"deep"}})");
  EXPECT_EQ(e.cells[1].a, 1);
  EXPECT_EQ(e.cells[2].text(e.arena), "deep");
  EXPECT_EQ(e.cells[3].a, 9);
}

TEST(TypedValues, ARootThatIsNotAnObjectIsOneColumn) {
  const TypedLayout text(std::vector<ColumnSpec>{col("value", ColumnType::text, {})});
  const auto e = run(text, R"("just text")");
  EXPECT_EQ(e.notes, "");
  EXPECT_EQ(e.cells[0].text(e.arena), "just text");
  const TypedLayout number(std::vector<ColumnSpec>{col("value", ColumnType::int64, {})});
  EXPECT_EQ(run(number, "42").cells[0].a, 42);
  EXPECT_FALSE(run(number, "null").cells[0].present);
  const TypedLayout list(std::vector<ColumnSpec>{col("value", ColumnType::json, {})});
  const auto l = run(list, "[1, [2]]");
  EXPECT_EQ(l.cells[0].text(l.arena), "[1,[2]]");
}

TEST(TypedValues, Decimals) {
  Int128 v = 0;
  EXPECT_TRUE(parse_decimal("0.05", 4, 2, v));
  EXPECT_TRUE(v == 5);
  EXPECT_TRUE(parse_decimal("-0", 4, 2, v));
  EXPECT_TRUE(v == 0);
  EXPECT_TRUE(parse_decimal("99.99", 4, 2, v));
  EXPECT_TRUE(v == 9999);
  EXPECT_TRUE(parse_decimal("12.500", 4, 2, v));  // trailing zeros past the scale lose nothing
  EXPECT_TRUE(v == 1250);
  EXPECT_TRUE(parse_decimal("007", 4, 2, v));
  EXPECT_TRUE(v == 700);
  EXPECT_FALSE(parse_decimal("100.00", 4, 2, v));  // three integer digits in DECIMAL(4,2)
  EXPECT_FALSE(parse_decimal("1.005", 4, 2, v));   // a third fractional digit would be lost
  for (const char* bad : {"", "-", "1.", ".5", "1e3", "1,5", " 1", "0x10", "1.2.3", "+-1"})
    EXPECT_FALSE(parse_decimal(bad, 10, 2, v)) << bad;
  EXPECT_TRUE(parse_decimal("-99999999999999999999999999999999999999", 38, 0, v));
  EXPECT_FALSE(parse_decimal("999999999999999999999999999999999999999", 38, 0, v));
}

TEST(TypedValues, DatesTimesAndTimestamps) {
  int64_t v = 0;
  EXPECT_TRUE(parse_date("1970-01-01", v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(parse_date("1969-12-31", v));
  EXPECT_EQ(v, -1);
  EXPECT_TRUE(parse_date("2024-02-29", v));
  EXPECT_FALSE(parse_date("2023-02-29", v));
  EXPECT_FALSE(parse_date("2023-13-01", v));
  EXPECT_FALSE(parse_date("2023-1-01", v));
  EXPECT_TRUE(parse_time("00:00:00", v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(parse_time("23:59:59.999999999", v));  // nanoseconds: cut to microseconds
  EXPECT_EQ(v, 86399999999LL);
  EXPECT_FALSE(parse_time("24:00:00", v));
  EXPECT_FALSE(parse_time("12:00", v));
  EXPECT_FALSE(parse_time("12:00:00.", v));
  // RFC 3339 times carry a zone: stored as the same moment's time of day in UTC.
  EXPECT_TRUE(parse_time("13:45:00Z", v));
  EXPECT_EQ(v, (13 * 3600 + 45 * 60) * 1000000LL);
  EXPECT_TRUE(parse_time("13:45:00+02:00", v));
  EXPECT_EQ(v, (11 * 3600 + 45 * 60) * 1000000LL);
  EXPECT_TRUE(parse_time("13:45:00.5-05:30", v));
  EXPECT_EQ(v, (19 * 3600 + 15 * 60) * 1000000LL + 500000);
  EXPECT_TRUE(parse_time("01:00:00+02:00", v));  // the day before, in UTC
  EXPECT_EQ(v, 23 * 3600 * 1000000LL);
  EXPECT_TRUE(parse_time("23:30:00-01:00", v));  // the day after
  EXPECT_EQ(v, 30 * 60 * 1000000LL);
  EXPECT_FALSE(parse_time("13:45:00+2", v));
  EXPECT_FALSE(parse_time("13:45:00 Z", v));
  EXPECT_FALSE(parse_time("13:45:00+24:00", v));
  EXPECT_TRUE(parse_timestamp("1970-01-01T00:00:00Z", v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(parse_timestamp("1970-01-01T01:00:00+01:00", v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(parse_timestamp("1969-12-31T23:00:00-01:00", v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(
      parse_timestamp("1970-01-01T00:00:01.5", v));  // local-timestamp: no zone, read as UTC
  EXPECT_EQ(v, 1500000);
  EXPECT_TRUE(parse_timestamp("1960-01-01T00:00:00.000001Z", v));
  EXPECT_EQ(v, -315619200000000LL + 1);
  EXPECT_FALSE(parse_timestamp("1970-01-01", v));
  EXPECT_FALSE(parse_timestamp("1970-01-01T00:00:00Q", v));
  EXPECT_FALSE(parse_timestamp("1970-01-01T00:00:00+1", v));
}

TEST(TypedValues, IntegersFromNumbersAndDigitStrings) {
  const TypedLayout layout(std::vector<ColumnSpec>{
      col("a", ColumnType::int32, {"a"}), col("b", ColumnType::int64, {"b"}),
      col("c", ColumnType::int64, {"c"}), col("d", ColumnType::uint64, {"d"}),
      col("e", ColumnType::int64, {"e"})});
  const auto e = run(layout, R"({"a": 3.0, "b": "12", "c": 1.5, "d": 12, "e": "12x"})");
  EXPECT_TRUE(e.cells[0].present);
  EXPECT_EQ(e.cells[0].a, 3);
  EXPECT_EQ(e.cells[1].a, 12);
  EXPECT_FALSE(e.cells[2].present);
  EXPECT_EQ(e.cells[3].unsigned_value(), 12u);
  EXPECT_FALSE(e.cells[4].present);
  EXPECT_THAT(e.notes, HasSubstr("column c (int64): got 1.5"));
}

// A column contract's `enforce: coerce`: values converted where nothing is lost; what would
// lose something is still a misfit with its note.
TEST(TypedValues, CoerceConvertsWhereNothingIsLost) {
  const TypedLayout layout({col("n", ColumnType::int64, {"n"}), col("d", ColumnType::float64, {"d"}),
                            col("b", ColumnType::boolean, {"b"}), col("t", ColumnType::text, {"t"}),
                            col("m", ColumnType::decimal, {"m"}, 12, 2), col("at", ColumnType::timestamp, {"at"})},
                           {}, ValuePolicy{.coerce = true});
  auto e = run(layout, R"({"n": "12.0", "d": "3.5", "b": "true", "t": 42, "m": 19.99, "at": "2026-01-02"})");
  EXPECT_EQ(e.notes, "");
  EXPECT_EQ(e.cells[0].a, 12);
  EXPECT_EQ(e.cells[1].real(), 3.5);
  EXPECT_EQ(e.cells[2].a, 1);
  EXPECT_EQ(e.cells[3].text(e.arena), "42");
  EXPECT_EQ(static_cast<int64_t>(e.cells[4].decimal()), 1999);
  EXPECT_EQ(e.cells[5].a, 1767312000000000);
  e = run(layout, R"({"n": "12.5", "b": "yes", "m": 1.234, "at": "yesterday"})");
  for (int i : {0, 2, 4, 5}) EXPECT_FALSE(e.cells[i].present) << i;
  EXPECT_THAT(e.notes, HasSubstr("column n (int64): got \"12.5\""));
  EXPECT_THAT(e.notes, HasSubstr("column m (decimal): got 1.234"));
  // Strict (the default) takes none of them.
  const TypedLayout strict({col("d", ColumnType::float64, {"d"}), col("t", ColumnType::text, {"t"})});
  e = run(strict, R"({"d": "3.5", "t": 42})");
  EXPECT_FALSE(e.cells[0].present);
  EXPECT_FALSE(e.cells[1].present);
  EXPECT_THAT(e.notes, HasSubstr("column t (text): got 42"));
}

TEST(TypedValues, EmptyStringsAreNullOrKeptAsTheContractSays) {
  const std::vector<ColumnSpec> columns{col("t", ColumnType::text, {"t"}), col("n", ColumnType::int64, {"n"})};
  auto e = run(TypedLayout(columns, {}, ValuePolicy{.empty_as_null = true}), R"({"t": "", "n": ""})");
  EXPECT_FALSE(e.cells[0].present);
  EXPECT_FALSE(e.cells[1].present);
  EXPECT_EQ(e.notes, "");
  e = run(TypedLayout(columns), R"({"t": "", "n": ""})");
  EXPECT_TRUE(e.cells[0].present);
  EXPECT_EQ(e.cells[0].text(e.arena), "");
  EXPECT_FALSE(e.cells[1].present);
  EXPECT_THAT(e.notes, HasSubstr("column n (int64): got \"\""));
}

}  // namespace
}  // namespace krow::rows
