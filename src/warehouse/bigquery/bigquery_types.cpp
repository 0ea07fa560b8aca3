#include "warehouse/bigquery/bigquery_types.hpp"

#include <utility>

namespace krow::bigquery {

std::string column_type(ColumnType type, int32_t precision, int32_t scale) {
  switch (type) {
    case ColumnType::boolean:
      return "BOOL";
    case ColumnType::int32:
    case ColumnType::int64:
      return "INT64";
    case ColumnType::uint64:
      return "NUMERIC";  // 29 integer digits hold 2^64 - 1
    case ColumnType::float32:
    case ColumnType::float64:
      return "FLOAT64";
    case ColumnType::decimal:
      if (precision - scale <= 29 && scale <= 9) return "NUMERIC";
      if (precision - scale <= 38 && scale <= 38) return "BIGNUMERIC";
      return "STRING";
    case ColumnType::text:
      return "STRING";
    case ColumnType::bytes:
      return "BYTES";
    case ColumnType::date:
      return "DATE";
    case ColumnType::time:
      return "TIME";
    case ColumnType::timestamp:
      return "TIMESTAMP";
    case ColumnType::json:
      return "JSON";
  }
  return "JSON";
}

std::optional<columns::ColumnSpec> held_by(const std::string& type) {
  static const std::pair<const char*, ColumnType> simple[] = {
      {"BOOL", ColumnType::boolean},    {"INT64", ColumnType::int64},
      {"FLOAT64", ColumnType::float64}, {"STRING", ColumnType::text},
      {"BYTES", ColumnType::bytes},     {"DATE", ColumnType::date},
      {"TIME", ColumnType::time},       {"TIMESTAMP", ColumnType::timestamp},
      {"JSON", ColumnType::json}};
  columns::ColumnSpec c;
  for (const auto& [name, t] : simple)
    if (type == name) {
      c.type = t;
      return c;
    }
  c.type = ColumnType::decimal;
  if (type == "NUMERIC") {
    c.precision = 38;
    c.scale = 9;
    return c;
  }
  if (type == "BIGNUMERIC") {
    c.precision = 76;
    c.scale = 38;
    return c;
  }
  return std::nullopt;
}

columns::ColumnSpec column_holds(const columns::ColumnSpec& column) {
  auto out = column;
  if (const auto held = held_by(column_type(column.type, column.precision, column.scale))) {
    out.type = held->type;
    out.precision = held->precision;
    out.scale = held->scale;
  }
  return out;
}

}  // namespace krow::bigquery
