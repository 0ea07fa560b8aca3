#pragma once
// RAII wrappers for the DuckDB C API objects krow uses, one per object. Errors are read from a
// handle before it is destroyed, and destructors never throw.

#include <duckdb.h>

#include <string>
#include <vector>

#include "util/c_handle.hpp"

namespace krow::duck {

// DuckDB's destroy calls take the handle's address (and null it); these take the handle.
inline void close_database(duckdb_database db) {
  duckdb_close(&db);
}
inline void disconnect(duckdb_connection conn) {
  duckdb_disconnect(&conn);
}
inline void destroy_config(duckdb_config config) {
  duckdb_destroy_config(&config);
}
inline void destroy_error_data(duckdb_error_data data) {
  duckdb_destroy_error_data(&data);
}

// A database (duckdb_open_ext); closed after every connection to it (declare it first).
using Database = CHandle<_duckdb_database, close_database>;
// A connection to a Database (duckdb_connect).
using Connection = CHandle<_duckdb_connection, disconnect>;
// Settings for duckdb_open_ext (duckdb_create_config).
using Config = CHandle<_duckdb_config, destroy_config>;
// An error's type and message (duckdb_appender_error_data).
using ErrorData = CHandle<_duckdb_error_data, destroy_error_data>;
// Text DuckDB allocated for the caller (an error of duckdb_open_ext, duckdb_value_varchar).
using Text = CHandle<char, duckdb_free>;

// A query result; destroyed with the object.
class Result {
 public:
  Result() = default;
  ~Result() { duckdb_destroy_result(&r_); }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  duckdb_result* get() { return &r_; }
  idx_t rows() { return duckdb_row_count(&r_); }
  idx_t columns() { return duckdb_column_count(&r_); }
  bool is_null(idx_t col, idx_t row) { return duckdb_value_is_null(&r_, col, row); }
  std::string text(idx_t col, idx_t row);
  int64_t int64(idx_t col, idx_t row) { return duckdb_value_int64(&r_, col, row); }
  const char* error() { return duckdb_result_error(&r_); }
  idx_t rows_changed() { return duckdb_rows_changed(&r_); }

 private:
  duckdb_result r_{};
};

class Prepared {
 public:
  Prepared(duckdb_connection conn, const char* sql);
  ~Prepared() { duckdb_destroy_prepare(&p_); }
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
  duckdb_prepared_statement get() { return p_; }
  // Runs it; throws the Error of duck::make_error on failure.
  void run(Result& out, const char* what);

 private:
  duckdb_prepared_statement p_ = nullptr;
};

class Appender {
 public:
  Appender(duckdb_connection conn, const char* catalog, const std::string& schema,
           const std::string& table);
  ~Appender() { duckdb_appender_destroy(&a_); }
  Appender(const Appender&) = delete;
  Appender& operator=(const Appender&) = delete;
  duckdb_appender get() { return a_; }
  // Throws the Error of duck::make_error for the appender's error.
  [[noreturn]] void fail(const char* what);

 private:
  duckdb_appender a_ = nullptr;
};

// The column types of a data chunk; destroyed with the object.
class LogicalTypes {
 public:
  LogicalTypes() = default;
  ~LogicalTypes() {
    for (auto& t : types_) duckdb_destroy_logical_type(&t);
  }
  LogicalTypes(const LogicalTypes&) = delete;
  LogicalTypes& operator=(const LogicalTypes&) = delete;
  // Adds a type; `alias` names a type DuckDB defines over another one (JSON over VARCHAR).
  void add(duckdb_type type, const char* alias = nullptr);
  // Adds DECIMAL(width, scale).
  void add_decimal(uint8_t width, uint8_t scale) {
    types_.push_back(duckdb_create_decimal_type(width, scale));
  }
  duckdb_logical_type* data() { return types_.data(); }
  idx_t size() const { return types_.size(); }

 private:
  std::vector<duckdb_logical_type> types_;
};

class DataChunk {
 public:
  explicit DataChunk(LogicalTypes& types)
      : c_(duckdb_create_data_chunk(types.data(), types.size())) {}
  ~DataChunk() {
    if (c_) duckdb_destroy_data_chunk(&c_);
  }
  DataChunk(DataChunk&& o) noexcept : c_(o.c_) { o.c_ = nullptr; }
  DataChunk(const DataChunk&) = delete;
  DataChunk& operator=(const DataChunk&) = delete;
  duckdb_data_chunk get() { return c_; }

 private:
  duckdb_data_chunk c_ = nullptr;
};

}  // namespace krow::duck
