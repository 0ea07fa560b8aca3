#include "contract/column_type.hpp"

namespace krow {

std::string_view column_type_name(ColumnType type) {
  switch (type) {
    case ColumnType::boolean:
      return "boolean";
    case ColumnType::int32:
      return "int32";
    case ColumnType::int64:
      return "int64";
    case ColumnType::uint64:
      return "uint64";
    case ColumnType::float32:
      return "float32";
    case ColumnType::float64:
      return "float64";
    case ColumnType::decimal:
      return "decimal";
    case ColumnType::text:
      return "text";
    case ColumnType::bytes:
      return "bytes";
    case ColumnType::date:
      return "date";
    case ColumnType::time:
      return "time";
    case ColumnType::timestamp:
      return "timestamp";
    case ColumnType::json:
      return "json";
  }
  return "json";
}

}  // namespace krow
