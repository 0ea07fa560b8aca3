// libFuzzer target for the framing and plain-payload path: any bytes as a key and as a
// value, through the payload decoder with a schema source that knows a few IDs (an Avro
// schema, a JSON Schema, one refused ID), so both the framed and the plain branches run.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "codec/payload_decoder.hpp"
#include "codec/schema_source.hpp"

namespace {

class FixedSource : public krow::SchemaSource {
 public:
  FixedSource() {
    krow::ResolvedSchema avro;
    avro.type = krow::SchemaType::avro;
    avro.text = R"({"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"s","type":["null","string"]},)"
                R"({"name":"m","type":{"type":"map","values":"double"}}]})";
    avro_ = krow::compile_avro(avro, {});
    krow::ResolvedSchema json;
    json.type = krow::SchemaType::json;
    json.text = R"({"type":"object"})";
    json_ = krow::compile_json_schema(json, {});
  }
  Lookup lookup(krow::SchemaId id) override {
    Lookup l;
    switch (id.value()) {
      case 1: l.status = Status::ready, l.decoder = avro_.get(), l.format = krow::Format::avro; break;
      case 2: l.status = Status::ready, l.decoder = json_.get(), l.format = krow::Format::json_schema; break;
      case 3: l.status = Status::unusable, l.reason = "refused"; break;
      default: l.status = Status::unknown; break;
    }
    return l;
  }

 private:
  std::unique_ptr<krow::SchemaDecoder> avro_, json_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static FixedSource source;
  static krow::PayloadDecoder with_registry(krow::DecoderOptions{1 << 20}, &source);
  static krow::PayloadDecoder without_registry(krow::DecoderOptions{64}, nullptr);
  std::string arena;
  for (auto* decoder : {&with_registry, &without_registry}) {
    arena.clear();
    const auto key = decoder->decode_key(data, size, true, arena);
    const auto value = decoder->decode_value(data, size, arena);
    // Every slice must lie inside the arena.
    for (const auto& s : {key.text, key.error, value.text, value.base64, value.error})
      if (s.present && s.offset + s.size > arena.size()) __builtin_trap();
  }
  return 0;
}
