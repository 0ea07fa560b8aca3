// Avro decoding (codec/avro): every type and logical type, nested records, arrays, maps,
// unions in both modes, named types from references (diamonds included) and recursive
// types. Message bytes are written by hand from the Avro specification, with a tiny
// test-local encoder (zig-zag varints, lengths, little-endian floats) that is itself
// checked against the specification's examples. Expected JSON is written by hand.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "codec/schema_decoder.hpp"

namespace krow {
namespace {

using ::testing::HasSubstr;

// Test-local Avro binary encoder.
class Bytes {
 public:
  Bytes& lng(int64_t v) {  // int and long: zig-zag, then 7-bit groups, low group first
    uint64_t u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    while (u >= 0x80) {
      data_.push_back(static_cast<char>((u & 0x7f) | 0x80));
      u >>= 7;
    }
    data_.push_back(static_cast<char>(u));
    return *this;
  }
  Bytes& str(std::string_view s) {  // string and bytes: length, then the bytes
    lng(static_cast<int64_t>(s.size()));
    data_.append(s);
    return *this;
  }
  Bytes& raw(std::string_view s) {
    data_.append(s);
    return *this;
  }
  Bytes& byte(uint8_t b) {
    data_.push_back(static_cast<char>(b));
    return *this;
  }
  Bytes& boolean(bool b) { return byte(b ? 1 : 0); }
  Bytes& f32(float f) {
    char le[4];
    std::memcpy(le, &f, 4);  // the test host is little-endian, like Avro's encoding
    data_.append(le, 4);
    return *this;
  }
  Bytes& f64(double d) {
    char le[8];
    std::memcpy(le, &d, 8);
    data_.append(le, 8);
    return *this;
  }
  const std::string& data() const { return data_; }

