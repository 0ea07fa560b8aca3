// Protobuf decoding (codec/protobuf): every scalar type, 64-bit extremes, bytes, enums,
// oneofs, maps, repeated fields, default values, well-known types, Confluent's Decimal,
// proto2 specifics, and malformed payloads. Payloads are built with protobuf's own API (a
// DynamicMessage filled from text format, then SerializeToString), which shares nothing
// with krow's JSON printer, or written byte by byte. Expected JSON is written by hand, and
// every decode is also run through decode_reference() (protobuf's parser and Reflection),
// which must agree.

#include <gmock/gmock.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "codec/protobuf/protobuf_decoder.hpp"
#include "codec/protobuf/schema_pool.hpp"
#include "codec/schema_decoder.hpp"

namespace krow {
namespace {

namespace gpb = google::protobuf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

ResolvedSchema proto_schema(std::string text) {
  ResolvedSchema s;
  s.type = SchemaType::protobuf;
  s.id = 7;
  s.text = std::move(text);
  return s;
}

// The message-index list as Confluent's serializers write it: zig-zag varints, count first;
// the list [0] as the single byte 0x00.
std::string index_list(const std::vector<int>& indexes) {
  auto zigzag = [](std::string& out, int64_t v) {
    uint64_t u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    while (u >= 0x80) {
      out.push_back(static_cast<char>((u & 0x7f) | 0x80));
      u >>= 7;
    }
    out.push_back(static_cast<char>(u));
  };
  std::string out;
  if (indexes == std::vector<int>{0}) return std::string(1, '\0');
  zigzag(out, static_cast<int64_t>(indexes.size()));
  for (const int i : indexes) zigzag(out, i);
  return out;
}

struct Result {
  bool ok = false;
  std::string json;
  std::string error;
};

class ProtobufDecodeTest : public ::testing::Test {
 protected:
  void compile(std::string text) {
    schema_ = proto_schema(std::move(text));
    decoder_ = compile_protobuf(schema_, {});
    pool_ = std::make_unique<pb::SchemaPool>(schema_);
  }

  // Serializes the message of type `type` written in protobuf's text format.
  std::string wire(std::string_view type, std::string_view text) {
    const gpb::Descriptor* d = pool_->pool().FindMessageTypeByName(std::string(type));
    EXPECT_NE(d, nullptr) << type;
    if (d == nullptr) return {};
    std::unique_ptr<gpb::Message> m(factory_.GetPrototype(d)->New());
    EXPECT_TRUE(gpb::TextFormat::ParseFromString(std::string(text), m.get())) << text;
    return m->SerializeAsString();
  }

  // Decodes with decode() and checks that protobuf's own road, decode_reference(), agrees.
  Result decode_bytes(std::string_view payload) {
    Result r;
    r.json = "kept";  // decode appends
    const auto* data = reinterpret_cast<const uint8_t*>(payload.data());
    r.ok = decoder_->decode(data, payload.size(), r.json, r.error);
    EXPECT_EQ(r.json.substr(0, 4), "kept");
    r.json.erase(0, 4);
    std::string reference, reference_error;
    const bool reference_ok =
        static_cast<const pb::ProtobufDecoder&>(*decoder_).decode_reference(data, payload.size(), reference, reference_error);
    EXPECT_EQ(reference_ok, r.ok) << r.error << " / " << reference_error;
    if (reference_ok && r.ok) {
      EXPECT_EQ(reference, r.json);
    }
    return r;
  }

  // Decodes `text` as the message `type`, selected by `indexes`; expects success.
  std::string json(std::string_view type, std::string_view text, const std::vector<int>& indexes = {0}) {
    const Result r = decode_bytes(index_list(indexes) + wire(type, text));
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.error, "");
    return r.json;
  }

  std::string error_of(std::string_view payload) {
    const Result r = decode_bytes(payload);
    EXPECT_FALSE(r.ok) << r.json;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << "one line: " << r.error;
    return r.error;
  }

  ResolvedSchema schema_;
  std::unique_ptr<SchemaDecoder> decoder_;
  std::unique_ptr<pb::SchemaPool> pool_;
  gpb::DynamicMessageFactory factory_;
};

constexpr const char* kScalars = R"proto(
syntax = "proto3";
package t;
enum Color { COLOR_UNSPECIFIED = 0; RED = 1; GREEN = 2; }
message Scalars {
  int32 i32 = 1;
  int64 i64 = 2;
  uint32 u32 = 3;
  uint64 u64 = 4;
  sint32 s32 = 5;
  sint64 s64 = 6;
  fixed32 f32 = 7;
  fixed64 f64 = 8;
  sfixed32 sf32 = 9;
  sfixed64 sf64 = 10;
  float fl = 11;
  double db = 12;
  bool b = 13;
  string s = 14;
  bytes by = 15;
  Color color = 16;
}
)proto";

