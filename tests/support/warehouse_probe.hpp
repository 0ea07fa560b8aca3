#pragma once
// Test support: reads what krow wrote into a warehouse — rows, positions, table names, run
// records — the same way for every engine, with the engine's own client (DuckDB's C API,
// libpq, BigQuery's REST API) and none of krow's code, so that tests say what they check
// once for all engines.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "duckdb_query.hpp"

namespace krow::testkit {

// One row of a krow table, every column of docs/row-contract.md. JSON columns are text as the engine
// gives it back (DuckDB keeps the text; PostgreSQL's jsonb normalises it: see canonical_json).
struct StoredRow {
  std::string id;
  std::string topic_id;
  int32_t partition = 0;
  int64_t offset = 0;
  std::optional<int64_t> timestamp_ms;
  Cell timestamp_type;
  Cell key;
  Cell key_format;
  std::optional<int64_t> key_schema_id;
  Cell value;
  Cell value_format;
  std::optional<int64_t> value_schema_id;
  Cell value_base64;
  std::optional<int64_t> value_size_bytes;
  Cell headers;
  bool is_tombstone = false;
  Cell decode_error;
};

struct StoredPosition {
  std::string topic;
  std::string topic_id;
  int32_t partition = 0;
  int64_t next_offset = 0;
};

struct StoredTable {
  std::string sync_id;
  std::string topic;
  std::string table;
};

class Probe {
 public:
  virtual ~Probe() = default;
  virtual std::string engine() const = 0;

  // Whether the probe's warehouse schema (BigQuery: dataset) exists.
  virtual bool has_schema() = 0;
  // Row tables, in the probe's warehouse schema. A table that does not exist has no rows.
  virtual bool has_table(const std::string& table) = 0;
  // Every row, by partition and offset.
  virtual std::vector<StoredRow> rows(const std::string& table) = 0;
  virtual int64_t count(const std::string& table) = 0;
  virtual int64_t distinct_ids(const std::string& table) = 0;
  // Rows that repeat an id another row of `table` has (0: every id once), counted in one
  // statement, so that it holds while writers commit.
  virtual int64_t repeated_ids(const std::string& table) = 0;
  // Column name → the engine's type name.
  virtual std::map<std::string, std::string> column_types(const std::string& table) = 0;
  // Column names in the table's order.
  virtual std::vector<std::string> column_names(const std::string& table) = 0;
  // The table's physical design as the engine's catalog keeps it (docs/physical-design.md), in
  // one line: DuckDB the table's comment; PostgreSQL the indexes named krow_ix_* (pg_indexes),
  // each "<method> (<columns>)", sorted, joined by "; "; BigQuery tables.get's time partitioning
  // and clustering, "partition <TYPE> <field>; cluster <a>, <b>" ("-" for none).
  virtual std::string design(const std::string& table) = 0;

  // Any SQL in the engine's own dialect, for what only a test of that engine's types can say
  // (execute: statements without results, as a state a test must set up).
  virtual QueryResult query(const std::string& sql) = 0;
  virtual void execute(const std::string& sql) = 0;

  // krow's state: every stored position (of every sync and schema unless narrowed),
  // by topic and partition; table names of the probe's schema; run records, newest first.
  virtual std::vector<StoredPosition> positions(const std::string& schema = {}) = 0;
  virtual std::vector<StoredTable> tables() = 0;
  virtual std::vector<std::string> run_records() = 0;
  // Overwrites a stored position, as the state a log truncated under krow (an unclean
  // leader election) leaves behind: a fault one real broker cannot produce on demand.
  virtual void set_position(const std::string& topic, int32_t partition, int64_t next_offset) = 0;
  // A partition's stored epoch (StateStore::take), of any sync: none without a row or an epoch.
  virtual std::optional<int64_t> epoch(const std::string& topic, int32_t partition) = 0;
  // Takes a partition in krow's state as another process would (its epoch bumped; on BigQuery
  // also its row taken from the table of the worker holding it), without any krow: the state
  // a worker paused past its session timeout leaves when it takes partitions back on waking.
  virtual void take_partition(const std::string& topic, int32_t partition) = 0;
  // Rewrites krow's positions table as krow versions before epochs made it (no epoch column,
  // next_offset NOT NULL, krow's role its owner), keeping its committed positions: the state an
  // upgrade of krow meets.
  virtual void make_positions_table_old() = 0;

  // `json` as this engine stores it: DuckDB keeps JSON text as written; PostgreSQL's jsonb
  // reorders keys and rewrites spaces and numbers. Expected values go through this before
  // they are compared with stored ones.
  virtual std::string canonical_json(const std::string& json) = 0;
  Cell canonical_json(const Cell& json) { return json ? Cell(canonical_json(*json)) : Cell(); }
  // The same for many values at once (one round trip).
  virtual std::vector<Cell> canonical_json(const std::vector<Cell>& json) = 0;
  // Whether two JSON texts are equal by the engine's own JSON equality, for an engine whose
  // stored JSON the tests' parser cannot always read back (EngineTraits::json_compared_by_engine:
  // PostgreSQL's jsonb). The others' probes throw: their JSON is compared structurally.
  virtual bool same_json(const std::string& a, const std::string& b);

  int64_t positions_sum() {
    int64_t n = 0;
    for (const auto& p : positions()) n += p.next_offset;
    return n;
  }
};

// A DuckDB file (opened read-only for each call).
std::unique_ptr<Probe> duckdb_probe(const std::string& path, const std::string& schema = "confluent");
// A PostgreSQL database, through a libpq connection string.
std::unique_ptr<Probe> postgres_probe(const std::string& conninfo, const std::string& schema = "confluent");
// A dataset of a project on a BigQuery-API endpoint (the local emulator).
std::unique_ptr<Probe> bigquery_probe(const std::string& endpoint, const std::string& project,
                                      const std::string& dataset = "confluent");

}  // namespace krow::testkit
