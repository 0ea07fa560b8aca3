// Avro decoding of hostile and broken input (codec/avro): every failure is a clean `false`
// with a one-line reason naming what failed and its byte offset, never a crash, a hang or a
// huge allocation. Also the schema compile errors. Bytes are written by hand from the Avro
// specification with a tiny test-local encoder; offsets in expected messages are counted
// by hand from those bytes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

#include "codec/schema_decoder.hpp"

namespace krow {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Test-local Avro binary encoder (see avro_decoder_test.cpp, where it is checked against
// the specification's examples).
class Bytes {
 public:
  Bytes& lng(int64_t v) {
    uint64_t u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    while (u >= 0x80) {
      data_.push_back(static_cast<char>((u & 0x7f) | 0x80));
      u >>= 7;
    }
    data_.push_back(static_cast<char>(u));
    return *this;
  }
  Bytes& str(std::string_view s) {
    lng(static_cast<int64_t>(s.size()));
    data_.append(s);
    return *this;
  }
  Bytes& raw(std::string_view s) {
    data_.append(s);
    return *this;
  }
  Bytes& boolean(bool b) {
    data_.push_back(b ? 1 : 0);
    return *this;
  }
  const std::string& data() const { return data_; }

 private:
  std::string data_;
};

std::unique_ptr<SchemaDecoder> avro(std::string_view text, bool tagged = false) {
  ResolvedSchema s;
  s.text = std::string(text);
  return compile_avro(s, DecodeOptions{tagged});
}

bool decode(const SchemaDecoder& d, std::string_view bytes, std::string& out, std::string& error) {
  return d.decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out, error);
}

// The error of a decode that must fail; the error must be one non-empty line.
std::string error_of(const SchemaDecoder& d, std::string_view bytes) {
  std::string out;
  std::string error;
  EXPECT_FALSE(decode(d, bytes, out, error)) << "decoded to " << out;
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  return error;
}

std::string error_of(std::string_view schema, const Bytes& b) { return error_of(*avro(schema), b.data()); }

constexpr std::string_view kOrder = R"({
  "type": "record", "name": "Order", "namespace": "com.acme",
  "fields": [
    {"name": "id", "type": "long"},
    {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
      {"name": "name", "type": "string"}, {"name": "vip", "type": "boolean"}]}},
    {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
      {"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
    {"name": "tags", "type": {"type": "map", "values": "string"}},
    {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
    {"name": "note", "type": ["null", "string"]},
    {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "ratio", "type": "double"},
    {"name": "weight", "type": "float"},
    {"name": "id2", "type": {"type": "fixed", "name": "U", "size": 16, "logicalType": "uuid"}},
    {"name": "span", "type": {"type": "fixed", "name": "Span", "size": 12, "logicalType": "duration"}},
    {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 4}}
  ]})";

std::string order_bytes() {
  return Bytes()
      .lng(42)
      .str("Ann").boolean(true)
      .lng(-2).lng(8).str("A1").lng(2).str("B2").lng(-1).lng(1).str("C3").lng(5).lng(0)
      .lng(2).str("k").str("v").str("k2").str("").lng(0)
      .lng(1)
      .lng(1).str("fragile")
      .str("\xfe\x1d\xc6")
      .lng(1767225600123456)
      .lng(19723)
      .raw(std::string("\x9a\x99\x99\x99\x99\x99\xb9\x3f", 8))
      .raw(std::string("\x00\x00\xc0\x3f", 4))
      .raw(std::string(16, '\x11'))
      .raw(std::string("\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00", 12))
      .raw("\xde\xad\xbe\xef")
      .data();
}

TEST(AvroMalformed, TheReferenceMessageDecodes) {
  auto d = avro(kOrder);
  std::string out;
  std::string error;
  ASSERT_TRUE(decode(*d, order_bytes(), out, error)) << error;
  EXPECT_EQ(out,
            R"({"id":42,"customer":{"name":"Ann","vip":true},"lines":[{"sku":"A1","qty":2},{"sku":"B2","qty":-1},)"
            R"({"sku":"C3","qty":5}],"tags":{"k":"v","k2":""},"status":"PAID","note":"fragile","price":"-1234.50",)"
            R"("at":"2026-01-01T00:00:00.123456Z","day":"2024-01-01","ratio":0.1,"weight":1.5,)"
            R"("id2":"11111111-1111-1111-1111-111111111111","span":{"months":1,"days":2,"milliseconds":3},)"
            R"("hash":"3q2+7w=="})");
}