TEST_F(ProtobufDecodeTest, DefaultValuesArePresent) {
  compile(kScalars);
  EXPECT_EQ(json("t.Scalars", ""),
            R"({"i32":0,"i64":"0","u32":0,"u64":"0","s32":0,"s64":"0","f32":0,"f64":"0","sf32":0,"sf64":"0",)"
            R"("fl":0,"db":0,"b":false,"s":"","by":"","color":"COLOR_UNSPECIFIED"})");
}

TEST_F(ProtobufDecodeTest, ScalarValues) {
  compile(kScalars);
  EXPECT_EQ(json("t.Scalars", R"(i32: -42 i64: 1234567890123 u32: 4294967295 u64: 7 s32: -2147483648
                                s64: -5 f32: 4000000000 f64: 99 sf32: -1 sf64: -99 fl: 1.5 db: 0.1 b: true
                                s: "h\303\251 \"q\" \\ \n" by: "\000\377" color: GREEN)"),
            R"({"i32":-42,"i64":"1234567890123","u32":4294967295,"u64":"7","s32":-2147483648,"s64":"-5",)"
            R"("f32":4000000000,"f64":"99","sf32":-1,"sf64":"-99","fl":1.5,"db":0.1,"b":true,)"
            R"("s":"hé \"q\" \\ \n","by":"AP8=","color":"GREEN"})");
}

TEST_F(ProtobufDecodeTest, SixtyFourBitExtremesAreExactStrings) {
  compile(kScalars);
  EXPECT_EQ(json("t.Scalars", "i64: -9223372036854775808 u64: 18446744073709551615 s64: 9223372036854775807 "
                              "f64: 18446744073709551615 sf64: -9223372036854775808"),
            R"({"i32":0,"i64":"-9223372036854775808","u32":0,"u64":"18446744073709551615","s32":0,)"
            R"("s64":"9223372036854775807","f32":0,"f64":"18446744073709551615","sf32":0,)"
            R"("sf64":"-9223372036854775808","fl":0,"db":0,"b":false,"s":"","by":"","color":"COLOR_UNSPECIFIED"})");
}

TEST_F(ProtobufDecodeTest, FloatsKeepShortestTextAndNonFiniteAsStrings) {
  compile(kScalars);
  EXPECT_THAT(json("t.Scalars", "fl: 0.1 db: 1e-07"), HasSubstr(R"("fl":0.1,"db":1e-07,)"));
  EXPECT_THAT(json("t.Scalars", "fl: 3e+38 db: 123456789.125"), HasSubstr(R"("fl":3e+38,"db":123456789.125,)"));
  EXPECT_THAT(json("t.Scalars", "fl: nan db: -inf"), HasSubstr(R"("fl":"NaN","db":"-Infinity",)"));
  EXPECT_THAT(json("t.Scalars", "db: inf"), HasSubstr(R"("db":"Infinity",)"));
}

TEST_F(ProtobufDecodeTest, BytesAreBase64) {
  compile(kScalars);
  EXPECT_THAT(json("t.Scalars", R"(by: "f")"), HasSubstr(R"("by":"Zg==")"));
  EXPECT_THAT(json("t.Scalars", R"(by: "fo")"), HasSubstr(R"("by":"Zm8=")"));
  EXPECT_THAT(json("t.Scalars", R"(by: "foobar")"), HasSubstr(R"("by":"Zm9vYmFy")"));
}

TEST_F(ProtobufDecodeTest, UnknownEnumNumberIsPrintedAsNumber) {
  compile(kScalars);
  // Field 16 (color), varint 7: a number the schema's enum does not name.
  const std::string payload = std::string(1, '\0') + "\x80\x01\x07";
  const Result r = decode_bytes(payload);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.json, HasSubstr(R"("color":7})"));
}

TEST_F(ProtobufDecodeTest, UnknownFieldsAreIgnored) {
  compile(kScalars);
  // Field 1 (i32) = 5, then unknown fields 99 (varint), 100 (bytes), 101 (fixed32),
  // 102 (fixed64) and 103 (a group holding a varint).
  const std::string payload = std::string(1, '\0') + std::string("\x08\x05", 2) + "\x98\x06\x01" +
                              "\xa2\x06\x02hi" + "\xad\x06" + std::string(4, 'x') + "\xb1\x06" +
                              std::string(8, 'y') + "\xbb\x06\x08\x01\xbc\x06";
  const Result r = decode_bytes(payload);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.json, StartsWith(R"({"i32":5,"i64":"0",)"));
}

