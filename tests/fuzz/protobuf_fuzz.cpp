// libFuzzer target for the Protobuf decoder: one schema with every field shape (scalars,
// enums open and closed, oneofs, maps, groups, recursion, well-known types, Any, Decimal,
// a proto2 file imported as a reference), compiled once; the fuzzer's bytes are the payload
// after the framing header, message-index list included. Any crash, sanitizer report or
// hang is a bug; so is a successful decode whose output is not one valid JSON document
// (as simdjson sees it, not krow's own validator), a failure without a one-line reason, or any disagreement with decode_reference(), which
// parses with protobuf's own DynamicMessage and prints through Reflection. (The schema
// declares no proto2 extensions: decode() skips them like unknown fields, while protobuf
// would still require the required fields of an extension's message.)
//
// Built with clang: -std=c++20 -fsanitize=fuzzer,address,undefined -Isrc, linked with
// krow_core (or its sources), simdjson and protobuf (libprotobuf, libprotoc).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "codec/protobuf/protobuf_decoder.hpp"
#include "codec/schema_decoder.hpp"
#include "independent_json.hpp"
#include "util/text.hpp"

namespace {

constexpr const char* kLegacy = R"proto(
syntax = "proto2";
package fuzz2;
enum Kind { Z = 0; A = 1; B = 2; C = 5; }
message Legacy {
  required int32 id = 1;
  optional string s = 2 [default = "dflt"];
  optional Kind k = 3 [default = C];
  repeated Kind ks = 4 [packed = true];
  optional Legacy child = 5;
  repeated group G = 6 {
    optional int32 gi = 7;
    optional Legacy gl = 8;
  }
  map<int32, Kind> mk = 9;
  oneof o {
    sint64 os = 10;
    Legacy om = 11;
  }
}
)proto";

constexpr const char* kSchema = R"proto(
syntax = "proto3";
package fuzz;
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/wrappers.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/any.proto";
import "google/protobuf/field_mask.proto";
import "google/protobuf/empty.proto";
import "confluent/type/decimal.proto";
import "legacy.proto";

enum Color { COLOR_UNSPECIFIED = 0; RED = 1; BLUE = -3; }

message Everything {
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
  repeated int32 r_i32 = 17;
  repeated double r_db = 18;
  repeated Color r_color = 19;
  repeated string r_s = 20;
  repeated int64 r_unpacked = 21 [packed = false];
  Everything child = 22;
  repeated Everything children = 23;
  oneof choice {
    string c_text = 24;
    Everything c_msg = 25;
  }
  optional int32 opt = 26;
  map<string, Everything> m_msg = 27;
  map<int64, Color> m_enum = 28;
  map<bool, bytes> m_bool = 29;
  google.protobuf.Timestamp ts = 30;
  google.protobuf.Duration dur = 31;
  google.protobuf.Int64Value w_i64 = 32;
  google.protobuf.BytesValue w_by = 33;
  google.protobuf.Struct st = 34;
  google.protobuf.Value val = 35;
  google.protobuf.ListValue lv = 36;
  google.protobuf.Any any = 37;
  google.protobuf.FieldMask fm = 38;
  google.protobuf.Empty empty = 39;
  confluent.type.Decimal dec = 40;
  fuzz2.Legacy legacy = 41;
  google.protobuf.NullValue nul = 42;
  message Nested {
    message Deeper { repeated Everything e = 1; }
    Deeper d = 1;
  }
  Nested nested = 43;
}
message Point { int32 x = 1; int32 y = 2; }
)proto";

const krow::pb::ProtobufDecoder& decoder() {
  static const krow::pb::ProtobufDecoder d = [] {
    auto legacy = std::make_shared<krow::ResolvedSchema>();
    legacy->type = krow::SchemaType::protobuf;
    legacy->text = kLegacy;
    krow::ResolvedSchema schema;
    schema.type = krow::SchemaType::protobuf;
    schema.id = 1;
    schema.text = kSchema;
    schema.references.push_back({"legacy.proto", legacy});
    return krow::pb::ProtobufDecoder(schema);
  }();
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const krow::pb::ProtobufDecoder& d = decoder();
  std::string out = "x";  // text from earlier rows must stay untouched
  std::string error;
  const bool ok = d.decode(data, size, out, error);
  if (ok) {
    const std::string_view json = std::string_view(out).substr(1);
    if (out[0] != 'x' || !krow::is_valid_utf8(json) || !krow::fuzz::is_one_json_document(json)) __builtin_trap();
  } else if (error.empty() || error.find('\n') != std::string::npos) {
    __builtin_trap();
  }
  // The reference road must agree on success and on every byte of the output.
  std::string reference = "x";
  std::string reference_error;
  const bool reference_ok = d.decode_reference(data, size, reference, reference_error);
  if (reference_ok != ok || (ok && reference != out)) __builtin_trap();
  return 0;
}
