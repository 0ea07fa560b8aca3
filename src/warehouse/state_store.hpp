#pragma once
// krow's state in a warehouse: the positions a sync has committed, the tables it made, and
// its run records (declared once in contract/state_tables.hpp). State lives in the warehouse
// it describes, so that a batch and the positions it advances commit together
// (BatchWriter::commit). It is keyed by sync ID and warehouse schema: the same sync ID
// writing another schema starts from nothing, as its tables are new.
//
// Thread: one thread at a time per object.

#include <cstdint>
#include <string>
#include <vector>

#include "util/ids.hpp"

namespace krow {

// A topic's table, as recorded when the table was created.
struct TableMapping {
  std::string sync_id;
  std::string topic;
  std::string table;
};

struct RunRecord {
  std::string run_id;
  std::string sync_id;
  int64_t started_at_ms = 0;
  int64_t finished_at_ms = 0;
  std::string status;  // success | partial | failed | interrupted
  std::string json;    // the full record (counts, bytes, durations, errors, gaps)
};

class StateStore {
 public:
  virtual ~StateStore() = default;

  // For messages: "DuckDB file /path/x.duckdb", "PostgreSQL database krow on host:port".
  virtual std::string describe() const = 0;

  // Committed positions of a sync in this schema (empty before its first commit).
  virtual std::vector<Position> positions(const std::string& sync_id) = 0;

  // Every topic → table mapping in the warehouse schema, of every sync.
  virtual std::vector<TableMapping> tables() = 0;

  // Stores a run's record (replacing one with the same run ID).
  virtual void record_run(const RunRecord& run) = 0;

  // Recent run records of a sync, newest first.
  virtual std::vector<RunRecord> runs(const std::string& sync_id, int limit) = 0;
};

}  // namespace krow
