#pragma once
// The one place where DuckDB errors become krow error classes, by DuckDB's error type
// (duckdb_error_type): what retrying can help (a transaction conflict, an interrupted or
// out-of-memory query, a passing I/O error) is transient; a full disk, a read-only or
// forbidden file, a corrupt or invalidated database stop the sync at once, naming the fix.

#include <duckdb.h>

#include <string>
#include <string_view>

#include "util/error.hpp"

namespace krow::duck {

// An Error for DuckDB's `message` of `type`, raised while doing `what` (e.g. "committing a
// batch"). Its source is {"DuckDB", the type's name ("TRANSACTION")}.
Error make_error(duckdb_error_type type, const std::string& message, const std::string& what);

// The name of an error type as DuckDB's C API spells it without its prefix: "TRANSACTION",
// "CONSTRAINT", "IO".
const char* error_type_name(duckdb_error_type type);

// True when DuckDB's `message`, from opening or attaching a database file, says that another
// process holds the file's lock.
bool is_lock_conflict(std::string_view message);

}  // namespace krow::duck
