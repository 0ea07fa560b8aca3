#pragma once
// The embedded default warehouse: a DuckDB file. Rows go in through column-wise data-chunk
// appends inside one transaction per batch, together with the positions they advance.
//
// Ids are unique by construction, so the row tables carry no index: a batch always starts
// at the committed position of its partitions (the fenced position update makes sure of it)
// and so cannot overlap rows already stored. The sync lock is a file lock beside the file.
// DuckDB itself lets one process write a file only while no other has it open: a sync that
// finds it held (a reader, another sync ID) waits up to warehouse.retry_timeout. A continuous
// sync that has caught up closes the file after each batch while the next one fills, and when
// it has been idle for batch.max_wait (idle()), so that readers get in between its batches.

#include <duckdb.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "warehouse/duckdb/duckdb_handles.hpp"
#include "warehouse/duckdb/duckdb_settings.hpp"
#include "warehouse/duckdb/file_lock.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

class DuckDBWarehouse : public Warehouse {
 public:
  DuckDBWarehouse(const WarehouseConfig& config, const std::string& sync_id, OpenMode mode);
  ~DuckDBWarehouse() override;

  std::string describe() const override;
  std::string column_sql_type(const columns::ColumnSpec& column) const override;
  std::optional<std::vector<columns::TableColumn>> typed_columns(const std::string& table) override;
  std::vector<columns::ColumnBinding> column_bindings(const std::string& table) override;
  std::vector<std::string> evolution_sql(
      const std::string& table, const std::vector<columns::ColumnChange>& changes) const override;
  std::vector<Position> positions(const std::string& sync_id) override;
  std::vector<PartitionClaim> take(const std::string& sync_id,
                                   const std::vector<PartitionKey>& partitions) override;
  std::vector<TableMapping> tables() override;
  void create_table(const std::string& sync_id, const std::string& topic, const std::string& table,
                    const TableSettings& settings, Creation creation) override;
  // Builds each table's DuckDB data chunks (on the reading thread; no connection needed).
  void encode(RowBatch& batch) const override;
  void commit(const std::string& sync_id, RowBatch& batch, const std::vector<PositionMove>& moves,
              WriteMode mode) override;
  void begin_staging(const std::string& sync_id, const std::vector<std::string>& tables) override;
  void stage(const std::string& sync_id, RowBatch& batch, bool again) override;
  void publish(const std::string& sync_id, const std::vector<std::string>& tables,
               const std::vector<PositionMove>& moves, WriteMode mode) override;
  void discard_staged(const std::string& sync_id, const std::vector<std::string>& tables) override;
  RowCount count_rows(const std::string& sync_id, const std::string& table, bool staged,
                      const std::vector<OffsetRange>& ranges) override;
  void record_run(const RunRecord& run) override;
  std::vector<RunRecord> runs(const std::string& sync_id, int limit) override;
  // Closes the file (the sync's lock beside it stays held), so that other processes can open
  // it; the next call that needs it opens it again.
  void idle() override;
  // The order of a table's rows (`sort_by`), recorded in the table's comment
  // (duckdb_design.cpp).
  DesignPlan plan_design(const std::string& table, const TableSettings& settings) override;

 protected:
  std::string audited_table(const std::string& table) const override;
  const AuditSql& audit_sql() const override;
  std::vector<std::vector<std::optional<std::string>>> select_text(
      const std::string& sql, const std::string& what) override;

