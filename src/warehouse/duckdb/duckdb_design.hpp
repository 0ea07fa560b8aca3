#pragma once
// DuckDB's physical design: the order of a table's rows (`sort_by`, docs/physical-design.md),
// recorded in the table's comment, as DuckDB's catalog keeps no sort key. Pure; any thread.

#include <string>
#include <string_view>
#include <vector>

namespace krow {

// The comment that records a table's sort order: `krow sort_by: "a", "b"` (each name quoted
// as an SQL identifier).
std::string duckdb_sort_comment(const std::vector<std::string>& sort_by);

// The columns of a comment duckdb_sort_comment() wrote; empty for any other comment.
std::vector<std::string> duckdb_parse_sort_comment(std::string_view comment);

}  // namespace krow
