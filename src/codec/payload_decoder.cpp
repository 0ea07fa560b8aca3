#include "codec/payload_decoder.hpp"

#include <string_view>

#include "util/text.hpp"

namespace krow {

namespace {

void append_error(std::string& arena, Slice& error, std::string_view text) {
  const size_t start = arena.size();
  arena.append(text);
  error = slice_since(arena, start);
}

}  // namespace

PayloadDecoder::PayloadDecoder(DecoderOptions options) : options_(options) {}

bool PayloadDecoder::looks_framed(const uint8_t* data, size_t size, int32_t& schema_id) {
  if (size < 5 || data[0] != 0x00) return false;
  const uint32_t id = uint32_t(data[1]) << 24 | uint32_t(data[2]) << 16 |
                      uint32_t(data[3]) << 8 | uint32_t(data[4]);
  // ID 0 is never framed: a small big-endian number (a Java Long such as 42) starts with
  // zero bytes too.
  if (id == 0 || id > 0x7fffffffu) return false;  // registry IDs are positive 32-bit ints
  schema_id = static_cast<int32_t>(id);
  return true;
}

PayloadDecoder::PlainKind PayloadDecoder::classify(const char* data, size_t size) {
  const std::string_view text(data, size);
  if (!is_valid_utf8(text)) return PlainKind::binary;
  if (json_.is_document(text)) return PlainKind::json;
  return has_only_text_controls(text) ? PlainKind::string : PlainKind::binary;
}

Decoded PayloadDecoder::decode_key(const void* data, size_t size, bool present,
                                   std::string& arena) {
  Decoded out;
  if (!present) return out;
  const auto* bytes = static_cast<const uint8_t*>(data);
  int32_t schema_id = 0;
  size_t start = arena.size();
  if (looks_framed(bytes, size, schema_id)) {
    out.format = Format::schema_registry;
    out.schema_id = schema_id;
    append_base64(arena, bytes, size);
    out.text = slice_since(arena, start);
    append_error(arena, out.error, "key is schema-framed but no schema registry is configured");
    return out;
  }
  switch (size == 0 ? PlainKind::string : classify(static_cast<const char*>(data), size)) {
    case PlainKind::json:
      out.format = Format::json;
      arena.append(static_cast<const char*>(data), size);
      break;
    case PlainKind::string:
      out.format = Format::string;
      arena.append(static_cast<const char*>(data), size);
      break;
    case PlainKind::binary:
      out.format = Format::binary;
      append_base64(arena, bytes, size);
      break;
  }
  out.text = slice_since(arena, start);
  return out;
}

Decoded PayloadDecoder::decode_value(const void* data, size_t size, std::string& arena) {
  Decoded out;
  if (size > options_.max_value_bytes) {
    std::string reason = "value of " + std::to_string(size) +
                         " bytes is over the size limit of " +
                         std::to_string(options_.max_value_bytes) +
                         " bytes (limits.max_value_bytes); it was not stored";
    append_error(arena, out.error, reason);
    return out;
  }
  const auto* bytes = static_cast<const uint8_t*>(data);
  int32_t schema_id = 0;
  size_t start = arena.size();
  if (looks_framed(bytes, size, schema_id)) {
    out.format = Format::schema_registry;
    out.schema_id = schema_id;
    append_base64(arena, bytes, size);
    out.base64 = slice_since(arena, start);
    append_error(arena, out.error,
                 "value is schema-framed but no schema registry is configured; add one and "
                 "run `krow resync --full` to decode it");
    return out;
  }
  const auto* text = static_cast<const char*>(data);
  switch (size == 0 ? PlainKind::string : classify(text, size)) {
    case PlainKind::json:
      out.format = Format::json;
      arena.append(text, size);
      out.text = slice_since(arena, start);
      break;
    case PlainKind::string:
      out.format = Format::string;
      append_json_string(arena, std::string_view(text, size));
      out.text = slice_since(arena, start);
      break;
    case PlainKind::binary:
      out.format = Format::binary;
      append_base64(arena, bytes, size);
      out.base64 = slice_since(arena, start);
      break;
  }
  return out;
}

}  // namespace krow