constexpr const char* kShapes = R"proto(
syntax = "proto3";
package t;
enum Size { SIZE_UNSPECIFIED = 0; SMALL = 1; LARGE = 2; }
message Shapes {
  oneof choice {
    string text = 1;
    int64 number = 2;
    Item item = 3;
  }
  repeated int32 ints = 4;
  repeated string words = 5;
  repeated Item items = 6;
  repeated Size sizes = 7;
  map<string, int32> by_name = 8;
  map<int64, string> by_id = 9;
  map<bool, Item> by_flag = 10;
  map<uint32, Size> size_of = 11;
  Item single = 12;
  optional int32 maybe = 13;
  repeated int64 longs = 14;
  repeated double doubles = 15;
  repeated bytes blobs = 16;
}
message Item {
  string name = 1;
  int32 qty = 2;
}
)proto";

TEST_F(ProtobufDecodeTest, EmptyContainersAndUnsetPresenceFields) {
  compile(kShapes);
  // Unset oneof, message and proto3-optional fields are absent; repeated fields and maps
  // are always present.
  EXPECT_EQ(json("t.Shapes", ""),
            R"({"ints":[],"words":[],"items":[],"sizes":[],"by_name":{},"by_id":{},"by_flag":{},"size_of":{},)"
            R"("longs":[],"doubles":[],"blobs":[]})");
}

TEST_F(ProtobufDecodeTest, Oneof) {
  compile(kShapes);
  EXPECT_THAT(json("t.Shapes", R"(text: "hi")"), StartsWith(R"({"text":"hi","ints":[])"));
  EXPECT_THAT(json("t.Shapes", "number: -3"), StartsWith(R"({"number":"-3","ints":[])"));
  EXPECT_THAT(json("t.Shapes", "item { name: \"a\" }"), StartsWith(R"({"item":{"name":"a","qty":0},"ints":[])"));
  // The last member on the wire wins.
  const Result last = decode_bytes(std::string(1, '\0') + wire("t.Shapes", R"(text: "x")") + wire("t.Shapes", "number: 9"));
  ASSERT_TRUE(last.ok) << last.error;
  EXPECT_THAT(last.json, StartsWith(R"({"number":"9","ints":[])"));
  // A member set to its default value is still present.
  EXPECT_THAT(json("t.Shapes", R"(text: "")"), StartsWith(R"({"text":"","ints":[])"));
}

TEST_F(ProtobufDecodeTest, RepeatedFields) {
  compile(kShapes);
  EXPECT_EQ(json("t.Shapes", R"(ints: [1, -2, 3] words: ["a", "b"] items { name: "x" qty: 1 } items { }
                               sizes: [LARGE, SMALL, 5] longs: [-1, 2] doubles: [0.5, 2] blobs: ["\001", ""])"),
            R"({"ints":[1,-2,3],"words":["a","b"],"items":[{"name":"x","qty":1},{"name":"","qty":0}],)"
            R"("sizes":["LARGE","SMALL",5],"by_name":{},"by_id":{},"by_flag":{},"size_of":{},)"
            R"("longs":["-1","2"],"doubles":[0.5,2],"blobs":["AQ==",""]})");
}

TEST_F(ProtobufDecodeTest, MapsAreSortedByKey) {
  compile(kShapes);
  EXPECT_EQ(json("t.Shapes", R"(by_name { key: "zeta" value: 1 } by_name { key: "alpha" value: 2 }
                               by_name { key: "" value: 3 }
                               by_id { key: 10 value: "ten" } by_id { key: -5 value: "minus five" }
                               by_id { key: 2 value: "two" }
                               by_flag { key: true value { name: "t" } } by_flag { key: false value { qty: 4 } }
                               size_of { key: 4294967295 value: LARGE } size_of { key: 0 value: SMALL })"),
            R"({"ints":[],"words":[],"items":[],"sizes":[],"by_name":{"":3,"alpha":2,"zeta":1},)"
            R"("by_id":{"-5":"minus five","2":"two","10":"ten"},)"
            R"("by_flag":{"false":{"name":"","qty":4},"true":{"name":"t","qty":0}},)"
            R"("size_of":{"0":"SMALL","4294967295":"LARGE"},"longs":[],"doubles":[],"blobs":[]})");
}