 private:
  std::string data_;
};

std::unique_ptr<SchemaDecoder> avro(std::string_view text, bool tagged = false) {
  ResolvedSchema s;
  s.type = SchemaType::avro;
  s.text = std::string(text);
  return compile_avro(s, DecodeOptions{tagged});
}

std::string json(const SchemaDecoder& d, const std::string& bytes) {
  std::string out;
  std::string error;
  const bool ok = d.decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out, error);
  EXPECT_TRUE(ok) << error;
  return out;
}

std::string json(std::string_view schema, const Bytes& b, bool tagged = false) {
  return json(*avro(schema, tagged), b.data());
}

TEST(AvroEncoder, MatchesTheSpecificationExamples) {
  // Avro spec, "Binary Encoding": 0 → 00, -1 → 01, 1 → 02, -2 → 03, 2 → 04, -64 → 7f, 64 → 80 01.
  EXPECT_EQ(Bytes().lng(0).data(), std::string("\x00", 1));
  EXPECT_EQ(Bytes().lng(-1).data(), "\x01");
  EXPECT_EQ(Bytes().lng(1).data(), "\x02");
  EXPECT_EQ(Bytes().lng(-2).data(), "\x03");
  EXPECT_EQ(Bytes().lng(2).data(), "\x04");
  EXPECT_EQ(Bytes().lng(-64).data(), "\x7f");
  EXPECT_EQ(Bytes().lng(64).data(), "\x80\x01");
  EXPECT_EQ(Bytes().str("foo").data(), "\x06\x66\x6f\x6f");  // the spec's "foo"
}

TEST(AvroPrimitives, NullBooleanIntLong) {
  EXPECT_EQ(json("\"null\"", Bytes()), "null");
  EXPECT_EQ(json("\"boolean\"", Bytes().raw("\x01")), "true");
  EXPECT_EQ(json("\"boolean\"", Bytes().raw(std::string("\x00", 1))), "false");
  EXPECT_EQ(json("\"int\"", Bytes().raw("\x7f")), "-64");
  EXPECT_EQ(json("\"int\"", Bytes().raw("\x80\x01")), "64");
  EXPECT_EQ(json("\"int\"", Bytes().raw("\xfe\xff\xff\xff\x0f")), "2147483647");
  EXPECT_EQ(json("\"int\"", Bytes().raw("\xff\xff\xff\xff\x0f")), "-2147483648");
  EXPECT_EQ(json("\"long\"", Bytes().lng(1767225600123)), "1767225600123");
  // Avro long is a plain JSON number, even beyond 2^53.
  EXPECT_EQ(json("\"long\"", Bytes().raw("\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01")), "9223372036854775807");
  EXPECT_EQ(json("\"long\"", Bytes().raw("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01")), "-9223372036854775808");
  EXPECT_EQ(json("{\"type\":\"long\"}", Bytes().lng(-3)), "-3");
}

TEST(AvroPrimitives, FloatAndDouble) {
  EXPECT_EQ(json("\"float\"", Bytes().raw(std::string("\x00\x00\xc0\x3f", 4))), "1.5");
  EXPECT_EQ(json("\"float\"", Bytes().f32(0.1f)), "0.1");
  EXPECT_EQ(json("\"double\"", Bytes().raw("\x9a\x99\x99\x99\x99\x99\xb9\x3f")), "0.1");
  EXPECT_EQ(json("\"double\"", Bytes().f64(-1e300)), "-1e+300");
  EXPECT_EQ(json("\"double\"", Bytes().raw(std::string("\x00\x00\x00\x00\x00\x00\xf8\x7f", 8))), "\"NaN\"");
  EXPECT_EQ(json("\"double\"", Bytes().f64(std::numeric_limits<double>::infinity())), "\"Infinity\"");
  EXPECT_EQ(json("\"double\"", Bytes().f64(-std::numeric_limits<double>::infinity())), "\"-Infinity\"");
  EXPECT_EQ(json("\"float\"", Bytes().f32(std::numeric_limits<float>::quiet_NaN())), "\"NaN\"");
  EXPECT_EQ(json("\"float\"", Bytes().f32(-std::numeric_limits<float>::infinity())), "\"-Infinity\"");
}

TEST(AvroPrimitives, BytesAndStrings) {
  EXPECT_EQ(json("\"bytes\"", Bytes().raw("\x06" "abc")), "\"YWJj\"");
  EXPECT_EQ(json("\"bytes\"", Bytes().str(std::string("\x00\xff\x10", 3))), "\"AP8Q\"");
  EXPECT_EQ(json("\"bytes\"", Bytes().str("")), "\"\"");
  EXPECT_EQ(json("\"string\"", Bytes().raw("\x06" "foo")), "\"foo\"");
  EXPECT_EQ(json("\"string\"", Bytes().str("")), "\"\"");
  EXPECT_EQ(json("\"string\"", Bytes().str("say \"hi\"\n\t\\ caf\xc3\xa9 \xf0\x9f\x98\x80 \x01")),
            "\"say \\\"hi\\\"\\n\\t\\\\ caf\xc3\xa9 \xf0\x9f\x98\x80 \\u0001\"");
}

constexpr std::string_view kOrder = R"({
  "type": "record", "name": "Order", "namespace": "com.acme",
  "fields": [
    {"name": "id", "type": "long"},
    {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
      {"name": "name", "type": "string"},
      {"name": "vip", "type": "boolean"}]}},
    {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
      {"name": "sku", "type": "string"},
      {"name": "qty", "type": "int"}]}}},
    {"name": "tags", "type": {"type": "map", "values": "string"}},
    {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
    {"name": "note", "type": ["null", "string"]},
    {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 4}},
    {"name": "billing", "type": "Customer"}
  ]})";

Bytes order_bytes() {
  return Bytes()
      .lng(42)
      .str("Ann").boolean(true)
      .lng(2).str("A1").lng(2).str("B2").lng(-1).lng(0)
      .lng(1).str("k").str("v").lng(0)
      .lng(1)
      .lng(0)
      .raw("\xde\xad\xbe\xef")
      .str("Bob").boolean(false);
}

