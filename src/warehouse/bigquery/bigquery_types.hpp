#pragma once
// BigQuery's GoogleSQL types for krow's columns (the row contract's and typed columns'), and
// back: what a column of a GoogleSQL type holds, for schema evolution. Pure; any thread.

#include <cstdint>
#include <optional>
#include <string>

#include "columns/column_spec.hpp"
#include "contract/column_type.hpp"

namespace krow::bigquery {

// A column's GoogleSQL type: INT64 for every integer, FLOAT64 for both float widths, NUMERIC
// for uint64 and the decimals that fit 29 integer and 9 fractional digits, BIGNUMERIC for
// those that fit 38 and 38, STRING beyond (none: the planner makes wider decimals text).
// Parameterised NUMERIC(p,s) is not used: the values are checked against (p,s) before they are
// written, and a plain type lets a schema's precision grow without DDL.
std::string column_type(ColumnType type, int32_t precision = 0, int32_t scale = 0);

// What a column of GoogleSQL type `type` holds, as a typed column's spec (its reach: NUMERIC
// holds any DECIMAL(38,9), BIGNUMERIC any DECIMAL(76,38), INT64 any int64); nullopt for a
// type krow never plans (ARRAY, STRUCT, DATETIME, GEOGRAPHY, a parameterised type).
std::optional<columns::ColumnSpec> held_by(const std::string& type);

// `column` with the type, precision and scale of what its column_type holds (held_by): what
// schema evolution compares with a table's column (TableSchemas::column_holds).
columns::ColumnSpec column_holds(const columns::ColumnSpec& column);

}  // namespace krow::bigquery