TEST_F(ProtobufDecodeTest, MapDuplicateKeyKeepsLastValue) {
  compile(kShapes);
  EXPECT_THAT(json("t.Shapes", R"(by_name { key: "k" value: 1 } by_name { key: "k" value: 2 })"),
              HasSubstr(R"("by_name":{"k":2})"));
}

TEST_F(ProtobufDecodeTest, SingularMessageAndOptional) {
  compile(kShapes);
  EXPECT_THAT(json("t.Shapes", R"(single { name: "s" } maybe: 0)"),
              HasSubstr(R"("size_of":{},"single":{"name":"s","qty":0},"maybe":0,"longs")"));
}

TEST_F(ProtobufDecodeTest, PackedAndUnpackedRepeatedFieldsAreBothAccepted) {
  compile(kShapes);
  // Field 4 (ints) unpacked: 20 01, 20 02; then packed: 22 02 03 04; then unpacked again.
  // Field 7 (sizes, an enum) packed with a number the enum does not name (proto3 keeps it).
  const std::string payload = std::string(1, '\0') + std::string("\x20\x01\x20\x02\x22\x02\x03\x04\x20\x05", 10) +
                              std::string("\x3a\x03\x02\x01\x09", 5);
  const Result r = decode_bytes(payload);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.json, StartsWith(R"({"ints":[1,2,3,4,5],"words":[],"items":[],"sizes":["LARGE","SMALL",9],)"));
  // A packed run cut inside a varint is malformed.
  EXPECT_EQ(error_of(std::string(1, '\0') + std::string("\x22\x02\x03\x80", 4)),
            "invalid wire data at byte 4: truncated or overlong packed varint");
}

TEST_F(ProtobufDecodeTest, FieldsSentTwiceFollowProtobufRules) {
  compile(kShapes);
  // Two serialized messages back to back are their merge: singular scalars take the last
  // value, messages merge field by field, repeated fields and maps append.
  const std::string payload = std::string(1, '\0') +
                              wire("t.Shapes", R"(single { name: "a" qty: 1 } ints: 1 by_name { key: "k" value: 1 } maybe: 1)") +
                              wire("t.Shapes", R"(single { qty: 2 } ints: 2 by_name { key: "k" value: 2 } maybe: 3)");
  const Result r = decode_bytes(payload);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.json, R"({"ints":[1,2],"words":[],"items":[],"sizes":[],"by_name":{"k":2},"by_id":{},"by_flag":{},)"
                    R"("size_of":{},"single":{"name":"a","qty":2},"maybe":3,"longs":[],"doubles":[],"blobs":[]})");
  // A oneof message member merges only the parts sent after another member.
  const std::string oneof = std::string(1, '\0') + wire("t.Shapes", R"(item { name: "old" qty: 7 })") +
                            wire("t.Shapes", R"(text: "between")") + wire("t.Shapes", R"(item { name: "new" })");
  const Result o = decode_bytes(oneof);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_THAT(o.json, StartsWith(R"({"item":{"name":"new","qty":0},"ints":[])"));
}

TEST_F(ProtobufDecodeTest, KnownFieldWithAnotherWireTypeIsSkippedAsUnknown) {
  compile(kScalars);
  // Field 14 (s, a string) sent as a varint, field 1 (i32) sent as fixed32: both are
  // unknown fields to protobuf, so the defaults stay.
  const std::string payload = std::string(1, '\0') + std::string("\x70\x05\x0d\x01\x00\x00\x00", 7);
  const Result r = decode_bytes(payload);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.json, StartsWith(R"({"i32":0,)"));
  EXPECT_THAT(r.json, HasSubstr(R"("s":"",)"));
}

constexpr const char* kNesting = R"proto(
syntax = "proto3";
package nest;
message First {
  string a = 1;
  message Alpha { int32 v = 1; }
  map<string, string> labels = 2;
  message Beta { string w = 1; }
}
message Second { bool flag = 1; }
message Third {
  message Middle {
    message Leaf1 { int32 one = 1; }
    map<int32, string> m = 1;
    message Leaf2 { string two = 1; }
  }
}
)proto";

TEST_F(ProtobufDecodeTest, MessageIndexesSelectNestedMessages) {
  compile(kNesting);
  EXPECT_EQ(json("nest.First", R"(a: "x")", {0}), R"({"a":"x","labels":{}})");
  EXPECT_EQ(json("nest.Second", "flag: true", {1}), R"({"flag":true})");
  EXPECT_EQ(json("nest.First.Alpha", "v: 3", {0, 0}), R"({"v":3})");
  // Map fields' synthetic entry types count, where the map field is declared, as
  // Confluent's serializers index them: Beta is First's third nested type.
  EXPECT_EQ(json("nest.First.Beta", R"(w: "b")", {0, 2}), R"({"w":"b"})");
  EXPECT_EQ(json("nest.Third.Middle", "", {2, 0}), R"({"m":{}})");
  EXPECT_EQ(json("nest.Third.Middle.Leaf1", "one: 1", {2, 0, 0}), R"({"one":1})");
  EXPECT_EQ(json("nest.Third.Middle.Leaf2", R"(two: "2")", {2, 0, 2}), R"({"two":"2"})");
}