constexpr std::string_view kOrderJson =
    R"({"id":42,"customer":{"name":"Ann","vip":true},"lines":[{"sku":"A1","qty":2},{"sku":"B2","qty":-1}],)"
    R"("tags":{"k":"v"},"status":"PAID","note":null,"hash":"3q2+7w==","billing":{"name":"Bob","vip":false}})";

TEST(AvroComplex, NestedRecordArrayOfRecordsMapEnumFixed) {
  EXPECT_EQ(json(kOrder, order_bytes()), kOrderJson);
}

TEST(AvroComplex, OutputIsAppendedAfterExistingText) {
  auto d = avro(kOrder);
  std::string out = "[";
  std::string error;
  const std::string bytes = order_bytes().data();
  ASSERT_TRUE(d->decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out, error)) << error;
  ASSERT_TRUE(d->decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out, error)) << error;
  EXPECT_EQ(out, "[" + std::string(kOrderJson) + std::string(kOrderJson));
}

TEST(AvroComplex, ArraysAndMapsInSeveralBlocks) {
  // Two blocks (2 items, then 1), and a negative count followed by the block's byte size.
  EXPECT_EQ(json(R"({"type":"array","items":"long"})", Bytes().lng(2).lng(1).lng(2).lng(1).lng(3).lng(0)), "[1,2,3]");
  EXPECT_EQ(json(R"({"type":"array","items":"long"})", Bytes().lng(-2).lng(2).lng(1).lng(-1).lng(1).lng(7).lng(0)),
            "[1,-1,7]");
  EXPECT_EQ(json(R"({"type":"array","items":"long"})", Bytes().lng(0)), "[]");
  EXPECT_EQ(json(R"({"type":"map","values":"int"})",
                 Bytes().lng(-2).lng(6).str("a").lng(1).str("b").lng(2).lng(1).str("c").lng(3).lng(0)),
            R"({"a":1,"b":2,"c":3})");
  EXPECT_EQ(json(R"({"type":"map","values":"int"})", Bytes().lng(0)), "{}");
  EXPECT_EQ(json(R"({"type":"map","values":"int"})", Bytes().lng(1).str("k\"\xc3\xa9").lng(-5).lng(0)),
            "{\"k\\\"\xc3\xa9\":-5}");
  EXPECT_EQ(json(R"({"type":"array","items":{"type":"array","items":"null"}})",
                 Bytes().lng(2).lng(2).lng(0).lng(0).lng(0)),
            "[[null,null],[]]");
  EXPECT_EQ(json(R"({"type":"map","values":{"type":"map","values":"boolean"}})",
                 Bytes().lng(1).str("x").lng(1).str("y").boolean(true).lng(0).lng(0)),
            R"({"x":{"y":true}})");
}

TEST(AvroComplex, EmptyRecordAndZeroSizeFixed) {
  EXPECT_EQ(json(R"({"type":"record","name":"E","fields":[]})", Bytes()), "{}");
  EXPECT_EQ(json(R"({"type":"array","items":{"type":"record","name":"E","fields":[]}})", Bytes().lng(3).lng(0)),
            "[{},{},{}]");
  EXPECT_EQ(json(R"({"type":"fixed","name":"Z","size":0})", Bytes()), "\"\"");
}

TEST(AvroComplex, FieldNamesAreEscapedAndKeptInSchemaOrder) {
  EXPECT_EQ(json(R"({"type":"record","name":"R","fields":[{"name":"z","type":"int"},{"name":"a","type":"int"}]})",
                 Bytes().lng(1).lng(2)),
            R"({"z":1,"a":2})");
}

