#include "warehouse/duckdb/duckdb_handles.hpp"

#include "util/error.hpp"
#include "warehouse/duckdb/duckdb_errors.hpp"

namespace krow::duck {

std::string Result::text(idx_t col, idx_t row) {
  char* v = duckdb_value_varchar(&r_, col, row);
  if (!v) return {};
  std::string out(v);
  duckdb_free(v);
  return out;
}

Prepared::Prepared(duckdb_connection conn, const char* sql) {
  if (duckdb_prepare(conn, sql, &p_) == DuckDBError) {
    std::string msg = duckdb_prepare_error(p_) ? duckdb_prepare_error(p_) : "unknown error";
    duckdb_destroy_prepare(&p_);
    throw Error(ErrorClass::fatal_run, "DuckDB refused a statement: " + msg);
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
  duckdb_error_data data = duckdb_appender_error_data(a_);
  const char* e = data ? duckdb_error_data_message(data) : nullptr;
  auto error = make_error(data ? duckdb_error_data_error_type(data) : DUCKDB_ERROR_INVALID,
                          e ? e : "unknown error", what);
  duckdb_destroy_error_data(&data);
  throw error;
}

void LogicalTypes::add(duckdb_type type, const char* alias) {
  types_.push_back(duckdb_create_logical_type(type));
  if (alias) duckdb_logical_type_set_alias(types_.back(), alias);
}

}  // namespace krow::duck
