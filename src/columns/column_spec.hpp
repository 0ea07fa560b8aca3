#pragma once
// A typed column planned from a registry schema: what it holds, independent of any engine,
// where in the decoded value it comes from, and which schema type it was planned from. The
// warehouse adapters map a ColumnSpec to their engine's type (Warehouse::column_sql_type).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "contract/column_type.hpp"

namespace krow::columns {

// The prefix of variant columns (columns/column_evolution): `__krow_nc__<column>` ("not
// compatible"). No field's column starts with it (columns/column_names).
inline constexpr std::string_view kVariantPrefix = "__krow_nc__";

// The largest decimal precision planned as a decimal column; wider ones are text.
inline constexpr int32_t kMaxDecimalPrecision = 38;

struct ColumnSpec {
  std::string name;  // the column's name: unique (case-insensitively), within the engine's limit
  std::vector<std::string>
      path;  // field names from the value's root to the value (empty: the root itself)
  ColumnType type = ColumnType::json;
  int32_t precision = 0;  // decimal only
  int32_t scale = 0;      // decimal only
  bool nullable = true;   // false only when every decoded value carries it
  std::string
      source;  // the schema's type: "long (timestamp-millis)", "int64", "string (format date-time)"
  // A column the table keeps although the schema no longer fills it (a field removed, or one
  // whose values now go to its variant column: columns/column_evolution): always NULL.
  bool retired = false;
  // A new field of an existing table whose plain name was already another column's
  // (columns/column_names bind_names): that name, for `plan` and the run record. Empty
  // otherwise.
  std::string wanted;
};

// `path` as one text, segments joined with `.` ("address.street"; "(root)" when empty).
std::string path_text(const std::vector<std::string>& path);

// A column type as a column contract declares it, in SQL's common words (any case): boolean,
// integer (int, int32), bigint (int64, long), double (float64, float), real (float32),
// decimal(p,s) (numeric(p,s); 1 <= p <= 38, 0 <= s <= p), text (string, varchar), bytes,
// date, time, timestamp (timestamptz), json. Sets `out`'s type, precision and scale; returns
// what is wrong with `text` (naming the words there are), or "" when it is a type.
std::string parse_declared_type(std::string_view text, ColumnSpec& out);

// The type of `c` in those words ("decimal(12,2)", "timestamp"), for plans.
std::string declared_type(const ColumnSpec& c);

}  // namespace krow::columns
