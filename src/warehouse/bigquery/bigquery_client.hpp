#pragma once
// BigQuery's REST API (v2) over http::Client: datasets, tables, query jobs and load jobs, with
// every failure turned into a krow Error of the right class (classify_api_error) whose
// sentence names the fix. Nothing here knows krow's tables: bigquery_warehouse does.
//
// Thread: one thread at a time per object.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/http_client.hpp"
#include "util/error.hpp"
#include "warehouse/bigquery/bigquery_auth.hpp"
#include "warehouse/bigquery/bigquery_settings.hpp"

namespace krow::bigquery {

// The text krow's scripts raise (GoogleSQL ERROR()) when the stored state is not what a
// write started from: the answer becomes Error(conflict).
inline constexpr std::string_view kFenceMarker = "krow-fence:";

// What an API answer said went wrong: the HTTP status (0: no answer came), the first error
// reason ("notFound", "accessDenied", "rateLimitExceeded", ...) and its message.
struct ApiProblem {
  long status = 0;
  std::string reason;
  std::string message;
  bool retriable =
      true;  // with no answer: whether trying again can help (not a TLS or URL problem)
  std::string failure;  // with no answer: how the request failed (http::failure_name)
};

// The first error of an answer: {"error": {"code", "message", "errors": [{"reason", "message"}]}}
// (a failed request), a job's {"status": {"errorResult": ...}}, or a query answer's
// top-level {"errors": [...]}; a body that is not JSON is the message.
ApiProblem parse_api_problem(long status, const std::string& body);

// The krow error for an API problem met while `doing` ("writing a batch"), classified by the
// HTTP status and BigQuery's error reason: transient when trying again can help (no answer,
// 5xx, 429, rateLimitExceeded, backendError, a transaction that met a concurrent one),
// conflict for a failed fence, otherwise fatal_run with the fix (the IAM role missing, the
// dataset to create, the daily quota). Its source is {"BigQuery", the reason (or "HTTP <status>",
// or how the request failed)}. `where` names the warehouse; `project` and `dataset` go into the
// roles to grant.
Error classify_api_error(const ApiProblem& problem, const std::string& doing,
                         const std::string& where, const std::string& project,
                         const std::string& dataset);

// One named query parameter (@name in GoogleSQL): its type ("STRING", "INT64") and value.
struct Param {
  std::string name;
  std::string type;
  std::optional<std::string> value;  // nullopt: NULL
};

// A query's rows, each cell as the API's text (nullopt for NULL).
struct QueryResult {
  std::vector<std::vector<std::optional<std::string>>> rows;
  int64_t affected = 0;  // rows a DML statement changed
};

// The integer in a cell of a query's rows (the API answers INT64 values as decimal text), or
// `if_null` for NULL. Throws Error(fatal_run) naming `what` when the cell holds anything else.
int64_t integer_cell(const std::optional<std::string>& cell, const char* what, int64_t if_null = 0);

// A table's field, as tables.insert and load jobs take it and tables.get gives it.
struct Field {
  std::string name;
  // STRING, INT64, TIMESTAMP, JSON, BOOL, NUMERIC, ...; tables.get answers the legacy names of
  // some (INTEGER, FLOAT, BOOLEAN), which table_fields() gives as GoogleSQL names.
  std::string type;
  bool required = false;
  bool repeated = false;  // mode REPEATED (an array): never a column krow makes
  // A parameterised NUMERIC or BIGNUMERIC's precision and scale, 0 when it has none.
  int32_t precision = 0;
  int32_t scale = 0;
};

// How a table is laid out.
struct TableLayout {
  std::vector<Field> fields;
  std::string partition_field;  // empty: not partitioned (or, with a type, by ingestion time)
  std::string partition_type;   // DAY, HOUR, MONTH, YEAR; empty: not partitioned
  std::vector<std::string> cluster_by;
  std::optional<int64_t> expires_at_ms;
};

class Client {
 public:
  // `dataset` is the row tables' dataset (for messages and the roles to grant).
  Client(const BigQuerySettings& settings, std::string dataset);
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // The location of a dataset, or nullopt when it does not exist.
  std::optional<std::string> dataset_location(const std::string& dataset);
  // Creates a dataset in `location` (an existing one is fine).
  void create_dataset(const std::string& dataset, const std::string& location,
                      std::optional<int64_t> default_table_expiration_ms = std::nullopt);
  // A table's fields, or nullopt when it does not exist.
  std::optional<std::vector<Field>> table_fields(const std::string& dataset,
                                                 const std::string& table);
  // A table's layout as tables.get gives it (its fields, time partitioning and clustering), or
  // nullopt when it does not exist.
  std::optional<TableLayout> table_layout(const std::string& dataset, const std::string& table);
  // Sets the clustering columns of a table (tables.patch); none: not clustered. BigQuery
  // clusters the rows written from then on by them.
  void set_clustering(const std::string& dataset, const std::string& table,
                      const std::vector<std::string>& fields);
  // The fields of the results of query `sql`, from a dry run (free, nothing is read), or
  // nullopt when a table it reads does not exist: the columns as the statements that write
  // them see them.
  std::optional<std::vector<Field>> result_fields(const std::string& sql,
                                                  const std::string& location, const char* doing);
  // Creates a table (an existing one is fine).
  void create_table(const std::string& dataset, const std::string& table,
                    const TableLayout& layout);
  // Deletes a table (a missing one is fine).
  void delete_table(const std::string& dataset, const std::string& table);

  // Runs a GoogleSQL query or script in `location` and waits for it.
  QueryResult query(const std::string& sql, const std::vector<Param>& params,
                    const std::string& location, const char* doing);
  // Loads newline-delimited JSON into a table (created with `fields` when missing; its rows
  // replaced) with one load job, and waits for it.
  void load(const std::string& dataset, const std::string& table, const std::vector<Field>& fields,
            const std::string& ndjson, const std::string& location, const char* doing);

  std::string describe_auth() const { return tokens_->describe(); }

 private:
  struct Answer {
    long status = 0;
    std::string body;
    std::string transport_error;
    bool transport_retriable = true;
    std::string failure;  // with no answer: how the request failed (http::failure_name)
  };
  // One request; a 401 gets one more try with a new token.
  Answer send(const char* method, const std::string& url, const std::string& content_type,
              const std::string& body);
  // Throws the classified error of an answer that is not a success.
  [[noreturn]] void fail(const Answer& answer, const char* doing) const;
  // Waits for a job to be done; throws its error.
  void wait_for_job(const std::string& job_id, const std::string& location, const char* doing);
  std::string api(const std::string& path) const;

  const BigQuerySettings& settings_;
  std::string dataset_;
  std::unique_ptr<TokenSource> tokens_;
  http::Client http_;
};

// "`project.dataset.table`": a table's name as GoogleSQL reads it, whatever it holds.
std::string table_ref(const std::string& project, const std::string& dataset,
                      const std::string& table);

}  // namespace krow::bigquery
