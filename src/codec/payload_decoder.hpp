#pragma once
// Turns the bytes of a Kafka key or value into the row's text columns (docs/row-contract.md).
//
// Pure: bytes in, text appended to a caller-owned arena out. It knows nothing of Kafka
// handles or warehouses. One decoder per thread (it keeps reusable parsing state).

#include <cstddef>
#include <cstdint>
#include <string>

#include "codec/decoded.hpp"
#include "codec/json_validator.hpp"
#include "codec/schema_source.hpp"

namespace krow {

struct DecoderOptions {
  // Values larger than this are not stored (value NULL, size and reason recorded).
  size_t max_value_bytes = 8u << 20;
};

class PayloadDecoder {
 public:
  // `schemas` decodes schema-framed payloads; null when no registry is configured. The
  // source must outlive the decoder.
  explicit PayloadDecoder(DecoderOptions options, SchemaSource* schemas = nullptr);

  // Decodes a key. `data` may be null only when `size` is 0 and `present` is false.
  // Plain text keys keep their exact text; anything else becomes base64.
  Decoded decode_key(const void* data, size_t size, bool present, std::string& arena);

  // Decodes a value that is present (tombstones never reach the decoder).
  Decoded decode_value(const void* data, size_t size, std::string& arena);

 private:
  enum class PlainKind { json, string, binary };
  PlainKind classify(const char* data, size_t size);
  // The schema ID when the bytes look like Confluent framing: 0x00, then a non-zero 4-byte ID.
  static std::optional<SchemaId> looks_framed(const uint8_t* data, size_t size);
  // Decodes a framed key or value. Returns false when the registry does not know the ID,
  // so the caller reads the bytes as plain ones (noting it in `out.error`).
  bool decode_framed(const uint8_t* data, size_t size, SchemaId schema_id, bool is_key, std::string& arena,
                     Decoded& out);
  // Plain bytes: the exact text for keys, JSON (or a JSON string) for values, else base64.
  void decode_plain(const uint8_t* data, size_t size, bool is_key, std::string& arena, Decoded& out);

  DecoderOptions options_;
  SchemaSource* schemas_;
  JsonValidator json_;
};

}  // namespace krow
