#pragma once
// A PostgreSQL warehouse (libpq). Each batch is written with binary COPY and its positions
// are moved, fenced, in the same transaction. Row tables carry no unique index: ids are
// unique by construction, as in DuckDB; a small BRIN index on (partition, offset) lets a
// full resync find the rows it replaces without reading the whole table. The manifest's
// `indexes:` add theirs (docs/physical-design.md).
//
// The sync lock is a session-level advisory lock on the server, held by the writing
// connection, so it also keeps apart two syncs on different machines. When the connection
// is lost the server releases it once it notices (pg_connection asks it to look within about
// a minute); the reconnect takes it again, ending its own old session if the server has not
// yet, or stops the sync when another sync holds it.
//
// jsonb cannot hold every valid JSON document (no U+0000, no unpaired surrogate, bounded
// numbers): such values are stored as their JSON text in a JSON string, with a note in the
// row's decode_error; a value the server refuses for another reason takes the same path
// (RowBatch::replace_unstorable).

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "warehouse/postgres/postgres_connection.hpp"
#include "warehouse/postgres/postgres_settings.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

class PostgresWarehouse : public Warehouse {
 public:
  PostgresWarehouse(const WarehouseConfig& config, const std::string& sync_id, OpenMode mode);

  std::string describe() const override { return settings_.describe(); }
  std::string column_sql_type(const columns::ColumnSpec& column) const override;
  std::optional<std::vector<columns::TableColumn>> typed_columns(const std::string& table) override;
  std::vector<columns::ColumnBinding> column_bindings(const std::string& table) override;
  std::vector<std::string> evolution_sql(const std::string& table,
                                         const std::vector<columns::ColumnChange>& changes) const override;
  std::vector<Position> positions(const std::string& sync_id) override;
  std::vector<PartitionClaim> take(const std::string& sync_id,
                                   const std::vector<PartitionKey>& partitions) override;
  std::vector<TableMapping> tables() override;
  void create_table(const std::string& sync_id, const std::string& topic, const std::string& table,
                    const TableSettings& settings, Creation creation) override;
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
  void lock_sync(std::chrono::milliseconds wait) override;
  void unlock_sync() noexcept override;
  void record_worker(const WorkerRecord& worker) override;
  std::vector<WorkerRecord> workers(const std::string& sync_id) override;
  // The indexes of the manifest's `indexes:` beside krow's own, read from pg_indexes
  // (postgres_design.cpp). Each is named krow_ix_<its columns>_<hash of table, method and
  // columns>, so that the name says which index it is: one the manifest no longer lists is
  // dropped when the design is applied; indexes of other names are never touched.
  DesignPlan plan_design(const std::string& table, const TableSettings& settings) override;

 protected:
  std::string audited_table(const std::string& table) const override;
  const AuditSql& audit_sql() const override;
  std::vector<std::vector<std::optional<std::string>>> select_text(
      const std::string& sql, const std::string& what) override;