constexpr std::string_view kUnion = R"({"type":"record","name":"U","namespace":"ns","fields":[
  {"name":"u","type":["null","int","string",
    {"type":"record","name":"Point","fields":[{"name":"x","type":"int"}]},
    {"type":"array","items":"int"},
    {"type":"map","values":"long"},
    {"type":"enum","name":"Color","namespace":"other","symbols":["RED","GREEN"]},
    {"type":"fixed","name":"Two","size":2},
    {"type":"long","logicalType":"timestamp-millis"},
    "bytes", "boolean", "double"]}]})";

TEST(AvroUnion, PlainValues) {
  EXPECT_EQ(json(kUnion, Bytes().lng(0)), R"({"u":null})");
  EXPECT_EQ(json(kUnion, Bytes().lng(1).lng(5)), R"({"u":5})");
  EXPECT_EQ(json(kUnion, Bytes().lng(2).str("a")), R"({"u":"a"})");
  EXPECT_EQ(json(kUnion, Bytes().lng(3).lng(-7)), R"({"u":{"x":-7}})");
  EXPECT_EQ(json(kUnion, Bytes().lng(4).lng(1).lng(9).lng(0)), R"({"u":[9]})");
  EXPECT_EQ(json(kUnion, Bytes().lng(5).lng(1).str("m").lng(3).lng(0)), R"({"u":{"m":3}})");
  EXPECT_EQ(json(kUnion, Bytes().lng(6).lng(1)), R"({"u":"GREEN"})");
  EXPECT_EQ(json(kUnion, Bytes().lng(7).raw("\xff\xff")), R"({"u":"//8="})");
  EXPECT_EQ(json(kUnion, Bytes().lng(8).lng(1767225600123)), R"({"u":"2026-01-01T00:00:00.123Z"})");
  EXPECT_EQ(json(kUnion, Bytes().lng(9).str("abc")), R"({"u":"YWJj"})");
  EXPECT_EQ(json(kUnion, Bytes().lng(10).boolean(true)), R"({"u":true})");
  EXPECT_EQ(json(kUnion, Bytes().lng(11).f64(2.5)), R"({"u":2.5})");
}

TEST(AvroUnion, TaggedValues) {
  EXPECT_EQ(json(kUnion, Bytes().lng(0), true), R"({"u":null})");
  EXPECT_EQ(json(kUnion, Bytes().lng(1).lng(5), true), R"({"u":{"int":5}})");
  EXPECT_EQ(json(kUnion, Bytes().lng(2).str("a"), true), R"({"u":{"string":"a"}})");
  EXPECT_EQ(json(kUnion, Bytes().lng(3).lng(-7), true), R"({"u":{"ns.Point":{"x":-7}}})");
  EXPECT_EQ(json(kUnion, Bytes().lng(4).lng(1).lng(9).lng(0), true), R"({"u":{"array":[9]}})");
  EXPECT_EQ(json(kUnion, Bytes().lng(5).lng(1).str("m").lng(3).lng(0), true), R"({"u":{"map":{"m":3}}})");
  EXPECT_EQ(json(kUnion, Bytes().lng(6).lng(1), true), R"({"u":{"other.Color":"GREEN"}})");
  EXPECT_EQ(json(kUnion, Bytes().lng(7).raw("\xff\xff"), true), R"({"u":{"ns.Two":"//8="}})");
  EXPECT_EQ(json(kUnion, Bytes().lng(8).lng(1767225600123), true), R"({"u":{"long":"2026-01-01T00:00:00.123Z"}})");
  EXPECT_EQ(json(kUnion, Bytes().lng(9).str("abc"), true), R"({"u":{"bytes":"YWJj"}})");
  EXPECT_EQ(json(kUnion, Bytes().lng(10).boolean(false), true), R"({"u":{"boolean":false}})");
  EXPECT_EQ(json(kUnion, Bytes().lng(11).f64(2.5), true), R"({"u":{"double":2.5}})");
}

TEST(AvroUnion, NullableFieldsAndTopLevelUnion) {
  constexpr std::string_view schema =
      R"({"type":"record","name":"N","fields":[{"name":"a","type":["null","string"]},{"name":"b","type":["string","null"]}]})";
  EXPECT_EQ(json(schema, Bytes().lng(1).str("x").lng(1)), R"({"a":"x","b":null})");
  EXPECT_EQ(json(schema, Bytes().lng(0).lng(0).str("y"), true), R"({"a":null,"b":{"string":"y"}})");
  EXPECT_EQ(json(R"(["null","long"])", Bytes().lng(1).lng(-1)), "-1");
  EXPECT_EQ(json(R"(["null","long"])", Bytes().lng(1).lng(-1), true), R"({"long":-1})");
}

TEST(AvroLogical, DecimalOnBytesAndFixed) {
  constexpr std::string_view on_bytes = R"({"type":"bytes","logicalType":"decimal","precision":6,"scale":2})";
  EXPECT_EQ(json(on_bytes, Bytes().raw("\x06\xfe\x1d\xc6")), "\"-1234.50\"");  // -123450
  EXPECT_EQ(json(on_bytes, Bytes().str("\x05")), "\"0.05\"");
  EXPECT_EQ(json(on_bytes, Bytes().str(std::string("\x00", 1))), "\"0.00\"");
  EXPECT_EQ(json(R"({"type":"bytes","logicalType":"decimal","precision":40,"scale":3})",
                 Bytes().str(std::string("\x00\x9b\xd3\x0a\x3c\x64\x59\x43\xdd\x16\x90\xa0\x3a\x83", 14))),
            "\"12345678901234567890123456789.123\"");
  EXPECT_EQ(json(R"({"type":"bytes","logicalType":"decimal","precision":40,"scale":3})",
                 Bytes().str("\xff\x64\x2c\xf5\xc3\x9b\xa6\xbc\x22\xe9\x6f\x5f\xc5\x7d")),
            "\"-12345678901234567890123456789.123\"");
  constexpr std::string_view on_fixed =
      R"({"type":"fixed","name":"Money","size":8,"logicalType":"decimal","precision":18,"scale":2})";
  EXPECT_EQ(json(on_fixed, Bytes().raw("\xff\xff\xff\xff\xff\xfe\x1d\xc6")), "\"-1234.50\"");
  EXPECT_EQ(json(on_fixed, Bytes().raw(std::string("\x00\x00\x00\x00\x00\x00\x00\x05", 8))), "\"0.05\"");
  // Scale defaults to 0.
  EXPECT_EQ(json(R"({"type":"bytes","logicalType":"decimal","precision":3})", Bytes().str("\x80")), "\"-128\"");
}

TEST(AvroLogical, DecimalByNameInARecordAndInATaggedUnion) {
  constexpr std::string_view schema = R"({"type":"record","name":"P","namespace":"shop","fields":[
    {"name":"price","type":{"type":"fixed","name":"Money","size":4,"logicalType":"decimal","precision":9,"scale":2}},
    {"name":"old","type":["null","Money"]}]})";
  EXPECT_EQ(json(schema, Bytes().raw("\xff\xfe\x1d\xc6").lng(1).raw(std::string("\x00\x00\x01\x00", 4)), true),
            R"({"price":"-1234.50","old":{"shop.Money":"2.56"}})");
}

