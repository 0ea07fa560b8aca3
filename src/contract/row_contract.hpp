#pragma once
// The row contract (docs/row-contract.md), once for every warehouse: the 17 columns in their
// order with their types, how `id` is built, and the words for timestamp types. Each adapter
// maps these types to its engine's as it maps typed columns' (Warehouse::column_sql_type);
// none declares columns of its own.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "contract/column_type.hpp"
#include "util/ids.hpp"

namespace krow::contract {

struct Column {
  std::string_view name;
  ColumnType type;  // one of text, int32, int64, timestamp (milliseconds), json, boolean
  bool nullable;
};

// Column positions, in table order.
enum ColumnIndex : size_t {
  kId,
  kTopicId,
  kPartition,
  kOffset,
  kTimestamp,
  kTimestampType,
  kKey,
  kKeyFormat,
  kKeySchemaId,
  kValue,
  kValueFormat,
  kValueSchemaId,
  kValueBase64,
  kValueSize,
  kHeaders,
  kTombstone,
  kDecodeError,
  kColumnCount
};

inline constexpr std::array<Column, kColumnCount> kColumns{{
    {"id", ColumnType::text, false},
    {"kafka_topic_id", ColumnType::text, false},
    {"kafka_partition", ColumnType::int32, false},
    {"kafka_offset", ColumnType::int64, false},
    {"kafka_timestamp", ColumnType::timestamp, true},
    {"kafka_timestamp_type", ColumnType::text, true},
    {"key", ColumnType::text, true},
    {"key_format", ColumnType::text, true},
    {"key_schema_id", ColumnType::int32, true},
    {"value", ColumnType::json, true},
    {"value_format", ColumnType::text, true},
    {"value_schema_id", ColumnType::int32, true},
    {"value_base64", ColumnType::text, true},
    {"value_size_bytes", ColumnType::int32, true},
    {"headers", ColumnType::json, true},
    {"is_tombstone", ColumnType::boolean, false},
    {"decode_error", ColumnType::text, true},
}};

// The column list of a CREATE TABLE: every column with `type_name(its type)`, and
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

}  // namespace krow::contract
