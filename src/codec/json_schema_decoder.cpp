// JSON Schema payloads: after the framing header, the JSON document itself. krow checks
// that it is one valid JSON document and stores it as sent; validating it against the
// schema is the producer's business (Confluent's serializer already did).

#include <stdexcept>

#include "codec/json_validator.hpp"
#include "codec/schema_decoder.hpp"
#include "util/text.hpp"

namespace krow {

namespace {

class JsonSchemaDecoder : public SchemaDecoder {
 public:
  bool decode(const uint8_t* data, size_t size, std::string& out, std::string& error) const override {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    thread_local JsonValidator validator;
    if (!is_valid_utf8(text) || !validator.is_document(text)) {
      error = "the payload after the JSON Schema header is not one valid JSON document";
      return false;
    }
    out.append(text);
    return true;
  }
};

}  // namespace

std::unique_ptr<SchemaDecoder> compile_json_schema(const ResolvedSchema& schema, const DecodeOptions&) {
  thread_local JsonValidator validator;
  if (!validator.is_document(schema.text)) throw std::invalid_argument("the JSON Schema is not valid JSON");
  return std::make_unique<JsonSchemaDecoder>();
}

}  // namespace krow
