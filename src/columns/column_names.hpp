#pragma once
// Column names from field paths, the same way for every format:
//
// 1. The path's field names joined with the separator ("address__street"); a value whose
//    root is not a record is one column named `value`. Control characters become `_`, an
//    empty name `_`.
// 2. A name equal (ignoring ASCII case) to one of krow's metadata columns (rows/row_contract:
//    id, kafka_topic_id, ..., value, headers, decode_error) gets the prefix `value__`:
//    `id` → `value__id`.
// 3. A name longer than the engine's limit keeps its first bytes (whole UTF-8 characters)
//    and ends with `_` and 8 hex digits of a hash (FNV-1a) of the full name: deterministic.
// 4. A name already taken, ignoring ASCII case (DuckDB matches identifiers that way, and
//    PostgreSQL folds unquoted ones), gets the same kind of suffix, from a hash of the path
//    (salted until free); the column met first in schema order keeps the plain name.

#include <string>
#include <vector>

#include "columns/column_spec.hpp"

namespace krow::columns {

// Fills `name` of every column from its path, in order, by the rules above.
void assign_names(std::vector<ColumnSpec>& columns, const std::string& separator, size_t max_bytes);

// `name` within `max_bytes` (0: no limit) by rule 3.
std::string bounded_name(const std::string& name, size_t max_bytes);

}  // namespace krow::columns
