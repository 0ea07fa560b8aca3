#pragma once
// The row contract of SPEC.md §3, once for every warehouse: the 17 columns in their order
// with their logical types, how `id` is built, and the words for timestamp types. Each
// adapter maps these logical types to its engine's types; none declares columns of its own.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "util/ids.hpp"

namespace krow::rows {

// What a column holds, independent of any engine.
enum class LogicalType : uint8_t {
  text,       // UTF-8 text
  int32,
  int64,
  timestamp,  // an instant with millisecond precision (UTC)
  json,       // one valid JSON document (RFC 8259)
  boolean,
};

struct Column {
  std::string_view name;
  LogicalType type;
  bool nullable;
};

// Column positions, in table order.
enum ColumnIndex : size_t {
  kId, kTopicId, kPartition, kOffset, kTimestamp, kTimestampType, kKey, kKeyFormat, kKeySchemaId,
  kValue, kValueFormat, kValueSchemaId, kValueBase64, kValueSize, kHeaders, kTombstone, kDecodeError,
  kColumnCount
};

inline constexpr std::array<Column, kColumnCount> kColumns{{
    {"id", LogicalType::text, false},
    {"kafka_topic_id", LogicalType::text, false},
    {"kafka_partition", LogicalType::int32, false},
    {"kafka_offset", LogicalType::int64, false},
    {"kafka_timestamp", LogicalType::timestamp, true},
    {"kafka_timestamp_type", LogicalType::text, true},
    {"key", LogicalType::text, true},
    {"key_format", LogicalType::text, true},
    {"key_schema_id", LogicalType::int32, true},
    {"value", LogicalType::json, true},
    {"value_format", LogicalType::text, true},
    {"value_schema_id", LogicalType::int32, true},
    {"value_base64", LogicalType::text, true},
    {"value_size_bytes", LogicalType::int32, true},
    {"headers", LogicalType::json, true},
    {"is_tombstone", LogicalType::boolean, false},
    {"decode_error", LogicalType::text, true},
}};

// The column list of a CREATE TABLE: every column with `type_name(logical type)`, and
// NOT NULL where the contract says so.
template <class TypeName>
std::string column_definitions(TypeName&& type_name) {
  std::string out;
  for (const auto& c : kColumns) {
    if (!out.empty()) out += ", ";
    out.append(c.name).append(" ").append(type_name(c.type));
    if (!c.nullable) out += " NOT NULL";
  }
  return out;
}

// Who set a message's timestamp.
enum class TimestampType : uint8_t { none, create_time, log_append_time };

// `create_time` or `log_append_time`; empty for none (the column is NULL then).
std::string_view timestamp_type_name(TimestampType t);

// Appends a row's id, `<topic id>:<partition>:<offset>`: unique, the merge key.
void append_id(std::string& out, const TopicId& topic_id, Partition partition, Offset offset);

}  // namespace krow::rows