TEST(AvroLogical, UuidDateTimeTimestampsDuration) {
  EXPECT_EQ(json(R"({"type":"string","logicalType":"uuid"})", Bytes().str("5f0c0b2e-8a7b-4c1e-9a43-0d2e6f1b7c11")),
            "\"5f0c0b2e-8a7b-4c1e-9a43-0d2e6f1b7c11\"");
  EXPECT_EQ(json(R"({"type":"fixed","name":"U","size":16,"logicalType":"uuid"})",
                 Bytes().raw(std::string("\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff", 16))),
            "\"00112233-4455-6677-8899-aabbccddeeff\"");
  constexpr std::string_view date = R"({"type":"int","logicalType":"date"})";
  EXPECT_EQ(json(date, Bytes().raw("\x96\xb4\x02")), "\"2024-01-01\"");  // 19723 → zig-zag 39446
  EXPECT_EQ(json(date, Bytes().lng(-1)), "\"1969-12-31\"");
  EXPECT_EQ(json(date, Bytes().lng(-719529)), "\"-0001-12-31\"");
  EXPECT_EQ(json(R"({"type":"int","logicalType":"time-millis"})", Bytes().lng(45296789)), "\"12:34:56.789\"");
  EXPECT_EQ(json(R"({"type":"long","logicalType":"time-micros"})", Bytes().lng(45296789012)), "\"12:34:56.789012\"");
  EXPECT_EQ(json(R"({"type":"long","logicalType":"timestamp-millis"})", Bytes().lng(1767225600123)),
            "\"2026-01-01T00:00:00.123Z\"");
  EXPECT_EQ(json(R"({"type":"long","logicalType":"timestamp-millis"})", Bytes().lng(-1)),
            "\"1969-12-31T23:59:59.999Z\"");
  EXPECT_EQ(json(R"({"type":"long","logicalType":"timestamp-micros"})", Bytes().lng(1767225600123456)),
            "\"2026-01-01T00:00:00.123456Z\"");
  EXPECT_EQ(json(R"({"type":"long","logicalType":"timestamp-micros"})", Bytes().lng(-1)),
            "\"1969-12-31T23:59:59.999999Z\"");
  EXPECT_EQ(json(R"({"type":"long","logicalType":"timestamp-nanos"})", Bytes().lng(1767225600123456789)),
            "\"2026-01-01T00:00:00.123456789Z\"");
  EXPECT_EQ(json(R"({"type":"long","logicalType":"timestamp-nanos"})", Bytes().lng(-1)),
            "\"1969-12-31T23:59:59.999999999Z\"");
  EXPECT_EQ(json(R"({"type":"long","logicalType":"local-timestamp-millis"})", Bytes().lng(1767225600123)),
            "\"2026-01-01T00:00:00.123\"");
  EXPECT_EQ(json(R"({"type":"long","logicalType":"local-timestamp-micros"})", Bytes().lng(-1)),
            "\"1969-12-31T23:59:59.999999\"");
  EXPECT_EQ(json(R"({"type":"long","logicalType":"local-timestamp-nanos"})", Bytes().lng(1767225600123456789)),
            "\"2026-01-01T00:00:00.123456789\"");
  EXPECT_EQ(json(R"({"type":"fixed","name":"D","size":12,"logicalType":"duration"})",
                 Bytes().raw(std::string("\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00", 12))),
            R"({"months":1,"days":2,"milliseconds":3})");
  EXPECT_EQ(json(R"({"type":"fixed","name":"D","size":12,"logicalType":"duration"})",
                 Bytes().raw(std::string("\xff\xff\xff\xff\x00\x01\x00\x00\x10\x27\x00\x00", 12))),
            R"({"months":4294967295,"days":256,"milliseconds":10000})");
}