TEST_F(ProtobufDecodeTest, SingleZeroByteAndExplicitZeroIndexAgree) {
  compile(kNesting);
  const std::string body = wire("nest.First", R"(a: "same")");
  const Result shortcut = decode_bytes(std::string(1, '\0') + body);
  const Result explicit_list = decode_bytes(std::string("\x02\x00", 2) + body);
  ASSERT_TRUE(shortcut.ok) << shortcut.error;
  ASSERT_TRUE(explicit_list.ok) << explicit_list.error;
  EXPECT_EQ(shortcut.json, R"({"a":"same","labels":{}})");
  EXPECT_EQ(explicit_list.json, shortcut.json);
}

TEST_F(ProtobufDecodeTest, BadMessageIndexLists) {
  compile(kNesting);
  EXPECT_EQ(error_of(""), "truncated message-index list");
  EXPECT_EQ(error_of("\x80"), "truncated message-index list");
  EXPECT_EQ(error_of("\x01"), "bad message-index count -1");
  EXPECT_EQ(error_of("\xca\x01"), "bad message-index count 101");
  EXPECT_EQ(error_of("\x04\x02"), "truncated message-index list");  // two announced, one given
  EXPECT_EQ(error_of("\x02\x06"), "message index 3 out of range: the schema has 3 top-level messages");
  EXPECT_EQ(error_of("\x02\x01"), "message index -1 out of range: the schema has 3 top-level messages");
  EXPECT_EQ(error_of(std::string_view("\x04\x00\x06", 3)), "message index 3 out of range: nest.First has 3 nested messages");
  EXPECT_EQ(error_of(std::string_view("\x04\x02\x00", 3)), "message index 0 out of range: nest.Second has 0 nested messages");
  EXPECT_EQ(error_of("\x02\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
            "overlong varint in message-index list");  // 11 bytes
}

TEST_F(ProtobufDecodeTest, MalformedWireData) {
  compile(kScalars);
  const std::string z(1, '\0');
  // Field 14 (s) announces 5 bytes, 2 follow.
  EXPECT_EQ(error_of(z + "\x72\x05hi"), "invalid wire data at byte 1: length runs past the end of the data");
  // A varint cut short, then a fixed64 cut short.
  EXPECT_EQ(error_of(z + "\x08\x80"), "invalid wire data at byte 1: truncated or overlong varint");
  EXPECT_EQ(error_of(z + "\x08\x01\x41\x01\x02"), "invalid wire data at byte 3: truncated 8-byte value");
  // Wire types 6 and 7 do not exist; field number 0 neither.
  EXPECT_EQ(error_of(z + "\x0e"), "invalid wire data at byte 1: invalid wire type");
  EXPECT_EQ(error_of(z + "\x07"), "invalid wire data at byte 1: field number 0");
  // An end-group tag with no group open, a group never closed.
  EXPECT_EQ(error_of(z + "\x0c"), "invalid wire data at byte 1: unexpected end-group tag");
  EXPECT_EQ(error_of(z + "\x0b\x08\x01"), "invalid wire data at byte 4: group not closed");
  // A huge length.
  // 2^32 - 1 is no 32-bit size: out of range before it could run past the end.
  EXPECT_EQ(error_of(z + "\x72\xff\xff\xff\xff\x0f"), "invalid wire data at byte 1: length out of range");
  // A proto3 string that is not UTF-8 (protobuf would reject it too, after logging).
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(error_of(z + "\x72\x02\xc3\x28"), "invalid wire data at byte 3: string field t.Scalars.s is not valid UTF-8");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST_F(ProtobufDecodeTest, TruncatedPayloadsNeverSucceedSilently) {
  compile(kShapes);
  const std::string full = std::string(1, '\0') +
                           wire("t.Shapes", R"(text: "abcdef" items { name: "x" qty: 1 } by_name { key: "k" value: 3 })");
  ASSERT_TRUE(decode_bytes(full).ok);
  // Every cut inside the last field breaks it; cuts at field boundaries are valid shorter
  // messages. Either way nothing crashes and a failure has a reason.
  for (size_t n = 0; n < full.size(); ++n) {
    const Result r = decode_bytes(std::string_view(full).substr(0, n));
    if (!r.ok) {
      EXPECT_FALSE(r.error.empty()) << n;
    }
  }
}

constexpr const char* kRecursive = R"proto(
syntax = "proto3";
package rec;
message Node {
  Node child = 1;
  int32 depth = 2;
}
)proto";

TEST_F(ProtobufDecodeTest, DeepNestingIsAnErrorNotACrash) {
  compile(kRecursive);
  // Builds Node{child: Node{child: ...}} by hand, `levels` deep.
  auto nested = [](int levels) {
    std::string inner;
    for (int i = 0; i < levels; ++i) {
      std::string outer = "\x0a";
      size_t len = inner.size();
      while (len >= 0x80) {
        outer.push_back(static_cast<char>((len & 0x7f) | 0x80));
        len >>= 7;
      }
      outer.push_back(static_cast<char>(len));
      inner = outer + inner;
    }
    return std::string(1, '\0') + inner;
  };
  const Result ok = decode_bytes(nested(50));
  ASSERT_TRUE(ok.ok) << ok.error;
  EXPECT_THAT(ok.json, StartsWith(R"({"child":{"child":{"child":)"));
  EXPECT_THAT(error_of(nested(5000)), HasSubstr("messages nest deeper than 100 levels"));
}

TEST_F(ProtobufDecodeTest, OutputGrowthIsBounded) {
  // An empty Wide prints all 200 of its fields (about 4 KB of JSON from 2 bytes of wire
  // data): 2,000 of them would be 8 MB from 4 KB, beyond 1 MiB + 64 times the payload.
  std::string text = "syntax = \"proto3\";\npackage amp;\nmessage Holder { repeated Wide w = 1; }\nmessage Wide {\n";
  for (int i = 1; i <= 200; ++i) text += "  int32 field_number_" + std::to_string(i) + " = " + std::to_string(i) + ";\n";
  compile(text + "}\n");
  std::string payload(1, '\0');
  for (int i = 0; i < 2000; ++i) payload += std::string("\x0a\x00", 2);
  EXPECT_EQ(error_of(payload), "JSON text would be larger than 1 MiB plus 64 times the payload");
  // A hundred are fine.
  const Result r = decode_bytes(std::string(1, '\0') + payload.substr(1, 200));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_GT(r.json.size(), 300000u);
}

constexpr const char* kWellKnown = R"proto(
syntax = "proto3";
package wkt;
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/wrappers.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/any.proto";
import "google/protobuf/field_mask.proto";
import "google/protobuf/empty.proto";
message Event {
  google.protobuf.Timestamp at = 1;
  google.protobuf.Duration took = 2;
  google.protobuf.Int64Value i64 = 3;
  google.protobuf.StringValue str = 4;
  google.protobuf.BoolValue flag = 5;
  google.protobuf.BytesValue raw = 6;
  google.protobuf.DoubleValue dbl = 7;
  google.protobuf.UInt64Value u64 = 8;
  google.protobuf.Int32Value i32 = 9;
  google.protobuf.Struct attrs = 10;
  google.protobuf.Value any_value = 11;
  google.protobuf.ListValue list = 12;
  google.protobuf.Any payload = 13;
  google.protobuf.FieldMask mask = 14;
  google.protobuf.Empty nothing = 15;
  repeated google.protobuf.Timestamp history = 16;
  google.protobuf.NullValue null = 17;
}
message Point { int32 x = 1; int32 y = 2; }
)proto";

