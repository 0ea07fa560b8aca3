#pragma once
// How rows reach a warehouse: tables made (or changed) before reading, each batch written
// with the positions it advances in one transaction, fenced on the positions it started
// from; or, for staged runs, staged batches published at the end in one transaction.
//
// Thread: one thread at a time per object, except encode() (below).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rows/row_batch.hpp"
#include "util/ids.hpp"
#include "warehouse/table_strategy.hpp"

namespace krow {

// A position a batch advances: from the position stored when the batch began (none before
// a partition's first commit) to the new one, by the writer that took the partition at
// `epoch` (StateStore::take; 0: a writer that never took it). The write is fenced: it happens
// only if the stored position still is `from` and the stored epoch still is `epoch` (a
// partition's row that has no epoch, from a krow before epochs, has epoch 0).
struct PositionMove {
  Position to;
  std::optional<Offset> from;
  Epoch epoch;
};

// Rows counted for the quality gates, with the newest kafka_timestamp among them.
struct RowCount {
  int64_t rows = 0;
  std::optional<int64_t> newest_ms;
};

class BatchWriter {
 public:
  virtual ~BatchWriter() = default;

  // When create_table() makes a table that does not exist yet.
  enum class Creation {
    now,         // at once, with the warehouse schema when that is missing too
    at_publish,  // staged runs: publish() makes it, and the schema, with the rows it publishes
  };

  // Creates the table of a topic (if missing) and records the mapping. Idempotent. Throws
  // fatal_table when a table of that name exists without krow's columns. An existing table
  // with typed columns gets `settings.changes` (evolution_sql) and must then have exactly
  // `settings.typed_columns`, or this throws fatal_table naming the difference. The bindings
  // of `settings.typed_columns` (columns::bindings_of) are recorded in the same transaction:
  // added to an existing table's (a recorded one never changes), or replacing what a dropped
  // table of the same name left. `settings` say how
  // later writes meet the table's rows (commit() and publish() follow them): the adapter
  // keeps them for this object's life, and may create what its strategy needs (an index).
  // Creation::at_publish leaves a missing table (its schema, index, mapping and bindings too)
  // to publish(), so that a staged run that publishes nothing leaves no trace of it in the
  // warehouse schema; until then count_rows() finds no row in it, and begin_staging() makes
  // its staging table from the planned columns.
  virtual void create_table(const std::string& sync_id, const std::string& topic,
                            const std::string& table, const TableSettings& settings,
                            Creation creation) = 0;

  // How a batch's rows meet the rows already stored.
  enum class WriteMode {
    append,  // a batch starts at the committed position: its ids cannot exist yet
    merge,   // a re-read (full resync): rows with the same id are replaced, others kept
  };

  // Called on the reading thread with a full batch before it is handed to the writing
  // thread (while that thread still writes the previous batch): an adapter may turn the rows
  // into its engine's own form here (TableRows::encoded), so that commit() only writes. It
  // must not touch the adapter's connection or any other state that commit() uses. The
  // default does nothing; commit() must also take a batch that was not encoded.
  virtual void encode(RowBatch& batch) const { (void)batch; }

  // Writes a batch's rows and moves its positions in one transaction: either all of it is
  // visible afterwards or none of it. Every move is fenced: when a stored position is not
  // the move's `from`, or its stored epoch not the move's `epoch` (another worker took the
  // partition since), nothing is written and this throws Error(conflict), naming the partition
  // (and, for an epoch, that another worker took it). A value the
  // engine refuses is replaced in `batch` (RowBatch::replace_unstorable), so that it becomes
  // that row's decode_error rather than a failed batch.
  // Throws transient when retrying can help (connection lost, server restarting,
  // serialization failure) — the outcome may then be unknown, as when the connection broke
  // during COMMIT: re-read StateStore::positions() before a retry. Throws fatal_run when it cannot
  // (permissions, disk full, read-only), naming the fix.
  virtual void commit(const std::string& sync_id, RowBatch& batch,
                      const std::vector<PositionMove>& moves, WriteMode mode) = 0;

  // Staged publish (`quality.publish: staged`): a run's rows go to staging tables (one per
  // table of the sync, in krow's state schema) and reach the tables only when publish()
  // moves them there together with the positions, in one transaction. A run that does not
  // publish (a gate failed, or it was killed) leaves the tables and positions as they were.

  // Creates an empty staging table for each of `tables`, dropping what an earlier run that
  // did not publish left there.
  virtual void begin_staging(const std::string& sync_id,
                             const std::vector<std::string>& tables) = 0;

  // Writes a batch's rows into the staging tables in one transaction; no position moves.
  // `again`: the batch may have been staged already (a retry after a failure whose outcome is
  // unknown): its rows replace their earlier copy. Throws as commit() does.
  virtual void stage(const std::string& sync_id, RowBatch& batch, bool again) = 0;

  // In one transaction: creates what create_table() left to it (Creation::at_publish), moves
  // the staged rows into `tables` (appending, or replacing rows with the same id in merge
  // mode), drops the staging tables, and moves the positions, fenced as in commit(). An engine
  // whose transactions take no DDL creates the tables just before it. Throws as commit() does.
  virtual void publish(const std::string& sync_id, const std::vector<std::string>& tables,
                       const std::vector<PositionMove>& moves, WriteMode mode) = 0;

  // Drops the staging tables of `tables`: nothing of them is published.
  virtual void discard_staged(const std::string& sync_id,
                              const std::vector<std::string>& tables) = 0;

  // The sync expects to write nothing for a while (a continuous sync that has caught up: its
  // next batch is still filling, or it had nothing to read for batch.max_wait). An engine whose
  // open storage keeps every other process out (a DuckDB file) lets go of it here, keeping the
  // sync's lock; the next call that needs it opens it again, waiting as an open does while another
  // process has it. Call it only when no write is under way. The default does nothing.
  virtual void idle() {}

  // The rows of `table` (or, `staged`, of its staging table) whose offsets fall in one of
  // `ranges`, or all of them when `ranges` is empty.
  virtual RowCount count_rows(const std::string& sync_id, const std::string& table, bool staged,
                              const std::vector<OffsetRange>& ranges) = 0;
};

}  // namespace krow
