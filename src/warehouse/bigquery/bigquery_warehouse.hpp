#pragma once
// A BigQuery warehouse, over the REST API (bq_client). Exactly once without insertAll:
//
//  1. each table's rows of a batch are loaded (one load job, newline-delimited JSON) into a
//     table of their own in krow's load dataset, where nobody reads them;
//  2. one multi-statement transaction then checks that the stored positions are still the
//     ones the batch started from (and that this sync still holds its lease), moves them,
//     and inserts the loaded rows into the row tables. It commits whole or not at all.
//
// A load job that ran twice (its answer was lost) only replaced its own load table; a
// transaction whose answer was lost is found out from the positions, as on every engine.
// insertAll (streaming) is not used: its insertId deduplication is best effort, so a
// retried request can store a row twice, and its rows cannot join a transaction.
//
// Workers (several processes of one sync, docs/workers.md): BigQuery aborts a transaction
// that mutates a table another running transaction mutates, whatever rows each touches. So
// that workers' commits never meet, each worker keeps the positions of the partitions it
// holds in a table of its own (_krow_<location>.worker_<hash of schema, sync and worker ID>),
// the only state table its commits mutate; `positions` then names that table
// (holder_table) beside the partition's epoch. A take mutates `positions`, the old holder's
// table (deleting the partition's row) and the taker's: it cannot commit beside a commit of
// the partition's previous holder still in flight (one of the two is aborted and the take
// is tried again), and once it has, that holder's commits find no row to move.
//
// krow's state (positions, table names, run records, the lease that keeps two syncs of one
// sync ID apart) lives in the dataset _krow_<location>; load and staging tables in
// _krow_loads_<location>, whose tables expire after a day if krow could not drop them.
// Row tables are partitioned by kafka_timestamp and clustered (warehouse.partition_by,
// cluster_by), so a full resync's merge by id reads only the partitions and blocks a batch
// touches; a table's own `partition_by` and `cluster_by` (tables:, docs/physical-design.md)
// replace those defaults for it.
//
// Typed columns (`columns:`) travel in the same load table, each in the form that BigQuery
// reads exactly (decimals as text into NUMERIC/BIGNUMERIC, instants as integers), and are
// converted inside the transaction; latest_by_key tables take their rows through one MERGE
// per table and batch there (latest_by_key_script), with the positions. Schema evolution is
// DDL before the run (ALTER TABLE ... ADD COLUMN IF NOT EXISTS / SET DATA TYPE), and a table's
// columns are read with a dry-run query.
//
// JSON: the value and headers travel as text and become JSON inside the transaction
// (SAFE.PARSE_JSON); what BigQuery's JSON type cannot hold exactly (a number beyond its
// range) is stored as its text in a JSON string, with value_format `string` and a note in
// the row's decode_error, rather than failing the batch.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "warehouse/bigquery/bigquery_client.hpp"
#include "warehouse/bigquery/bigquery_settings.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

class BigQueryWarehouse : public Warehouse {
 public:
  BigQueryWarehouse(const WarehouseConfig& config, const std::string& sync_id, OpenMode mode,
                    const std::string& worker_id);
  ~BigQueryWarehouse() override;

  std::string describe() const override { return settings_.describe(config_.schema); }
  std::string column_sql_type(const columns::ColumnSpec& column) const override;
  columns::ColumnSpec column_holds(const columns::ColumnSpec& column) const override;
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
  void record_worker(const WorkerRecord& worker) override;
  std::vector<WorkerRecord> workers(const std::string& sync_id) override;
  // Workers: the sync's lease, held only while tables are prepared.
  void lock_sync(std::chrono::milliseconds wait) override;
  void unlock_sync() noexcept override;
  // Time partitioning and clustering: the table's own (tables:), else the warehouse's
  // defaults; read back with tables.get (bigquery_design.cpp).
  DesignPlan plan_design(const std::string& table, const TableSettings& settings) override;

 protected:
  std::string audited_table(const std::string& table) const override;
  const AuditSql& audit_sql() const override;
  std::vector<std::vector<std::optional<std::string>>> select_text(
      const std::string& sql, const std::string& what) override;