TEST(AvroMalformed, TruncatedAtEveryByteFailsCleanly) {
  const std::string full = order_bytes();
  for (bool tagged : {false, true}) {
    auto d = avro(kOrder, tagged);
    for (size_t len = 0; len < full.size(); ++len) {
      const std::string error = error_of(*d, std::string_view(full).substr(0, len));
      EXPECT_THAT(error, HasSubstr(" at byte ")) << "prefix of " << len << " bytes";
    }
  }
}

TEST(AvroMalformed, TruncationMessagesNameTheValueAndOffset) {
  EXPECT_EQ(error_of("\"long\"", Bytes().raw("\x80\x80")), "long at byte 0 is truncated: the payload ends at byte 2");
  EXPECT_EQ(error_of("\"double\"", Bytes().raw("\x01\x02\x03")),
            "double at byte 0 is truncated: the payload ends at byte 3");
  EXPECT_EQ(error_of(R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"float"}]})",
                     Bytes().lng(1).raw("\x01")),
            "float at byte 1 is truncated: the payload ends at byte 2 (in b)");
  EXPECT_EQ(error_of(R"({"type":"fixed","name":"F","size":4})", Bytes().raw("abc")),
            "fixed at byte 0 is truncated: the payload ends at byte 3");
}

TEST(AvroMalformed, HugeLengthsFailBeforeAnyAllocation) {
  EXPECT_EQ(error_of("\"string\"", Bytes().lng(int64_t{1} << 62).raw("abc")),
            "string at byte 0 declares 4611686018427387904 bytes, but only 3 are left");
  EXPECT_EQ(error_of("\"bytes\"", Bytes().lng(4).raw("abc")), "bytes at byte 0 declares 4 bytes, but only 3 are left");
  EXPECT_EQ(error_of("\"string\"", Bytes().lng(-1)), "string at byte 0 has a negative length -1");
  EXPECT_EQ(error_of(R"({"type":"map","values":"int"})", Bytes().lng(1).lng(100).raw("k")),
            "map key at byte 1 declares 100 bytes, but only 1 are left");
}

TEST(AvroMalformed, HugeBlockCountsFailFast) {
  EXPECT_EQ(error_of(R"({"type":"array","items":"long"})", Bytes().lng(int64_t{1} << 60).raw("abc")),
            "array block count at byte 0 is 1152921504606846976 items of at least 1 bytes each, but only 3 bytes "
            "are left");
  EXPECT_EQ(error_of(R"({"type":"array","items":"double"})", Bytes().lng(2).raw("12345678")),
            "array block count at byte 0 is 2 items of at least 8 bytes each, but only 8 bytes are left");
  EXPECT_EQ(error_of(R"({"type":"map","values":"long"})", Bytes().lng(3).str("a").lng(1)),
            "map block count at byte 0 is 3 items of at least 2 bytes each, but only 3 bytes are left");
  // A record of three longs takes at least 3 bytes.
  EXPECT_THAT(error_of(R"({"type":"array","items":{"type":"record","name":"R","fields":[
                 {"name":"a","type":"long"},{"name":"b","type":"long"},{"name":"c","type":"long"}]}})",
                       Bytes().lng(2).raw("12345")),
              HasSubstr("is 2 items of at least 3 bytes each, but only 5 bytes are left"));
  EXPECT_EQ(error_of(R"({"type":"array","items":"long"})", Bytes().raw("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01")),
            "array block count at byte 0 is out of range");
  EXPECT_EQ(error_of(R"({"type":"array","items":"long"})", Bytes().lng(-1).lng(50).lng(1)),
            "block byte size at byte 1 is 50, but only 1 bytes are left");
  EXPECT_EQ(error_of(R"({"type":"array","items":"long"})", Bytes().lng(-1).lng(2).lng(1).lng(0).lng(0)),
            "array block ends at byte 3, not at byte 4 as its byte size declares");
}

