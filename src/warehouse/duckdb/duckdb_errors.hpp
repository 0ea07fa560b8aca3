#pragma once
// The one place where DuckDB errors become krow error classes: what retrying can help
// (a transaction conflict, an interrupted or out-of-memory query, a passing I/O error) is
// transient; a full disk, a read-only or forbidden file, a corrupt or invalidated database
// stop the sync at once, naming the fix.

#include <duckdb.h>

#include <string>

#include "util/error.hpp"

namespace krow::duck {

// An Error for DuckDB's `message` of `type`, raised while doing `what` (e.g. "committing a
// batch").
Error make_error(duckdb_error_type type, const std::string& message, const std::string& what);

}  // namespace krow::duck
