#pragma once
// The warehouse interface. An adapter owns everything that touches its engine: DDL, the
// batch write, and krow's state (positions, table names, run records), so nothing outside
// warehouse/ writes SQL and the rest of krow never knows which engine it talks to.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "manifest/manifest.hpp"
#include "rows/row_batch.hpp"

namespace krow {

// A partition's committed position: the next offset to read.
struct StoredPosition {
  std::string topic;
  std::string topic_id;
  int32_t partition = 0;
  int64_t next_offset = 0;
};

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

enum class OpenMode { read_only, write };

class Warehouse {
 public:
  virtual ~Warehouse() = default;

  // For messages: "DuckDB file /path/x.duckdb".
  virtual std::string describe() const = 0;

  // Committed positions of a sync (empty before its first commit).
  virtual std::vector<StoredPosition> positions(const std::string& sync_id) = 0;

  // Every topic → table mapping in the warehouse schema, of every sync.
  virtual std::vector<TableMapping> tables() = 0;

  // Creates the table of a topic (if missing) and records the mapping. Idempotent.
  virtual void create_table(const std::string& sync_id, const std::string& topic,
                            const std::string& table) = 0;

  // How a batch's rows meet the rows already stored.
  enum class WriteMode {
    append,  // a batch starts at the committed position: its ids cannot exist yet
    merge,   // a re-read (full resync): rows with the same id are replaced, others kept
  };

  // Writes a batch's rows and the positions they advance in one transaction: either all
  // of it is visible afterwards or none of it. Throws transient on a write failure, after
  // rolling back.
  virtual void commit(const std::string& sync_id, const RowBatch& batch,
                      const std::vector<PositionUpdate>& positions, WriteMode mode) = 0;

  // Stores a run's record.
  virtual void record_run(const RunRecord& run) = 0;

  // Recent run records of a sync, newest first.
  virtual std::vector<RunRecord> runs(const std::string& sync_id, int limit) = 0;
};

// Opens the manifest's warehouse. In write mode it first takes the sync's lock, so two
// syncs of one sync ID never run at once (throws fatal_run naming the holder's pid).
std::unique_ptr<Warehouse> open_warehouse(const WarehouseConfig& config, const std::string& sync_id,
                                          OpenMode mode);

}  // namespace krow