TEST(AvroLogical, UnknownOrInvalidLogicalTypesFallBackToTheUnderlyingType) {
  EXPECT_EQ(json(R"({"type":"long","logicalType":"epoch-fortnights"})", Bytes().lng(7)), "7");
  EXPECT_EQ(json(R"({"type":"int","logicalType":"timestamp-millis"})", Bytes().lng(7)), "7");  // needs long
  EXPECT_EQ(json(R"({"type":"long","logicalType":"date"})", Bytes().lng(7)), "7");             // needs int
  EXPECT_EQ(json(R"({"type":"bytes","logicalType":"decimal"})", Bytes().str("\x05")), "\"BQ==\"");  // no precision
  EXPECT_EQ(json(R"({"type":"bytes","logicalType":"decimal","precision":2,"scale":3})", Bytes().str("\x05")),
            "\"BQ==\"");  // scale > precision
  EXPECT_EQ(json(R"({"type":"bytes","logicalType":"decimal","precision":-1})", Bytes().str("\x05")), "\"BQ==\"");
  // Two bytes hold at most 4 digits (floor(log10(2^15 - 1))).
  EXPECT_EQ(json(R"({"type":"fixed","name":"F","size":2,"logicalType":"decimal","precision":5})",
                 Bytes().raw("\x01\x02")),
            "\"AQI=\"");
  EXPECT_EQ(json(R"({"type":"fixed","name":"F","size":2,"logicalType":"decimal","precision":4})",
                 Bytes().raw("\x01\x02")),
            "\"258\"");
  EXPECT_EQ(json(R"({"type":"fixed","name":"F","size":4,"logicalType":"uuid"})", Bytes().raw("abcd")),
            "\"YWJjZA==\"");  // uuid needs 16 bytes
  EXPECT_EQ(json(R"({"type":"fixed","name":"F","size":4,"logicalType":"duration"})", Bytes().raw("abcd")),
            "\"YWJjZA==\"");  // duration needs 12 bytes
  EXPECT_EQ(json(R"({"type":"string","logicalType":"timestamp-millis"})", Bytes().str("x")), "\"x\"");
}

