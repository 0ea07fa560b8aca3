#include "duckdb_query.hpp"

#include <duckdb.h>

#include <stdexcept>

namespace krow::testkit {

QueryResult query(const std::string& path, const std::string& sql) {
  duckdb_database db = nullptr;
  duckdb_connection conn = nullptr;
  duckdb_config cfg = nullptr;
  duckdb_create_config(&cfg);
  duckdb_set_config(cfg, "access_mode", "READ_ONLY");
  char* err = nullptr;
  if (duckdb_open_ext(path.c_str(), &db, cfg, &err) == DuckDBError) {
    std::string msg = err ? err : "?";
    duckdb_free(err);
    duckdb_destroy_config(&cfg);
    throw std::runtime_error("open " + path + ": " + msg);
  }
  duckdb_destroy_config(&cfg);
  duckdb_connect(db, &conn);
  duckdb_result res;
  QueryResult out;
  // Every column as text, whatever its type (the C API cannot print every type itself).
  const std::string text_sql = "SELECT COLUMNS(*)::VARCHAR FROM (" + sql + "\n)";
  const bool failed = duckdb_query(conn, text_sql.c_str(), &res) == DuckDBError;
  std::string error = failed ? duckdb_result_error(&res) : "";
  if (!failed) {
    const idx_t cols = duckdb_column_count(&res);
    for (idx_t c = 0; c < cols; ++c) out.columns.emplace_back(duckdb_column_name(&res, c));
    for (idx_t r = 0; r < duckdb_row_count(&res); ++r) {
      auto& row = out.rows.emplace_back();
      for (idx_t c = 0; c < cols; ++c) {
        if (duckdb_value_is_null(&res, c, r)) {
          row.emplace_back(std::nullopt);
          continue;
        }
        char* v = duckdb_value_varchar(&res, c, r);
        row.emplace_back(std::string(v));
        duckdb_free(v);
      }
    }
  }
  duckdb_destroy_result(&res);
  duckdb_disconnect(&conn);
  duckdb_close(&db);
  if (failed) throw std::runtime_error("query failed: " + error + "\n" + sql);
  return out;
}

void execute(const std::string& path, const std::string& sql) {
  duckdb_database db = nullptr;
  duckdb_connection conn = nullptr;
  if (duckdb_open(path.c_str(), &db) == DuckDBError) throw std::runtime_error("open " + path + " for writing failed");
  duckdb_connect(db, &conn);
  duckdb_result res;
  const bool failed = duckdb_query(conn, sql.c_str(), &res) == DuckDBError;
  const std::string error = failed ? duckdb_result_error(&res) : "";
  duckdb_destroy_result(&res);
  duckdb_disconnect(&conn);
  duckdb_close(&db);
  if (failed) throw std::runtime_error("statement failed: " + error + "\n" + sql);
}

std::string scalar(const std::string& path, const std::string& sql) {
  const auto r = query(path, sql);
  if (r.rows.size() != 1 || r.rows[0].size() != 1) throw std::runtime_error("not a scalar: " + sql);
  return r.rows[0][0].value_or("");
}

}  // namespace krow::testkit
