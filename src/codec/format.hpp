#pragma once
// How a key or value was read: the `key_format` / `value_format` vocabulary of docs/row-contract.md.

#include <cstdint>
#include <string_view>

namespace krow {

enum class Format : uint8_t {
  none,             // no key, a tombstone, or a value over the size limit: the column is NULL
  json,             // one complete JSON document
  string,           // other UTF-8 text, stored as a JSON string
  binary,           // anything else, kept as base64
  schema_registry,  // schema-framed but not decodable (yet); raw bytes kept as base64
  avro,
  protobuf,
  json_schema,
};

// The column text of a format; empty for Format::none.
std::string_view format_name(Format f);

}  // namespace krow