 private:
  // The CREATE INDEX of krow's own indexes: the BRIN on (partition, offset) every table has,
  // and latest_by_key's index of the keys (empty for other strategies).
  std::string brin_index_sql(const std::string& table) const;
  std::string key_index_sql(const std::string& table, const TableSettings& settings) const;
  // The CREATE INDEX of each index of `design`, in manifest order (postgres_design.cpp).
  std::vector<std::string> design_index_sql(const std::string& table,
                                            const TableDesign& design) const;
  // OpenMode::worker: the shared hold on the sync's lock that every worker keeps for its life
  // (a sync opened for writing takes it exclusively, so each keeps the other out). Throws
  // transient, naming the holder, when such a sync runs.
  void join_workers();
  // Reconnects a broken connection (and takes the lock again in write mode).
  void ensure_connected();
  void start_session();
  // Takes the sync lock. A holder whose krow is gone (on this host: its pid no longer runs) is
  // waited for, its session ended where this role may, up to warehouse.retry_timeout; a live
  // holder (or one that cannot be judged: another host, another program) refuses at once.
  // Both refusals are transient (exit code 75: try again later) and name the holder.
  void take_lock();
  struct LockHolder {
    std::string backend_pid;    // the server process of its session
    std::string backend_start;  // when that session began, as the server prints it
    std::string who;    // its application name, address, start and server process, for messages
    bool gone = false;  // a krow of this host whose process no longer runs
    int workers = 0;    // sessions holding it shared (workers, see join_workers); 0 when exclusive
  };
  // The session holding the sync lock `key`; nullopt when none holds it (any more).
  std::optional<LockHolder> lock_holder(const std::string& key);
  void create_state();
  // Positions tables of krow versions before epochs get the epoch column, and next_offset
  // may be NULL (a partition taken, never committed). Idempotent; in one transaction.
  void upgrade_positions();
  // Records the bindings of a table's typed columns (in create_table's or, for a table it
  // creates, publish's transaction).
  void record_bindings(const std::string& table, const std::vector<columns::ColumnSpec>& typed,
                       bool created);
  bool exists(const std::string& qualified_name);
  void ensure_schema(const std::string& schema);
  // The column list of a new table: the metadata columns, then the planned typed columns.
  std::string planned_definitions(const TableSettings& settings) const;
  // Creates a table that does not exist (and the warehouse schema when missing) with its
  // indexes, and records its mapping; inside the caller's transaction.
  void create_new_table(const std::string& sync_id, const std::string& topic,
                        const std::string& table, const TableSettings& settings);
  // Records the topic's table name in krow's state, unless the name is recorded already.
  void record_table_name(const std::string& sync_id, const std::string& topic,
                         const std::string& table);
  // latest_by_key: the index of the table's keys (if missing).
  void create_key_index(const std::string& table, const TableSettings& settings);
  void move_positions(const std::string& sync_id, const std::vector<PositionMove>& moves);
  // Stores, in another form, what jsonb cannot hold of one row, before the server refuses it.
  void replace_what_jsonb_refuses(RowBatch& batch, size_t table, size_t row);
  void copy_rows(RowBatch& batch, size_t table, const std::string& target);
  void merge_rows(RowBatch& batch, size_t table);
  // Copies a batch's rows of one table into the session's temporary stage (one for the tables
  // without typed columns, one per table with them); returns its name.
  std::string stage_rows(RowBatch& batch, size_t table);
  // latest_by_key: brings the newest row of each key of `source` into `target` (see
  // latest_by_key_sql); `rebuild` first empties the table.
  void write_latest(const std::string& target, const std::string& source, const TableSettings& settings, bool rebuild);
  // One transaction: moves the positions, then `write_table` for each table slot with rows.
  // A value the server refuses becomes its row's decode_error and the batch is tried again.
  template <class WriteTable>
  void write_batch(const std::string& sync_id, RowBatch& batch, const std::vector<PositionMove>& moves,
                   WriteTable&& write_table);
  // The quoted name of a table's staging table (in krow's state schema).
  std::string staging(const std::string& sync_id, const std::string& table) const;
  // Runs `body` in a transaction: committed when it returns, rolled back when it throws.
  template <class Body>
  void transaction(const char* what, Body&& body);
  // Brings the BRIN index of the batch's tables up to date, once per session.
  void summarize(const RowBatch& batch);
  void rollback();

  WarehouseConfig config_;
  PostgresSettings settings_;
  std::string sync_id_;
  OpenMode mode_;
  std::unique_ptr<pg::Connection> conn_;
  bool has_state_ = false;
  bool preparing_ = false;              // worker: lock_sync() holds the sync's preparation lock
  std::set<std::string> stages_;        // the session's merge stages that exist (temporary tables)
  std::set<std::string> summarized_;    // tables whose BRIN index this session brought up to date
  size_t copying_ = 0;                  // the table slot being copied, for a refused value
  std::string copy_buffer_;
  TableSettingsByName strategies_;  // from create_table()
  // Tables create_table() left to publish() (Creation::at_publish), with their topics.
  std::map<std::string, std::string> unpublished_;
};

}  // namespace krow