TEST_F(ProtobufDecodeTest, Timestamps) {
  compile(kWellKnown);
  EXPECT_EQ(json("wkt.Event", "at { seconds: 1730803261 nanos: 482000000 }"),
            R"({"at":"2024-11-05T10:41:01.482Z","history":[],"null":null})");
  EXPECT_EQ(json("wkt.Event", "at { }"), R"({"at":"1970-01-01T00:00:00Z","history":[],"null":null})");
  EXPECT_EQ(json("wkt.Event", "at { seconds: -1 nanos: 1000 }"), R"({"at":"1969-12-31T23:59:59.000001Z","history":[],"null":null})");
  EXPECT_EQ(json("wkt.Event", "at { seconds: 951782400 nanos: 5 }"), R"({"at":"2000-02-29T00:00:00.000000005Z","history":[],"null":null})");
  EXPECT_EQ(json("wkt.Event", "at { seconds: -62135596800 }"), R"({"at":"0001-01-01T00:00:00Z","history":[],"null":null})");
  EXPECT_EQ(json("wkt.Event", "at { seconds: 253402300799 nanos: 999999999 }"),
            R"({"at":"9999-12-31T23:59:59.999999999Z","history":[],"null":null})");
  EXPECT_EQ(json("wkt.Event", "history { seconds: 0 } history { seconds: 86400 }"),
            R"({"history":["1970-01-01T00:00:00Z","1970-01-02T00:00:00Z"],"null":null})");
  const Result r = decode_bytes(std::string(1, '\0') + wire("wkt.Event", "at { seconds: 253402300800 }"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "google.protobuf.Timestamp out of range (seconds 253402300800, nanos 0)");
  EXPECT_FALSE(decode_bytes(std::string(1, '\0') + wire("wkt.Event", "at { nanos: -1 }")).ok);
}

TEST_F(ProtobufDecodeTest, Durations) {
  compile(kWellKnown);
  EXPECT_EQ(json("wkt.Event", "took { seconds: 1 nanos: 340012 }"), R"({"took":"1.000340012s","history":[],"null":null})");
  EXPECT_EQ(json("wkt.Event", "took { seconds: -3 nanos: -500000000 }"), R"({"took":"-3.500s","history":[],"null":null})");
  EXPECT_EQ(json("wkt.Event", "took { nanos: -1000 }"), R"({"took":"-0.000001s","history":[],"null":null})");
  EXPECT_EQ(json("wkt.Event", "took { }"), R"({"took":"0s","history":[],"null":null})");
  EXPECT_FALSE(decode_bytes(std::string(1, '\0') + wire("wkt.Event", "took { seconds: 1 nanos: -1 }")).ok);
}

TEST_F(ProtobufDecodeTest, Wrappers) {
  compile(kWellKnown);
  EXPECT_EQ(json("wkt.Event", R"(i64 { value: -9223372036854775808 } str { value: "s" } flag { } raw { value: "\377" }
                                dbl { value: 2.5 } u64 { value: 18446744073709551615 } i32 { value: -1 })"),
            R"({"i64":"-9223372036854775808","str":"s","flag":false,"raw":"/w==","dbl":2.5,)"
            R"("u64":"18446744073709551615","i32":-1,"history":[],"null":null})");
}

TEST_F(ProtobufDecodeTest, StructValueAndListValue) {
  compile(kWellKnown);
  EXPECT_EQ(json("wkt.Event", R"(attrs { fields { key: "b" value { bool_value: true } }
                                         fields { key: "a" value { list_value { values { number_value: 1 }
                                                                               values { null_value: NULL_VALUE }
                                                                               values { string_value: "x" } } } }
                                         fields { key: "c" value { struct_value { fields { key: "d" value { } } } } } }
                                any_value { number_value: 0.25 }
                                list { })"),
            R"({"attrs":{"a":[1,null,"x"],"b":true,"c":{"d":null}},"any_value":0.25,"list":[],"history":[],"null":null})");
}

