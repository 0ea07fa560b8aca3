#pragma once
// Test support: GoogleSQL queries against a BigQuery-API endpoint (the local emulator,
// scripts/bigquery.sh), over the REST API with libcurl and none of krow's code.

#include <simdjson.h>

#include <string>
#include <utility>
#include <vector>

#include "duckdb_query.hpp"

namespace krow::testkit {

class BqSession {
 public:
  // `endpoint`: the API's root URL (http://127.0.0.1:9050); `project`: the project queried.
  BqSession(std::string endpoint, std::string project);

  // Runs a query; `strings` become the query parameter @strings (ARRAY<STRING>) when given.
  // Throws std::runtime_error with the API's error.
  QueryResult query(const std::string& sql, const std::vector<std::string>& strings = {});
  std::string scalar(const std::string& sql);
  // Creates a dataset (an existing one is fine).
  void create_dataset(const std::string& dataset);
  // The table resource (tables.get) of dataset.table, as JSON text.
  std::string table_json(const std::string& dataset, const std::string& table);
  // The columns of dataset.table in their order, with their GoogleSQL types, as a query of it
  // sees them (the emulator's tables.get and INFORMATION_SCHEMA do not see what an ALTER TABLE
  // added or changed).
  std::vector<std::pair<std::string, std::string>> columns(const std::string& dataset,
                                                           const std::string& table);
  // Whether the dataset exists.
  bool has_dataset(const std::string& dataset);
  // Whether dataset.table exists.
  bool has_table(const std::string& dataset, const std::string& table);

  // The local emulator (KROW_TEST_BIGQUERY, else http://127.0.0.1:9050).
  static std::string default_endpoint();

 private:
  // Appends the rows of one answer (and, `columns`, the column names) to `out`.
  static void read_rows(simdjson::dom::element doc, QueryResult& out, bool columns);
  std::string endpoint_, project_;
};

}  // namespace krow::testkit
