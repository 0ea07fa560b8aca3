#pragma once
// krow's own state tables, declared once for every engine as the row is (row_contract.hpp):
// each adapter makes them from these declarations, in krow's state schema (`_krow`; BigQuery:
// the dataset `_krow_<location>`), with its own types for the column types. A table an
// earlier krow made is kept as it is; adapters upgrade what they must (DuckDB files from
// before `warehouse_schema`).
//
// Everything is keyed by sync ID and warehouse schema (`warehouse_schema`): the same sync ID
// writing another schema starts from nothing, as its tables are new.

#include <array>
#include <span>
#include <string_view>

#include "contract/column_type.hpp"

namespace krow::contract {

struct StateColumn {
  std::string_view name;
  ColumnType type;  // text, int32, int64, timestamp or json
  bool nullable = false;
  bool now_by_default = false;  // a timestamp that is the time of the insert unless given
};

struct StateTable {
  std::string_view name;
  std::string_view holds;  // what a row is, for the docs and the DDL's readers
  std::span<const StateColumn> columns;
  std::span<const std::string_view> key;  // the primary key
};

// The position of each partition a sync has committed: the next offset to read ("the last
// processed offset + 1"), moved only in the transaction that writes the rows it covers; and
// the partition's epoch, bumped by every take (StateStore::take), on which every commit is
// fenced. A partition taken but never committed has a row with next_offset NULL: it is no
// position, and reads of positions leave it out.
//
// Upgrade: positions tables of krow versions before epochs have no `epoch` column and a
// NOT NULL next_offset. Every adapter, when it prepares the state tables for writing, adds the
// column and drops the NOT NULL (idempotently); a missing epoch (NULL) reads as 0, never
// taken. Reading (status, plan) works on either form.
inline constexpr StateColumn kPositionColumns[] = {
    {"sync_id", ColumnType::text},
    {"warehouse_schema", ColumnType::text},
    {"topic", ColumnType::text},
    {"topic_id", ColumnType::text},
    {"kafka_partition", ColumnType::int32},
    {"next_offset", ColumnType::int64, true},
    {"updated_at", ColumnType::timestamp, false, true},
    {"epoch", ColumnType::int64, true},
};
inline constexpr std::string_view kPositionKey[] = {"sync_id", "warehouse_schema", "topic_id",
                                                    "kafka_partition"};

// The table of each topic, recorded when it is made: names stay stable and collision-free.
inline constexpr StateColumn kTableColumns[] = {
    {"sync_id", ColumnType::text},
    {"topic", ColumnType::text},
    {"warehouse_schema", ColumnType::text},
    {"table_name", ColumnType::text},
    {"created_at", ColumnType::timestamp, false, true},
};
inline constexpr std::string_view kTableKey[] = {"warehouse_schema", "table_name"};

// Every run's record (counts, bytes, durations, errors, gaps), as JSON.
inline constexpr StateColumn kRunColumns[] = {
    {"run_id", ColumnType::text},
    {"sync_id", ColumnType::text},
    {"warehouse_schema", ColumnType::text},
    {"started_at", ColumnType::timestamp, true},
    {"finished_at", ColumnType::timestamp, true},
    {"status", ColumnType::text, true},
    {"record", ColumnType::json, true},
};
inline constexpr std::string_view kRunKey[] = {"run_id"};

// The field each typed column holds (columns/column_names.hpp): a field keeps its column for
// the table's life. `field_path` is the path as a JSON array of field names.
inline constexpr StateColumn kColumnBindingColumns[] = {
    {"warehouse_schema", ColumnType::text},
    {"table_name", ColumnType::text},
    {"field_path", ColumnType::text},
    {"column_name", ColumnType::text},
    {"created_at", ColumnType::timestamp, false, true},
};
inline constexpr std::string_view kColumnBindingKey[] = {"warehouse_schema", "table_name",
                                                         "field_path"};

// The sync lock where the engine has none of its own (BigQuery): who holds a sync, until when.
inline constexpr StateColumn kLeaseColumns[] = {
    {"sync_id", ColumnType::text},    {"warehouse_schema", ColumnType::text},
    {"holder", ColumnType::text},     {"host", ColumnType::text, true},
    {"pid", ColumnType::int64, true}, {"expires_at", ColumnType::timestamp},
};
inline constexpr std::string_view kLeaseKey[] = {"sync_id", "warehouse_schema"};

// The workers sharing a continuous sync (`krow sync --follow --worker-id`, docs/workers.md):
// each worker's row is replaced at every run record it writes, and when its partitions change.
// `partitions` is the worker's assignment as text ("orders:0,1,5 payments:2").
inline constexpr StateColumn kWorkerColumns[] = {
    {"sync_id", ColumnType::text},
    {"warehouse_schema", ColumnType::text},
    {"worker_id", ColumnType::text},
    {"host", ColumnType::text, true},
    {"pid", ColumnType::int64, true},
    {"partitions", ColumnType::text, true},
    {"heartbeat_at", ColumnType::timestamp, false, true},
};
inline constexpr std::string_view kWorkerKey[] = {"sync_id", "warehouse_schema", "worker_id"};

inline constexpr StateTable kPositions{"positions", "a partition's committed position",
                                       kPositionColumns, kPositionKey};
inline constexpr StateTable kTables{"tables", "a topic's table", kTableColumns, kTableKey};
inline constexpr StateTable kRuns{"runs", "a run's record", kRunColumns, kRunKey};
inline constexpr StateTable kColumnBindings{"columns", "a typed column's field",
                                            kColumnBindingColumns, kColumnBindingKey};
inline constexpr StateTable kLeases{"leases", "a sync's lease", kLeaseColumns, kLeaseKey};
inline constexpr StateTable kWorkers{"workers", "a worker of a continuous sync", kWorkerColumns,
                                     kWorkerKey};

// The tables every engine keeps (leases aside: an engine with a lock of its own has none).
inline constexpr std::array<const StateTable*, 5> kStateTables{&kPositions, &kTables, &kRuns,
                                                               &kColumnBindings, &kWorkers};

}  // namespace krow::contract