TEST_F(ProtobufDecodeTest, AnyOfSchemaTypeAndOfWellKnownType) {
  compile(kWellKnown);
  EXPECT_EQ(json("wkt.Event", R"(payload { [type.googleapis.com/wkt.Point] { x: 1 y: -2 } })"),
            R"({"payload":{"@type":"type.googleapis.com/wkt.Point","x":1,"y":-2},"history":[],"null":null})");
  EXPECT_EQ(json("wkt.Event", R"(payload { [type.googleapis.com/google.protobuf.Duration] { seconds: 5 } })"),
            R"({"payload":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"5s"},"history":[],"null":null})");
  EXPECT_EQ(json("wkt.Event", "payload { }"), R"({"payload":{},"history":[],"null":null})");
  const Result r = decode_bytes(std::string(1, '\0') +
                                wire("wkt.Event", R"(payload { type_url: "type.googleapis.com/other.Thing" value: "\010\001" })"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, R"(google.protobuf.Any holds type "other.Thing", which the schema does not define)");
  const Result bad = decode_bytes(std::string(1, '\0') +
                                  wire("wkt.Event", R"(payload { type_url: "type.googleapis.com/wkt.Point" value: "\010" })"));
  EXPECT_FALSE(bad.ok);
  EXPECT_THAT(bad.error, StartsWith("google.protobuf.Any value of type wkt.Point: invalid wire data at byte 0: truncated"));
}

TEST_F(ProtobufDecodeTest, FieldMaskAndEmpty) {
  compile(kWellKnown);
  EXPECT_EQ(json("wkt.Event", R"(mask { paths: "user.display_name" paths: "id" } nothing { })"),
            R"({"mask":"user.displayName,id","nothing":{},"history":[],"null":null})");
}

constexpr const char* kDecimal = R"proto(
syntax = "proto3";
package money;
import "confluent/type/decimal.proto";
import "confluent/meta.proto";
message Price {
  confluent.type.Decimal amount = 1 [(confluent.field_meta) = { params: [ { key: "precision" value: "5" },
                                                                          { key: "scale" value: "2" } ] }];
  repeated confluent.type.Decimal history = 2;
  map<string, confluent.type.Decimal> by_region = 3;
}
)proto";

