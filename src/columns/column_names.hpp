#pragma once
// Column names from field paths, the same way for every format:
//
// 1. The path's field names joined with the separator ("address__street"); a value whose
//    root is not a record is one column named `value`. Control characters become `_`, an
//    empty name `_`.
// 2. A name equal (ignoring ASCII case) to one of krow's metadata columns (rows/row_contract:
//    id, kafka_topic_id, ..., value, headers, decode_error), or one that starts with the
//    prefix of variant columns (`__krow_nc__`, columns/column_evolution), gets the prefix
//    `value__`: `id` → `value__id`.
// 3. A name longer than the engine's limit keeps its first bytes (whole UTF-8 characters)
//    and ends with `_` and 8 hex digits of a hash (FNV-1a) of the full name: deterministic.
// 4. A name already taken, ignoring ASCII case (DuckDB matches identifiers that way, and
//    PostgreSQL folds unquoted ones), gets the same kind of suffix, from a hash of the path
//    (salted until free); the column met first in schema order keeps the plain name.
//
// Once a table exists, its names are no longer the schema's alone: a field keeps the column
// it was first given for the table's life, whatever later schema versions add before it
// (bind_names). krow's state records each table's field → column bindings; a new field is
// named by the rules above against every name the table has or has given away.

#include <optional>
#include <string>
#include <vector>

#include "columns/column_spec.hpp"

namespace krow::columns {

// Fills `name` of every column from its path, in order, by the rules above.
void assign_names(std::vector<ColumnSpec>& columns, const std::string& separator, size_t max_bytes);

// `name` within `max_bytes` (0: no limit) by rule 3.
std::string bounded_name(const std::string& name, size_t max_bytes);

// A field's column in an existing table, as krow's state records it.
struct ColumnBinding {
  std::vector<std::string> path;  // from the value's root (empty: the root itself)
  std::string column;
};

// Names `columns` (planned in schema order) for a table that exists, whose typed columns are
// `table_columns` and whose fields are bound as `bindings`:
// - a bound path keeps its column, whatever the rules would name it now;
// - any other path is named by the rules against every name the table has (krow's metadata
//   columns, `table_columns`) or has bound, so that it never takes another field's column.
//   A column of the table that no field is bound to (one from before krow recorded bindings)
//   goes to the first new field whose name it is exactly.
// A column whose plain name was taken gets that name in `wanted`.
void bind_names(std::vector<ColumnSpec>& columns, const std::vector<ColumnBinding>& bindings,
                const std::vector<std::string>& table_columns, const std::string& separator,
                size_t max_bytes);

// What to record of a table whose typed columns are `columns` (TableSettings::typed_columns,
// after evolution): the column of every field that fills one; variant and retired columns
// are nobody's.
std::vector<ColumnBinding> bindings_of(const std::vector<ColumnSpec>& columns);

// `path` as one stable text for krow's state: a JSON array of the field names.
std::string path_key(const std::vector<std::string>& path);
// The path of a path_key(); nullopt when `key` is not one.
std::optional<std::vector<std::string>> path_of_key(const std::string& key);

}  // namespace krow::columns
