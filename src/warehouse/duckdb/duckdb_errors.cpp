#include "warehouse/duckdb/duckdb_errors.hpp"

namespace krow::duck {

namespace {

bool has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// What an I/O error is about. DuckDB gives every failed file operation one type,
// DUCKDB_ERROR_IO, and puts the reason in its message only: the operating system's own words
// (strerror: "No space left on device", "Read-only file system", "Permission denied") or its
// own about the file ("not a valid DuckDB database", "Corrupt database file: computed
// checksum ..."); the C API passes no errno. So the message is read here, and nowhere else.
enum class IoCause { passing, full, not_writable, damaged };

IoCause io_cause(std::string_view message) {
  if (has(message, "No space left on device") || has(message, "disk is full") ||
      has(message, "Disk quota") || has(message, "File too large"))
    return IoCause::full;
  if (has(message, "Read-only file system") || has(message, "read-only") ||
      has(message, "Permission denied"))
    return IoCause::not_writable;
  if (has(message, "not a valid DuckDB database") || has(message, "Corrupt") ||
      has(message, "corrupt") || has(message, "checksum"))
    return IoCause::damaged;
  return IoCause::passing;
}

}  // namespace

const char* error_type_name(duckdb_error_type type) {
  switch (type) {
    case DUCKDB_ERROR_INVALID:
      return "INVALID";
    case DUCKDB_ERROR_OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case DUCKDB_ERROR_CONVERSION:
      return "CONVERSION";
    case DUCKDB_ERROR_UNKNOWN_TYPE:
      return "UNKNOWN_TYPE";
    case DUCKDB_ERROR_DECIMAL:
      return "DECIMAL";
    case DUCKDB_ERROR_MISMATCH_TYPE:
      return "MISMATCH_TYPE";
    case DUCKDB_ERROR_DIVIDE_BY_ZERO:
      return "DIVIDE_BY_ZERO";
    case DUCKDB_ERROR_OBJECT_SIZE:
      return "OBJECT_SIZE";
    case DUCKDB_ERROR_INVALID_TYPE:
      return "INVALID_TYPE";
    case DUCKDB_ERROR_SERIALIZATION:
      return "SERIALIZATION";
    case DUCKDB_ERROR_TRANSACTION:
      return "TRANSACTION";
    case DUCKDB_ERROR_NOT_IMPLEMENTED:
      return "NOT_IMPLEMENTED";
    case DUCKDB_ERROR_EXPRESSION:
      return "EXPRESSION";
    case DUCKDB_ERROR_CATALOG:
      return "CATALOG";
    case DUCKDB_ERROR_PARSER:
      return "PARSER";
    case DUCKDB_ERROR_PLANNER:
      return "PLANNER";
    case DUCKDB_ERROR_SCHEDULER:
      return "SCHEDULER";
    case DUCKDB_ERROR_EXECUTOR:
      return "EXECUTOR";
    case DUCKDB_ERROR_CONSTRAINT:
      return "CONSTRAINT";
    case DUCKDB_ERROR_INDEX:
      return "INDEX";
    case DUCKDB_ERROR_STAT:
      return "STAT";
    case DUCKDB_ERROR_CONNECTION:
      return "CONNECTION";
    case DUCKDB_ERROR_SYNTAX:
      return "SYNTAX";
    case DUCKDB_ERROR_SETTINGS:
      return "SETTINGS";
    case DUCKDB_ERROR_BINDER:
      return "BINDER";
    case DUCKDB_ERROR_NETWORK:
      return "NETWORK";
    case DUCKDB_ERROR_OPTIMIZER:
      return "OPTIMIZER";
    case DUCKDB_ERROR_NULL_POINTER:
      return "NULL_POINTER";
    case DUCKDB_ERROR_IO:
      return "IO";
    case DUCKDB_ERROR_INTERRUPT:
      return "INTERRUPT";
    case DUCKDB_ERROR_FATAL:
      return "FATAL";
    case DUCKDB_ERROR_INTERNAL:
      return "INTERNAL";
    case DUCKDB_ERROR_INVALID_INPUT:
      return "INVALID_INPUT";
    case DUCKDB_ERROR_OUT_OF_MEMORY:
      return "OUT_OF_MEMORY";
    case DUCKDB_ERROR_PERMISSION:
      return "PERMISSION";
    case DUCKDB_ERROR_PARAMETER_NOT_RESOLVED:
      return "PARAMETER_NOT_RESOLVED";
    case DUCKDB_ERROR_PARAMETER_NOT_ALLOWED:
      return "PARAMETER_NOT_ALLOWED";
    case DUCKDB_ERROR_DEPENDENCY:
      return "DEPENDENCY";
    case DUCKDB_ERROR_HTTP:
      return "HTTP";
    case DUCKDB_ERROR_MISSING_EXTENSION:
      return "MISSING_EXTENSION";
    case DUCKDB_ERROR_AUTOLOAD:
      return "AUTOLOAD";
    case DUCKDB_ERROR_SEQUENCE:
      return "SEQUENCE";
    default:
      return "UNKNOWN";
  }
}

Error make_error(duckdb_error_type type, const std::string& message, const std::string& what) {
  const std::string said = what + " failed in DuckDB: " + message;
  const std::string kept = ". What was committed is kept; run the sync again afterwards";
  const ErrorSource source{"DuckDB", error_type_name(type)};
  const auto fatal = [&](const std::string& fix) {
    return Error(ErrorClass::fatal_run, said, Fix{fix + kept}, source);
  };
  const std::string not_writable =
      "krow cannot write the DuckDB file or its folder: give the user running krow write access "
      "to both (or change warehouse.path)";
  const std::string disk_full =
      "The disk holding the DuckDB file is full: free space there (or move warehouse.path; a "
      "file size limit such as ulimit -f counts too)";
  const std::string damaged =
      "The DuckDB file is damaged: restore it from a copy, or move it aside and run krow resync "
      "to copy the retained messages again";
  // An I/O failure by its cause; one that may pass becomes `passing`.
  const auto io_failure = [&](Error passing) {
    switch (io_cause(message)) {
      case IoCause::full:
        return fatal(disk_full);
      case IoCause::not_writable:
        return fatal(not_writable);
      case IoCause::damaged:
        return fatal(damaged);
      case IoCause::passing:
        break;
    }
    return passing;
  };
  switch (type) {
    case DUCKDB_ERROR_IO:
      return io_failure(Error(ErrorClass::transient, said, source));
    case DUCKDB_ERROR_PERMISSION:
      return fatal(not_writable);
    case DUCKDB_ERROR_TRANSACTION:
      // A commit writes its checkpoint (krow checkpoints every batch); when that write fails
      // DuckDB reports the I/O error inside a TRANSACTION one ("Failed to commit: Failed to
      // create checkpoint because of error: Could not write file ...: File too large"). The
      // file then lacks what the database in memory holds: retrying would go on from there and
      // report rows that never reach the file. Stop, as for the I/O error itself.
      if (has(message, "checkpoint"))
        return io_failure(fatal("DuckDB could not write its checkpoint to the file; check the disk"));
      return Error(ErrorClass::transient, said, source);
    case DUCKDB_ERROR_INTERRUPT:
    case DUCKDB_ERROR_OUT_OF_MEMORY:
      return Error(ErrorClass::transient, said, source);
    case DUCKDB_ERROR_FATAL:
    case DUCKDB_ERROR_INTERNAL:
    case DUCKDB_ERROR_SERIALIZATION:
      return fatal(
          "DuckDB cannot go on with this file (it may be damaged, or written by a newer DuckDB)");
    default:
      return Error(ErrorClass::fatal_run, said, source);
  }
}

bool is_lock_conflict(std::string_view message) {
  // DuckDB gives no code for it: duckdb_open_ext() answers with text alone, and an ATTACH with
  // DUCKDB_ERROR_IO, the type of every file failure. Its words (DuckDB 1.4,
  // common/local_file_system.cpp): "Could not set lock on file "<path>": Conflicting lock is
  // held in <program> (PID <n>) ...". The caller asks the OS for the holder first; this covers
  // a holder the OS does not name (another host's process on a network file system).
  return has(message, "Conflicting lock") || has(message, "Could not set lock");
}

}  // namespace krow::duck
