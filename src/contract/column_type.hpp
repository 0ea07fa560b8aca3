#pragma once
// What a column holds, independent of any engine: one vocabulary for krow's metadata columns
// (contract/row_contract) and for typed columns (columns/). Each adapter maps these to its
// engine's types, the same way for both.

#include <cstdint>
#include <string_view>

namespace krow {

// Each is the type of a value's JSON form as krow's decoders write it (docs/row-contract.md):
// 64-bit integers and decimals arrive as strings of exact digits, bytes as base64, dates and
// times as ISO 8601 text.
enum class ColumnType : uint8_t {
  boolean,
  int32,
  int64,
  uint64,  // unsigned 64-bit: beyond BIGINT
  float32,
  float64,
  decimal,    // exact: a precision (1..38) and a scale (columns::ColumnSpec)
  text,       // UTF-8 text (enums, UUIDs, decimals over 38 digits, durations as text)
  bytes,      // base64 text of the bytes, as the decoders write them
  date,       // YYYY-MM-DD
  time,       // time of day, no zone
  timestamp,  // an instant (UTC)
  json,       // one JSON document: nested values kept whole, arrays, maps, unions of several types
};

// "int64", "decimal", ... (stable: used in `krow schema --format json`).
std::string_view column_type_name(ColumnType type);

}  // namespace krow