TEST(AvroMalformed, ItemsThatTakeNoBytesAreBoundedPerMessage) {
  EXPECT_EQ(error_of(R"({"type":"array","items":"null"})", Bytes().lng(int64_t{1} << 40).lng(0)),
            "array block count at byte 0 is 1099511627776 items that take no bytes, over the limit of 1048576 "
            "such items per message");
  // The limit holds across blocks and nested arrays: two blocks of 2^19 use it up.
  auto d = avro(R"({"type":"array","items":{"type":"array","items":{"type":"record","name":"E","fields":[]}}})");
  std::string out;
  std::string error;
  EXPECT_TRUE(decode(*d, Bytes().lng(2).lng(1 << 19).lng(0).lng(1 << 19).lng(0).lng(0).data(), out, error)) << error;
  EXPECT_THAT(error_of(*d, Bytes().lng(3).lng(1 << 19).lng(0).lng(1 << 19).lng(0).lng(1).lng(0).lng(0).data()),
              HasSubstr("is 1 items that take no bytes, over the limit of 1048576 such items per message (in [2])"));
}

TEST(AvroMalformed, BadUnionAndEnumIndices) {
  EXPECT_EQ(error_of(R"(["null","string"])", Bytes().lng(2)), "union index at byte 0 is 2, out of range for 2 branches");
  EXPECT_EQ(error_of(R"(["null","string"])", Bytes().lng(-1)),
            "union index at byte 0 is -1, out of range for 2 branches");
  EXPECT_EQ(error_of(R"({"type":"record","name":"R","fields":[{"name":"x","type":"int"},
                        {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}}]})",
                     Bytes().lng(300).lng(3)),
            "enum index at byte 2 is 3, out of range for 3 symbols (in e)");
  EXPECT_EQ(error_of(R"({"type":"enum","name":"E","symbols":["A"]})", Bytes().lng(-1)),
            "enum index at byte 0 is -1, out of range for 1 symbols");
}

TEST(AvroMalformed, InvalidUtf8) {
  for (std::string_view bad : {"\xc3\x28", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\xff"}) {
    EXPECT_EQ(error_of("\"string\"", Bytes().str(bad)), "string at byte 1 is not valid UTF-8");
  }
  // Offsets count from the payload start: id (1 byte), then the name's length (1 byte).
  std::string bytes = order_bytes();
  bytes[3] = '\xff';  // "Ann" → "A\xffn"
  EXPECT_EQ(error_of(*avro(kOrder), bytes), "string at byte 2 is not valid UTF-8 (in customer.name)");
  EXPECT_EQ(error_of(R"({"type":"map","values":"int"})", Bytes().lng(1).str("\xc3").lng(1).lng(0)),
            "map key at byte 2 is not valid UTF-8");
  // Bytes are not text: any byte is fine there.
  std::string out;
  std::string error;
  EXPECT_TRUE(decode(*avro("\"bytes\""), Bytes().str("\xc3\x28").data(), out, error));
}

TEST(AvroMalformed, ErrorPathThroughArraysMapsAndUnions) {
  constexpr std::string_view schema = R"({"type":"record","name":"R","fields":[
    {"name":"items","type":{"type":"array","items":{"type":"record","name":"I","fields":[
      {"name":"attrs","type":{"type":"map","values":["null","boolean"]}}]}}}]})";
  EXPECT_EQ(error_of(schema, Bytes().lng(2).lng(0).lng(1).str("k").lng(1).raw("\x07")),
            "boolean at byte 6 is 7, neither 0 nor 1 (in items[1].attrs[\"k\"])");
  // A long key is cut to 64 bytes in the path.
  EXPECT_EQ(error_of(R"({"type":"map","values":"boolean"})", Bytes().lng(1).str(std::string(100, 'k')).raw("\x05")),
            "boolean at byte 103 is 5, neither 0 nor 1 (in [\"" + std::string(64, 'k') + "...\"])");
}

TEST(AvroMalformed, TrailingBytes) {
  EXPECT_EQ(error_of("\"long\"", Bytes().lng(1).raw("xy")), "2 trailing bytes after the record at byte 1");
  EXPECT_EQ(error_of("\"null\"", Bytes().raw("x")), "1 trailing bytes after the record at byte 0");
  std::string bytes = order_bytes() + "!";
  EXPECT_THAT(error_of(*avro(kOrder), bytes), StartsWith("1 trailing bytes after the record at byte "));
}