 private:
  // Makes the changes plan_design() names for an existing table.
  void apply_design(const std::string& table, const TableSettings& settings);
  struct Loaded {
    size_t slot;        // the batch's table slot
    std::string table;  // its load table, in the load dataset
  };
  void create_state();
  // A partition's row in `positions`, with its position as its holder's table has it.
  struct StoredPartition {
    std::string topic;
    TopicId topic_id;
    Partition partition;
    Epoch epoch;                        // 0 when the row has none
    std::optional<Offset> next;         // the live position (none: taken, never committed)
    std::string holder_table;           // a worker's table, or empty
    bool held_row = false;              // the holder's table has the partition's row
    std::optional<Offset> held_next;    // and that row's position
    Epoch held_epoch;                   // and its epoch
  };
  std::vector<StoredPartition> stored_partitions(const std::string& sync_id);
  // Creates a row table with the columns `settings` plan (and the row tables' dataset when
  // missing); one that exists is fine.
  void create_new_table(const std::string& table, const TableSettings& settings);
  // A row table's fields: krow's, then the typed columns `settings` plan.
  std::vector<bigquery::Field> table_fields(const TableSettings& settings) const;
  // Records the field → column bindings of `typed` (columns::bindings_of) in the `columns`
  // state table; `created`: the table is new, and what a dropped table of
  // its name left is forgotten first.
  void record_bindings(const std::string& table, const std::vector<columns::ColumnSpec>& typed,
                       bool created);
  // A load table's rows as the row table's columns (converted_rows), parenthesised.
  std::string converted(const std::string& load,
                        const std::vector<columns::ColumnSpec>& typed) const;
  // A SELECT that gives the `tables` row of (sync_id, topic, table), three SQL expressions,
  // unless the dataset's table of that name is recorded already.
  std::string record_name_select(const std::string& sync_id, const std::string& topic,
                                 const std::string& table) const;
  void take_lease();
  void release_lease();
  // Loads each table's rows of `batch` into a load table of its own.
  std::vector<Loaded> load_batch(RowBatch& batch);
  void drop_loaded(const std::vector<Loaded>& loaded);
  // The script's statements that check and move the positions, and check and renew the
  // lease (with no moves: the lease alone).
  std::string fence_and_move(const std::vector<PositionMove>& moves) const;
  // Runs `statements` as one multi-statement transaction. Scripts name krow's own IDs as
  // literals (sync IDs, dataset, topic and table names are plain words); single statements
  // take text from elsewhere as parameters.
  void transaction(const std::string& statements, const char* doing);
  // transaction(), for a script that begins with fence_and_move(moves): when the fence fails
  // because another worker took one of the partitions, the conflict says so.
  void fenced_transaction(const std::string& statements, const std::vector<PositionMove>& moves,
                          const char* doing);
  // Positions tables of krow versions before epochs get the epoch column, and next_offset
  // may be NULL (a partition taken, never committed).
  void upgrade_positions();
  std::vector<bigquery::Param> params() const;
  std::string row_table(const std::string& table) const;
  std::string state_table(const std::string& table) const;
  std::string load_table(const std::string& table) const;
  std::string staging(const std::string& sync_id, const std::string& table) const;

  WarehouseConfig config_;
  const BigQuerySettings& settings_;
  std::string sync_id_;
  OpenMode mode_;
  std::unique_ptr<bigquery::Client> client_;
  std::string location_;       // of the row tables' dataset
  std::string state_dataset_;  // _krow_<location>
  std::string load_dataset_;   // _krow_loads_<location>
  std::string holder_;         // this process's lease holder ID
  std::string worker_table_;   // a worker's own positions table, in the state dataset
  bool has_state_ = false;
  bool holder_column_ = false;   // `positions` has holder_table (krows that know workers)
  bool dataset_exists_ = false;  // the row tables' dataset
  std::optional<bool> has_bindings_;  // the state dataset has the `columns` table (unknown yet)
  bool leased_ = false;
  uint64_t loads_ = 0;         // load tables made by this object, for unique names
  TableSettingsByName strategies_;
  // Tables create_table() left to publish() (Creation::at_publish), with their topics.
  std::map<std::string, std::string> unpublished_;
};

}  // namespace krow