// ---- Names, references, recursion ----

std::shared_ptr<ResolvedSchema> doc(std::string text) {
  auto s = std::make_shared<ResolvedSchema>();
  s->text = std::move(text);
  return s;
}

constexpr std::string_view kAddress =
    R"({"type":"record","name":"Address","namespace":"com.acme.common","fields":[{"name":"city","type":"string"}]})";
constexpr std::string_view kCountry =
    R"({"type":"enum","name":"com.acme.common.Country","symbols":["FR","DE"]})";

TEST(AvroSchema, NamedTypeFromAReference) {
  ResolvedSchema root;
  root.text = R"({"type":"record","name":"Customer","namespace":"com.acme","fields":[
    {"name":"home","type":"com.acme.common.Address"},
    {"name":"work","type":["null","com.acme.common.Address"]}]})";
  root.references.push_back({"address-value", doc(std::string(kAddress))});
  auto d = compile_avro(root, DecodeOptions{true});
  EXPECT_EQ(json(*d, Bytes().str("Paris").lng(1).str("Lyon").data()),
            R"({"home":{"city":"Paris"},"work":{"com.acme.common.Address":{"city":"Lyon"}}})");
}

TEST(AvroSchema, DiamondOfReferencesAndRepeatedDocuments) {
  // root → a, b; a → common; b → common (the same shared_ptr) and a second, separately
  // fetched copy of the same document; root also defines Address again, identically.
  auto common = doc(std::string(kAddress));
  auto common_copy = doc(std::string(kAddress));
  auto country = doc(std::string(kCountry));
  auto a = doc(R"({"type":"record","name":"com.acme.A","fields":[{"name":"addr","type":"com.acme.common.Address"}]})");
  a->references.push_back({"common", common});
  a->references.push_back({"country", country});
  auto b = doc(R"({"type":"record","name":"com.acme.B","fields":[{"name":"addr","type":"com.acme.common.Address"},
    {"name":"country","type":"com.acme.common.Country"}]})");
  b->references.push_back({"common", common});
  b->references.push_back({"common-again", common_copy});
  b->references.push_back({"country", country});
  ResolvedSchema root;
  root.text = std::string(R"({"type":"record","name":"com.acme.Root","fields":[
    {"name":"a","type":"com.acme.A"},{"name":"b","type":"com.acme.B"},
    {"name":"again","type":)") + std::string(kAddress) + "}]}";
  root.references.push_back({"a", a});
  root.references.push_back({"b", b});
  root.references.push_back({"common", common});
  auto d = compile_avro(root, DecodeOptions{});
  EXPECT_EQ(json(*d, Bytes().str("x").str("y").lng(1).str("z").data()),
            R"({"a":{"addr":{"city":"x"}},"b":{"addr":{"city":"y"},"country":"DE"},"again":{"city":"z"}})");
}

