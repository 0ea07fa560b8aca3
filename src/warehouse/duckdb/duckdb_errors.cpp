#include "warehouse/duckdb/duckdb_errors.hpp"

namespace krow::duck {

namespace {

bool has(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

Error make_error(duckdb_error_type type, const std::string& message, const std::string& what) {
  const std::string said = what + " failed in DuckDB: " + message;
  const std::string kept = ". What was committed is kept; run the sync again afterwards";
  if (has(message, "No space left on device") || has(message, "disk is full") ||
      has(message, "Disk quota") || has(message, "File too large"))
    return Error(ErrorClass::fatal_run,
                 said +
                     ". The disk holding the DuckDB file is full: free space there (or "
                     "move warehouse.path; a file size limit such as ulimit -f counts too)" +
                     kept);
  if (has(message, "Read-only file system") || has(message, "read-only") ||
      has(message, "Permission denied") || type == DUCKDB_ERROR_PERMISSION)
    return Error(ErrorClass::fatal_run,
                 said +
                     ". krow cannot write the DuckDB file or its folder: give the user "
                     "running krow write access to both (or change warehouse.path)" +
                     kept);
  if (has(message, "not a valid DuckDB database") || has(message, "Corrupt") ||
      has(message, "corrupt") || has(message, "checksum"))
    return Error(ErrorClass::fatal_run,
                 said +
                     ". The DuckDB file is damaged: restore it from a copy, or move it "
                     "aside and run krow resync to copy the retained messages again" +
                     kept);
  switch (type) {
    case DUCKDB_ERROR_TRANSACTION:
    case DUCKDB_ERROR_INTERRUPT:
    case DUCKDB_ERROR_OUT_OF_MEMORY:
    case DUCKDB_ERROR_IO:
      return Error(ErrorClass::transient, said);
    case DUCKDB_ERROR_FATAL:
    case DUCKDB_ERROR_INTERNAL:
    case DUCKDB_ERROR_SERIALIZATION:
      return Error(ErrorClass::fatal_run,
                   said +
                       ". DuckDB cannot go on with this file (it may be damaged, or "
                       "written by a newer DuckDB)" +
                       kept);
    default:
      return Error(ErrorClass::fatal_run, said);
  }
}

}  // namespace krow::duck
