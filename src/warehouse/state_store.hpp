#pragma once
// krow's state in a warehouse: the positions a sync has committed, the tables it made, and
// its run records (declared once in contract/state_tables.hpp). State lives in the warehouse
// it describes, so that a batch and the positions it advances commit together
// (BatchWriter::commit). It is keyed by sync ID and warehouse schema: the same sync ID
// writing another schema starts from nothing, as its tables are new.
//
// Thread: one thread at a time per object.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/ids.hpp"

namespace krow {

// A partition of a sync, as positions are keyed: the topic ID tells apart the incarnations
// of a topic name.
struct PartitionKey {
  std::string topic;
  TopicId topic_id;
  Partition partition;
};

// A partition taken (StateStore::take): the epoch this taker now holds, which every commit
// it makes for the partition is fenced on, and the partition's committed position (none
// before its first commit).
struct PartitionClaim {
  PartitionKey key;
  Epoch epoch;
  std::optional<Offset> position;
};

// A topic's table, as recorded when the table was created.
struct TableMapping {
  std::string sync_id;
  std::string topic;
  std::string table;
};

// A worker of a continuous sync, as recorded in krow's state (contract::kWorkers).
struct WorkerRecord {
  std::string sync_id;
  std::string worker_id;
  std::string host;
  int64_t pid = 0;
  std::string partitions;       // its assignment as text ("orders:0,1,5")
  int64_t heartbeat_at_ms = 0;  // when it last wrote its row (read back only)
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

  // Committed positions of a sync in this schema (empty before its first commit). A
  // partition taken but never committed has none.
  virtual std::vector<Position> positions(const std::string& sync_id) = 0;

  // Takes `partitions` for the caller, in one transaction: bumps each one's epoch (a
  // partition never taken gets a row with epoch 1 and no position) and returns the new epochs
  // with the stored positions, in the order of `partitions`. A compare-and-set: of two takes of
  // one partition, concurrent or not, each gets its own epoch and the later one wins; commits
  // fenced on the earlier epoch (BatchWriter::commit, publish) are refused from then on.
  // Needs a warehouse opened for writing. Throws transient when retrying can help (the
  // outcome may then be unknown: take again, which bumps again), conflict when a concurrent
  // take got in the way and retrying did not help, fatal_run when it cannot (permissions).
  virtual std::vector<PartitionClaim> take(const std::string& sync_id,
                                           const std::vector<PartitionKey>& partitions) = 0;

  // Every topic → table mapping in the warehouse schema, of every sync.
  virtual std::vector<TableMapping> tables() = 0;

  // Stores a run's record (replacing one with the same run ID).
  virtual void record_run(const RunRecord& run) = 0;

  // Recent run records of a sync, newest first.
  virtual std::vector<RunRecord> runs(const std::string& sync_id, int limit) = 0;

  // OpenMode::worker only (engines with concurrent_writers): takes the sync's lock, waiting
  // up to `wait` while another worker holds it (it is preparing tables); throws transient
  // after that, naming the holder. The default (engines that take no workers) does nothing.
  virtual void lock_sync(std::chrono::milliseconds wait) { (void)wait; }
  // Releases the lock lock_sync() took. Never throws.
  virtual void unlock_sync() noexcept {}

  // Records (replaces) a worker's row. Throws as a write does.
  virtual void record_worker(const WorkerRecord& worker) { (void)worker; }
  // The workers recorded for a sync, by worker ID; empty where there are none.
  virtual std::vector<WorkerRecord> workers(const std::string& sync_id) {
    (void)sync_id;
    return {};
  }
};

}  // namespace krow