TEST_F(ProtobufDecodeTest, ConfluentDecimalIsAnExactString) {
  compile(kDecimal);
  // -12345 is 0xCFC7 in two's complement.
  EXPECT_EQ(json("money.Price", R"(amount { value: "\317\307" precision: 5 scale: 2 })"),
            R"({"amount":"-123.45","history":[],"by_region":{}})");
  EXPECT_EQ(json("money.Price", R"(history { value: "\001" scale: 3 } history { } history { value: "\000\200" scale: -2 }
                                  by_region { key: "eu" value { value: "\377" scale: 1 } })"),
            R"({"history":["0.001","0","12800"],"by_region":{"eu":"-0.1"}})");
  // A 17-byte unscaled value: 2^128 - 1, beyond any fixed-width integer.
  EXPECT_EQ(json("money.Price", R"(amount { value: "\000\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377" scale: 10 })"),
            R"({"amount":"34028236692093846346337460743.1768211455","history":[],"by_region":{}})");
  const Result r = decode_bytes(std::string(1, '\0') + wire("money.Price", R"(amount { value: "\001" scale: 5000 })"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "confluent.type.Decimal out of range (1 bytes, scale 5000)");
}

constexpr const char* kProto2 = R"proto(
syntax = "proto2";
package legacy;
message Part {
  required string id = 1;
  optional int32 count = 2 [default = 7];
  optional string label = 3 [default = "none"];
  optional Part parent = 4;
  repeated group Note = 5 {
    optional string text = 6;
  }
  enum Kind { BOLT = 1; NUT = 2; }
  optional Kind kind = 7;
  optional bytes blob = 8;
}
)proto";

TEST_F(ProtobufDecodeTest, Proto2DefaultsGroupsAndRequiredFields) {
  compile(kProto2);
  EXPECT_EQ(json("legacy.Part", R"(id: "p1" Note { text: "a" } Note { })"),
            R"({"id":"p1","count":7,"label":"none","note":[{"text":"a"},{"text":""}],"kind":"BOLT","blob":""})");
  EXPECT_EQ(json("legacy.Part", R"(id: "p2" count: 0 parent { id: "p1" } kind: NUT)"),
            R"({"id":"p2","count":0,"label":"none","parent":{"id":"p1","count":7,"label":"none","note":[],"kind":"BOLT","blob":""},)"
            R"("note":[],"kind":"NUT","blob":""})");
  EXPECT_EQ(error_of(std::string(1, '\0') + "\x10\x01"), "legacy.Part is missing required field id");
  // A proto2 enum drops numbers it does not name (field 7 = 9): the default stays.
  EXPECT_THAT(json("legacy.Part", R"(id: "p3")") , HasSubstr(R"("kind":"BOLT")"));
  const Result unnamed = decode_bytes(std::string(1, '\0') + wire("legacy.Part", R"(id: "p3" kind: NUT)") + "\x38\x09");
  ASSERT_TRUE(unnamed.ok) << unnamed.error;
  EXPECT_THAT(unnamed.json, HasSubstr(R"("kind":"NUT")"));
  // proto2 strings are not checked by protobuf's parser; krow refuses non-UTF-8 text in
  // any string field, and says so without a log line.
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(error_of(std::string(1, '\0') + "\x0a\x01\xff"),
            "invalid wire data at byte 3: string field legacy.Part.id is not valid UTF-8");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST_F(ProtobufDecodeTest, DecodeIsSafeFromSeveralThreads) {
  compile(kShapes);
  const std::string payload =
      std::string(1, '\0') + wire("t.Shapes", R"(words: ["a"] by_name { key: "k" value: 1 } by_name { key: "j" value: 2 })");
  const std::string expected = decode_bytes(payload).json;
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        std::string out, error;
        if (!decoder_->decode(reinterpret_cast<const uint8_t*>(payload.data()), payload.size(), out, error) ||
            out != expected) {
          ++mismatches[static_cast<size_t>(t)];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace krow