// A linked list of `depth` records: Node{value, next: ["null", Node]}.
std::string list_bytes(int depth) {
  Bytes b;
  for (int i = 0; i < depth; ++i) b.lng(i).lng(i + 1 < depth ? 1 : 0);
  return b.data();
}

TEST(AvroMalformed, NestingTooDeep) {
  auto d = avro(R"({"type":"record","name":"Node","fields":[{"name":"value","type":"int"},
                   {"name":"next","type":["null","Node"]}]})");
  std::string out;
  std::string error;
  EXPECT_TRUE(decode(*d, list_bytes(512), out, error)) << error;
  const std::string deep = error_of(*d, list_bytes(513));
  EXPECT_THAT(deep, StartsWith("value at byte "));
  EXPECT_THAT(deep, HasSubstr(" is nested deeper than 512 records, arrays and maps (in ...next.next."));
  // A hostile payload far deeper than the limit: stops at the limit, no stack exhaustion.
  EXPECT_THAT(error_of(*d, list_bytes(100000)), HasSubstr("nested deeper than 512"));
  auto arrays = avro(R"({"type":"record","name":"T","fields":[{"name":"c","type":{"type":"array","items":"T"}}]})");
  std::string nested;
  for (int i = 0; i < 100000; ++i) nested += Bytes().lng(1).data();
  EXPECT_THAT(error_of(*arrays, nested), HasSubstr("nested deeper than 512"));
}

TEST(AvroMalformed, BadVarintsBooleansTimesAndDecimals) {
  EXPECT_EQ(error_of("\"long\"", Bytes().raw("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01")),
            "long at byte 0 is longer than 10 bytes");
  EXPECT_EQ(error_of("\"long\"", Bytes().raw("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02")),
            "long at byte 0 overflows 64 bits");
  EXPECT_EQ(error_of("\"int\"", Bytes().raw("\xff\xff\xff\xff\x10")), "int at byte 0 overflows 32 bits");
  EXPECT_EQ(error_of("\"int\"", Bytes().raw("\x80\x80\x80\x80\x80\x01")), "int at byte 0 is longer than 5 bytes");
  EXPECT_EQ(error_of("\"boolean\"", Bytes().raw("\x02")), "boolean at byte 0 is 2, neither 0 nor 1");
  EXPECT_EQ(error_of(R"({"type":"int","logicalType":"time-millis"})", Bytes().lng(86400000)),
            "time-millis at byte 0 is 86400000, outside one day");
  EXPECT_EQ(error_of(R"({"type":"long","logicalType":"time-micros"})", Bytes().lng(-1)),
            "time-micros at byte 0 is -1, outside one day");
  EXPECT_EQ(error_of(R"({"type":"bytes","logicalType":"decimal","precision":9})", Bytes().str(std::string(1025, '\x01'))),
            "decimal at byte 2 has 1025 bytes, over the limit of 1024");
}

TEST(AvroMalformed, DecoderIsReusableAfterFailuresAndSharedAcrossThreads) {
  auto d = avro(kOrder);
  const std::string good = order_bytes();
  std::string expected;
  std::string error;
  ASSERT_TRUE(decode(*d, good, expected, error));
  error_of(*d, good.substr(0, 10));
  auto work = [&](bool* ok) {
    for (int i = 0; i < 2000; ++i) {
      std::string out;
      std::string err;
      if (!decode(*d, good, out, err) || out != expected) *ok = false;
      if (decode(*d, good.substr(0, i % good.size()), out, err)) *ok = false;
    }
  };
  bool ok1 = true;
  bool ok2 = true;
  std::thread t1(work, &ok1);
  std::thread t2(work, &ok2);
  t1.join();
  t2.join();
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
}

// ---- Schema compile errors ----

