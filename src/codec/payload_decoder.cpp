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

PayloadDecoder::PayloadDecoder(DecoderOptions options, SchemaSource* schemas) : options_(options), schemas_(schemas) {}

std::optional<SchemaId> PayloadDecoder::looks_framed(const uint8_t* data, size_t size) {
  if (size < 5 || data[0] != 0x00) return std::nullopt;
  const uint32_t id = uint32_t(data[1]) << 24 | uint32_t(data[2]) << 16 |
                      uint32_t(data[3]) << 8 | uint32_t(data[4]);
  // ID 0 is never framed: a small big-endian number (a Java Long such as 42) starts with
  // zero bytes too.
  if (id == 0 || id > 0x7fffffffu) return std::nullopt;  // registry IDs are positive 32-bit ints
  return SchemaId(static_cast<int32_t>(id));
}

PayloadDecoder::PlainKind PayloadDecoder::classify(const char* data, size_t size) {
  const std::string_view text(data, size);
  if (!is_valid_utf8(text)) return PlainKind::binary;
  if (json_.is_document(text)) return PlainKind::json;
  return has_only_text_controls(text) ? PlainKind::string : PlainKind::binary;
}

bool PayloadDecoder::decode_framed(const uint8_t* data, size_t size, SchemaId schema_id, bool is_key,
                                   std::string& arena, Decoded& out) {
  const char* what = is_key ? "key" : "value";
  // Kept raw (base64) for a later full resync: in the key column for keys, in
  // value_base64 for values.
  auto keep_raw = [&](const std::string& reason) {
    out.format = Format::schema_registry;
    out.schema_id = schema_id;
    const size_t start = arena.size();
    append_base64(arena, data, size);
    (is_key ? out.text : out.base64) = slice_since(arena, start);
    append_error(arena, out.error, reason);
  };
  if (!schemas_) {
    keep_raw(std::string(what) + " is schema-framed (schema ID " + std::to_string(schema_id.value()) +
             ") but no schema registry is configured; add one and run `krow resync --full` to decode it");
    return true;
  }
  const auto lookup = schemas_->lookup(schema_id);
  switch (lookup.status) {
    case SchemaSource::Status::unknown:
      return false;
    case SchemaSource::Status::unusable:
      keep_raw(std::string(what) + ": " + lookup.reason);
      return true;
    case SchemaSource::Status::ready:
      break;
  }
  const size_t start = arena.size();
  std::string error;
  if (lookup.decoder->decode(data + 5, size - 5, arena, error)) {
    out.format = lookup.format;
    out.schema_id = schema_id;
    out.text = slice_since(arena, start);
    return true;
  }
  arena.resize(start);
  keep_raw(std::string(what) + " could not be decoded with schema ID " + std::to_string(schema_id.value()) + " (" +
           std::string(format_name(lookup.format)) + "): " + error);
  return true;
}

void PayloadDecoder::decode_plain(const uint8_t* data, size_t size, bool is_key, std::string& arena, Decoded& out) {
  const auto* text = reinterpret_cast<const char*>(data);
  const size_t start = arena.size();
  switch (size == 0 ? PlainKind::string : classify(text, size)) {
    case PlainKind::json:
      out.format = Format::json;
      arena.append(text, size);
      out.text = slice_since(arena, start);
      break;
    case PlainKind::string:
      out.format = Format::string;
      // Keys keep their exact text; values become a JSON string.
      if (is_key) arena.append(text, size);
      else append_json_string(arena, std::string_view(text, size));
      out.text = slice_since(arena, start);
      break;
    case PlainKind::binary:
      out.format = Format::binary;
      append_base64(arena, data, size);
      (is_key ? out.text : out.base64) = slice_since(arena, start);
      break;
  }
}

Decoded PayloadDecoder::decode_key(const void* data, size_t size, bool present, std::string& arena) {
  Decoded out;
  if (!present) return out;
  const auto* bytes = static_cast<const uint8_t*>(data);
  const auto schema_id = looks_framed(bytes, size);
  if (schema_id && decode_framed(bytes, size, *schema_id, true, arena, out)) return out;
  decode_plain(bytes, size, true, arena, out);
  if (schema_id)
    append_error(arena, out.error, "key looked schema-framed (schema ID " + std::to_string(schema_id->value()) +
                                       ") but the schema registry does not know that ID; read as plain bytes");
  return out;
}

Decoded PayloadDecoder::decode_value(const void* data, size_t size, std::string& arena) {
  Decoded out;
  if (size > options_.max_value_bytes) {
    append_error(arena, out.error,
                 "value of " + std::to_string(size) + " bytes is over the size limit of " +
                     std::to_string(options_.max_value_bytes) + " bytes (limits.max_value_bytes); it was not stored");
    return out;
  }
  const auto* bytes = static_cast<const uint8_t*>(data);
  const auto schema_id = looks_framed(bytes, size);
  if (schema_id && decode_framed(bytes, size, *schema_id, false, arena, out)) return out;
  decode_plain(bytes, size, false, arena, out);
  if (schema_id)
    append_error(arena, out.error, "value looked schema-framed (schema ID " + std::to_string(schema_id->value()) +
                                       ") but the schema registry does not know that ID; read as plain bytes");
  return out;
}

}  // namespace krow