 private:
  // The sort order recorded in `table`'s comment (empty: none); nullopt when the table does
  // not exist (duckdb_design.cpp).
  std::optional<std::vector<std::string>> recorded_sort(const std::string& table);
  // The COMMENT ON TABLE that records `sort_by` (NULL when empty).
  std::string sort_comment_sql(const std::string& table,
                               const std::vector<std::string>& sort_by) const;
  // The statements that write `table` again sorted by `sort_by` (its columns: `definitions`),
  // in one transaction of the caller's, and record the order.
  std::vector<std::string> resort_sql(const std::string& table,
                                      const std::vector<std::string>& sort_by,
                                      const std::string& definitions) const;
  // Brings an existing table's sort order to `settings.design.sort_by` (plan_design's changes).
  void apply_sort(const std::string& table, const TableSettings& settings);
  // " ORDER BY ..." for the rows written into `table` (its effective sort order), or "".
  std::string order_by(const std::string& table) const;
  // The connection, opening the file again after idle().
  duckdb_connection conn();
  // The settings of a writing connection (checkpoints; see the definition).
  void configure_writes();
  // Opens the file (a sync: attaches it to an in-memory database). While another process
  // holds it, tries again for up to `patience`, then throws Error(transient) naming that
  // process; other failures throw Error(fatal_run) at once.
  void open_file(OpenMode mode, std::chrono::seconds patience);
  // One attempt; returns DuckDB's failure ("" when open), with nothing left open then.
  std::string open_once(OpenMode mode);
  void exec(const std::string& sql, const char* what);
  void create_state();
  // Files written before positions were keyed by warehouse schema get the column.
  void upgrade_state();
  // Positions tables of krow versions before epochs get the epoch column, and next_offset
  // may be NULL (a partition taken, never committed). In one transaction.
  void upgrade_positions();
  // A table's rows as DuckDB data chunks of krow's column types; dropped once committed.
  struct TableChunks final : EncodedRows {
    std::vector<duck::DataChunk> chunks;
    std::string ids;  // the id column's text, which the chunks refer to
  };
  // Builds them (again) into table.encoded.
  TableChunks& encode_table(TableRows& table, const std::string& arena) const;
  // A table's typed columns as create_table() found or made them (tables with typed
  // columns only). Written before reading starts, then only read (by encode() too).
  struct TypedTable {
    size_t count = 0;         // the table's typed columns (those of its settings, in table order)
    std::string definitions;  // the column list of its CREATE TABLE (metadata and typed columns,
                              // table order)
  };
  // Makes the settings' changes to the typed columns of `table` and checks that it then has
  // exactly the settings' typed columns.
  TypedTable reconcile_typed(const std::string& table, const TableSettings& settings, bool created);
  // The planned typed columns of a table (those of `settings`, in order).
  TypedTable planned_typed(const TableSettings& settings) const;
  // Creates a table that does not exist (and the warehouse schema when missing) with the
  // planned columns, and records its mapping; inside the caller's transaction.
  void create_new_table(const std::string& sync_id, const std::string& topic,
                        const std::string& table, const TableSettings& settings);
  // Records the topic's table name in krow's state, unless the name is recorded already.
  void record_table_name(const std::string& sync_id, const std::string& topic,
                         const std::string& table);
  const TypedTable* typed_of(const std::string& table) const;
  // The column list of a CREATE TABLE of `table` (its typed columns too).
  std::string definitions_of(const std::string& table) const;
  // Appends rows to `catalog`.`schema`.`table` (the row table, or the merge stage), from
  // the chunks encode() built, or builds them now if the rows changed since.
  void append_rows(TableRows& table, const std::string& arena, const char* catalog,
                   const std::string& schema, const std::string& table_name);
  // Full resync: replaces the rows whose ids the batch holds, keeps every other row.
  void merge_rows(TableRows& table, const std::string& arena);
  // Puts a batch's rows of one table into the session's temporary stage; returns its name.
  std::string stage_rows(TableRows& table, const std::string& arena);
  // latest_by_key: brings the newest row of each key of `source` into `target` (see
  // latest_by_key_sql), in `order` (order_by()); `rebuild` first empties the table.
  void write_latest(const std::string& target, const std::string& source,
                    const TableSettings& settings, bool rebuild, const std::string& order);
  // The quoted name of a table's staging table (in krow's state schema).
  std::string staging(const std::string& sync_id, const std::string& table) const;
  // Runs `body` in a transaction: committed when it returns, rolled back when it throws.
  template <class Body>
  void transaction(const char* what, Body&& body);
  // Records the bindings of a table's typed columns (in create_table's or, for a table it
  // creates, publish's transaction).
  void record_bindings(const std::string& table, const std::vector<columns::ColumnSpec>& typed,
                       bool created);
  // Compare-and-set of one position; throws Error(conflict) when it is not `from`.
  void move_position(const std::string& sync_id, const PositionMove& move);

  WarehouseConfig config_;
  DuckDBSettings settings_;
  std::optional<FileLock> lock_;
  // Declared in this order so that the connection closes first, then the database, then the
  // lock, however the object ends (a constructor that throws too).
  duck::Database db_;
  duck::Connection conn_;
  bool audit_memory_ = false;  // select_text() lifted the memory limit
  bool released_ = false;   // idle() closed the file; conn() opens it again
  bool has_state_ = false;  // whether krow's state schema exists (read-only opens may lack it)
  bool has_bindings_ =
      false;  // whether it has the column bindings (files of earlier krows lack them)
  TableSettingsByName strategies_;           // from create_table()
  std::map<std::string, TypedTable> typed_;  // by table name, from create_table()
  // The order each table's rows are written in, from create_table(): the manifest's for a
  // table it made or whose design it applied, else the one the table's comment records.
  std::map<std::string, std::vector<std::string>> sort_by_;
  // Tables create_table() left to publish() (Creation::at_publish), with their topics.
  std::map<std::string, std::string> unpublished_;
};

}  // namespace krow
