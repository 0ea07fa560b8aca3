#include "warehouse/duckdb_adapter/duckdb_handles.hpp"

#include <vector>

#include "util/error.hpp"

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
    throw Error(ErrorClass::transient, std::string(what) + " failed in DuckDB: " + out.error());
}

Appender::Appender(duckdb_connection conn, const char* catalog, const std::string& schema, const std::string& table) {
  if (duckdb_appender_create_ext(conn, catalog, schema.c_str(), table.c_str(), &a_) == DuckDBError)
    fail("opening an appender");
}

void Appender::fail(const char* what) {
  const char* e = duckdb_appender_error(a_);
  throw Error(ErrorClass::transient, std::string(what) + " failed in DuckDB: " + (e ? e : "unknown error"));
}

DataChunk::DataChunk(duckdb_appender appender) {
  const idx_t n = duckdb_appender_column_count(appender);
  std::vector<duckdb_logical_type> types(n);
  for (idx_t i = 0; i < n; ++i) types[i] = duckdb_appender_column_type(appender, i);
  c_ = duckdb_create_data_chunk(types.data(), n);
  for (auto& t : types) duckdb_destroy_logical_type(&t);
}

}  // namespace krow::duck
