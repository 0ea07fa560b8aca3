#pragma once
// Test and demo support: run SQL against a DuckDB file and get text back.

#include <optional>
#include <string>
#include <vector>

namespace krow::testkit {

using Cell = std::optional<std::string>;  // nullopt: SQL NULL
using Rows = std::vector<std::vector<Cell>>;

struct QueryResult {
  std::vector<std::string> columns;
  Rows rows;
};

// Opens `path` read-only for the duration of the call. Throws std::runtime_error.
QueryResult query(const std::string& path, const std::string& sql);

// Opens `path` read-write and runs `sql` (statements without results). For tests that
// inject a state a real component cannot produce on demand. Throws std::runtime_error.
void execute(const std::string& path, const std::string& sql);

// The single value of a one-row, one-column query, or "" for NULL.
std::string scalar(const std::string& path, const std::string& sql);

}  // namespace krow::testkit
