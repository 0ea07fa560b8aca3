#include "warehouse/duckdb/duckdb_handles.hpp"

#include "util/error.hpp"
#include "warehouse/duckdb/duckdb_errors.hpp"

namespace krow::duck {

std::string Result::text(idx_t col, idx_t row) {
  const Text v(duckdb_value_varchar(&r_, col, row));
  return v ? std::string(v.get()) : std::string();
}

Prepared::Prepared(duckdb_connection conn, const char* sql) {
  if (duckdb_prepare(conn, sql, &p_) == DuckDBError) {
    std::string msg = duckdb_prepare_error(p_) ? duckdb_prepare_error(p_) : "unknown error";
    duckdb_destroy_prepare(&p_);
    throw Error(ErrorClass::fatal_run, "DuckDB refused a statement: " + msg,
                ErrorSource{"DuckDB", "prepare"});
  }
}

void Prepared::run(Result& out, const char* what) {
  if (duckdb_execute_prepared(p_, out.get()) == DuckDBError)
    throw make_error(duckdb_result_error_type(out.get()), out.error(), what);
}

Appender::Appender(duckdb_connection conn, const char* catalog, const std::string& schema,
                   const std::string& table) {
  if (duckdb_appender_create_ext(conn, catalog, schema.c_str(), table.c_str(), &a_) == DuckDBError)
    fail("opening an appender");
}

void Appender::fail(const char* what) {
  const ErrorData data(duckdb_appender_error_data(a_));
  const char* e = data ? duckdb_error_data_message(data.get()) : nullptr;
  throw make_error(data ? duckdb_error_data_error_type(data.get()) : DUCKDB_ERROR_INVALID,
                   e ? e : "unknown error", what);
}

void LogicalTypes::add(duckdb_type type, const char* alias) {
  types_.push_back(duckdb_create_logical_type(type));
  if (alias) duckdb_logical_type_set_alias(types_.back(), alias);
}

}  // namespace krow::duck