TEST(AvroSchema, ACycleOfReferencesDoesNotLoop) {
  auto a = doc(std::string(kAddress));
  auto b = doc(std::string(kCountry));
  a->references.push_back({"b", b});
  b->references.push_back({"a", a});
  ResolvedSchema root;
  root.text = R"({"type":"record","name":"R","fields":[{"name":"c","type":"com.acme.common.Country"},
    {"name":"a","type":"com.acme.common.Address"}]})";
  root.references.push_back({"a", a});
  auto d = compile_avro(root, DecodeOptions{});
  EXPECT_EQ(json(*d, Bytes().lng(0).str("q").data()), R"({"c":"FR","a":{"city":"q"}})");
  b->references.clear();  // the shared_ptr cycle would otherwise outlive the test (a leak)
}

TEST(AvroSchema, NamespacesResolveShortNames) {
  constexpr std::string_view schema = R"({"type":"record","name":"Outer","namespace":"a.b","fields":[
    {"name":"x","type":{"type":"enum","name":"E","symbols":["P","Q"]}},
    {"name":"y","type":"E"},
    {"name":"z","type":"a.b.E"},
    {"name":"inner","type":{"type":"record","name":"c.Inner","fields":[
      {"name":"e","type":{"type":"enum","name":"E","symbols":["R"]}},
      {"name":"outer_e","type":"a.b.E"}]}},
    {"name":"global","type":{"type":"record","name":"G","namespace":"","fields":[{"name":"v","type":"int"}]}},
    {"name":"g2","type":"G"}]})";
  EXPECT_EQ(json(schema, Bytes().lng(0).lng(1).lng(1).lng(0).lng(1).lng(3).lng(4)),
            R"({"x":"P","y":"Q","z":"Q","inner":{"e":"R","outer_e":"Q"},"global":{"v":3},"g2":{"v":4}})");
}

TEST(AvroSchema, RecursiveTypes) {
  constexpr std::string_view list = R"({"type":"record","name":"Node","fields":[
    {"name":"value","type":"int"},{"name":"next","type":["null","Node"]}]})";
  EXPECT_EQ(json(list, Bytes().lng(1).lng(1).lng(2).lng(1).lng(3).lng(0)),
            R"({"value":1,"next":{"value":2,"next":{"value":3,"next":null}}})");
  EXPECT_EQ(json(list, Bytes().lng(1).lng(1).lng(2).lng(0), true), R"({"value":1,"next":{"Node":{"value":2,"next":null}}})");
  constexpr std::string_view tree = R"({"type":"record","name":"Tree","fields":[
    {"name":"label","type":"string"},
    {"name":"children","type":{"type":"array","items":"Tree"}},
    {"name":"index","type":{"type":"map","values":"Tree"}}]})";
  EXPECT_EQ(json(tree, Bytes().str("root").lng(2).str("a").lng(0).lng(0).str("b").lng(0).lng(0).lng(0)
                           .lng(1).str("k").str("c").lng(0).lng(0).lng(0)),
            R"({"label":"root","children":[{"label":"a","children":[],"index":{}},)"
            R"({"label":"b","children":[],"index":{}}],"index":{"k":{"label":"c","children":[],"index":{}}}})");
}

TEST(AvroSchema, ObjectTypeThatIsASchema) {
  EXPECT_EQ(json(R"({"type":{"type":"array","items":"int"}})", Bytes().lng(1).lng(4).lng(0)), "[4]");
  // {"type": "<full name>"} refers to an already defined named type.
  EXPECT_EQ(json(R"(["null",{"type":"fixed","name":"x.F","size":1},{"type":"array","items":{"type":"x.F"}}])",
                 Bytes().lng(2).lng(1).raw("\xfb").lng(0)),
            R"(["+w=="])");
}

}  // namespace
}  // namespace krow