std::string compile_error(std::string_view text) {
  try {
    avro(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "compiled: " << text;
  return "";
}

TEST(AvroSchemaErrors, InvalidSchemasAreRefusedWithAReason) {
  EXPECT_THAT(compile_error("{"), StartsWith("Avro schema: not valid JSON"));
  EXPECT_EQ(compile_error("\"Foo\""), "Avro schema: unknown type \"Foo\"");
  EXPECT_EQ(compile_error(R"({"type":"record","name":"R","namespace":"n","fields":[{"name":"a","type":"Missing"}]})"),
            "Avro schema: unknown type \"Missing\" (namespace \"n\")");
  EXPECT_EQ(compile_error(R"({"type":"record","name":"R"})"), "Avro schema: record \"R\" has no \"fields\" array");
  EXPECT_EQ(compile_error(R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]})"),
            "Avro schema: record \"R\" has two fields named \"a\"");
  EXPECT_EQ(compile_error(R"({"type":"record","name":"R","fields":[{"name":"a"}]})"),
            "Avro schema: field \"a\" of record \"R\" has no \"type\"");
  EXPECT_EQ(compile_error(R"(["null",["int"]])"), "Avro schema: a union may not contain a union directly");
  EXPECT_EQ(compile_error(R"(["int","string","int"])"), "Avro schema: a union holds the same type twice: \"int\"");
  EXPECT_EQ(compile_error(R"(["long",{"type":"long","logicalType":"timestamp-millis"}])"),
            "Avro schema: a union holds the same type twice: \"long\"");
  EXPECT_EQ(compile_error(R"({"type":"enum","name":"E","symbols":["A","A"]})"),
            "Avro schema: enum \"E\" repeats the symbol \"A\"");
  EXPECT_EQ(compile_error(R"({"type":"fixed","name":"F","size":-1})"),
            "Avro schema: fixed \"F\" needs a \"size\" between 0 and 2^31-1");
  EXPECT_EQ(compile_error(R"({"type":"array"})"), "Avro schema: array without \"items\"");
  EXPECT_EQ(compile_error(R"({"type":"map"})"), "Avro schema: map without \"values\"");
  EXPECT_THAT(compile_error(R"({"name":"x"})"), StartsWith("Avro schema: object without \"type\""));
  EXPECT_THAT(compile_error("42"), StartsWith("Avro schema: a schema must be a type name"));
  EXPECT_THAT(compile_error(R"({"type":"record","fields":[]})"), StartsWith("Avro schema: record without a \"name\""));
  EXPECT_EQ(compile_error(R"(["null",{"type":"fixed","name":"F","size":1},{"type":"fixed","name":"F","size":2}])"),
            "Avro schema: type \"F\" is defined twice with different definitions");
  std::string deep;
  for (int i = 0; i < 500; ++i) deep += R"({"type":"array","items":)";
  deep += "\"int\"";
  for (int i = 0; i < 500; ++i) deep += "}";
  EXPECT_EQ(compile_error(deep), "Avro schema: nested deeper than 400 levels");
}

TEST(AvroSchemaErrors, ReferenceProblems) {
  ResolvedSchema root;
  root.text = "\"int\"";
  root.references.push_back({"missing", nullptr});
  EXPECT_THROW(compile_avro(root, DecodeOptions{}), std::invalid_argument);

  auto bad = std::make_shared<ResolvedSchema>();
  bad->text = R"({"type":"record","name":"B","fields":[{"name":"x","type":"Nope"}]})";
  ResolvedSchema with_bad;
  with_bad.text = "\"B\"";
  with_bad.references.push_back({"bad-subject", bad});
  try {
    compile_avro(with_bad, DecodeOptions{});
    ADD_FAILURE() << "compiled";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Avro schema: unknown type \"Nope\" (in reference \"bad-subject\")");
  }

  auto proto = std::make_shared<ResolvedSchema>();
  proto->type = SchemaType::protobuf;
  proto->text = "syntax = \"proto3\";";
  ResolvedSchema with_proto;
  with_proto.text = "\"int\"";
  with_proto.references.push_back({"p.proto", proto});
  EXPECT_THROW(compile_avro(with_proto, DecodeOptions{}), std::invalid_argument);

  ResolvedSchema not_avro;
  not_avro.type = SchemaType::json;
  not_avro.text = "{}";
  EXPECT_THROW(compile_avro(not_avro, DecodeOptions{}), std::invalid_argument);
}

}  // namespace
}  // namespace krow
