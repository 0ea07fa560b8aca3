// libFuzzer target for the Avro decoder: one schema that uses every type and logical type
// (compiled once), the fuzzer's bytes as the payload, decoded in both union modes. Any
// crash, sanitizer report or hang is a bug; so is a successful decode whose output is not
// one valid JSON document (as simdjson sees it, not krow's own validator), or a failure
// without a one-line reason.
//
// Built with clang: -std=c++20 -fsanitize=fuzzer,address,undefined -Isrc, linked with
// krow_core (or its sources) and simdjson.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "codec/schema_decoder.hpp"
#include "independent_json.hpp"
#include "util/text.hpp"

namespace {

constexpr const char* kSchema = R"({
  "type": "record", "name": "Everything", "namespace": "fuzz",
  "fields": [
    {"name": "n", "type": "null"},
    {"name": "b", "type": "boolean"},
    {"name": "i", "type": "int"},
    {"name": "l", "type": "long"},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "by", "type": "bytes"},
    {"name": "s", "type": "string"},
    {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}},
    {"name": "fx", "type": {"type": "fixed", "name": "F3", "size": 3}},
    {"name": "arr", "type": {"type": "array", "items": ["null", "long", "string"]}},
    {"name": "m", "type": {"type": "map", "values": {"type": "array", "items": "E"}}},
    {"name": "dec_b", "type": {"type": "bytes", "logicalType": "decimal", "precision": 40, "scale": 5}},
    {"name": "dec_f", "type": {"type": "fixed", "name": "D9", "size": 9, "logicalType": "decimal", "precision": 20, "scale": 3}},
    {"name": "uuid_s", "type": {"type": "string", "logicalType": "uuid"}},
    {"name": "uuid_f", "type": {"type": "fixed", "name": "U16", "size": 16, "logicalType": "uuid"}},
    {"name": "date", "type": {"type": "int", "logicalType": "date"}},
    {"name": "tms", "type": {"type": "int", "logicalType": "time-millis"}},
    {"name": "tus", "type": {"type": "long", "logicalType": "time-micros"}},
    {"name": "tsm", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "tsu", "type": {"type": "long", "logicalType": "timestamp-micros"}},
    {"name": "tsn", "type": {"type": "long", "logicalType": "timestamp-nanos"}},
    {"name": "ltm", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
    {"name": "ltu", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
    {"name": "ltn", "type": {"type": "long", "logicalType": "local-timestamp-nanos"}},
    {"name": "dur", "type": {"type": "fixed", "name": "Dur", "size": 12, "logicalType": "duration"}},
    {"name": "empty", "type": {"type": "array", "items": {"type": "record", "name": "Empty", "fields": []}}},
    {"name": "tree", "type": {"type": "record", "name": "Tree", "fields": [
      {"name": "label", "type": ["null", "string", "fuzz.F3"]},
      {"name": "kids", "type": {"type": "array", "items": "Tree"}},
      {"name": "next", "type": ["null", "Tree"]}]}},
    {"name": "u", "type": ["null", "boolean", "int", "long", "float", "double", "bytes", "string", "E", "Tree",
      {"type": "map", "values": "Dur"}]}
  ]})";

struct Decoders {
  std::unique_ptr<krow::SchemaDecoder> plain;
  std::unique_ptr<krow::SchemaDecoder> tagged;
};

const Decoders& decoders() {
  static const Decoders d = [] {
    krow::ResolvedSchema schema;
    schema.text = kSchema;
    return Decoders{krow::compile_avro(schema, krow::DecodeOptions{false}),
                    krow::compile_avro(schema, krow::DecodeOptions{true})};
  }();
  return d;
}

void check(const krow::SchemaDecoder& decoder, const uint8_t* data, size_t size) {
  std::string out = "x";  // text from earlier rows must stay untouched
  std::string error;
  if (decoder.decode(data, size, out, error)) {
    const std::string_view json = std::string_view(out).substr(1);
    if (out[0] != 'x' || !krow::is_valid_utf8(json) || !krow::fuzz::is_one_json_document(json)) __builtin_trap();
  } else {
    if (error.empty() || error.find('\n') != std::string::npos) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Decoders& d = decoders();
  check(*d.plain, data, size);
  check(*d.tagged, data, size);
  return 0;
}
