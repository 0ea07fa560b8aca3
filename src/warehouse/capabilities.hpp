#pragma once
// What a warehouse engine can do, declared by its adapter (its Engine, warehouse/engine.hpp) and checked
// when the manifest loads: an option the engine of `warehouse.type` does not take is refused
// there, naming the engines that take it and the way out, so that plan, doctor and sync all
// refuse it alike before anything is read. An adapter is never given what it does not take.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "contract/column_type.hpp"
#include "warehouse/table_strategy.hpp"

namespace krow {

// What an engine allows in names.
struct NameRules {
  size_t max_identifier_bytes = 0;  // 0: no limit krow needs to care about
};

// The physical design an engine takes (`tables:` partition_by, cluster_by, indexes, sort_by;
// warehouse/table_design.hpp, docs/physical-design.md), and on which column types. A key whose
// types are empty is not taken: the manifest refuses it, naming the engines that take it.
struct DesignCapabilities {
  // partition_by: time partitioning on a column of these types; by the hour on these only.
  std::vector<ColumnType> partition_types;
  std::vector<ColumnType> hourly_partition_types;
  // cluster_by: up to this many columns, of these types.
  size_t max_cluster_columns = 0;
  std::vector<ColumnType> cluster_types;
  // indexes: each method taken, with the column types it takes and how many columns.
  struct IndexMethod {
    std::string name;  // btree, hash, brin, gin
    std::vector<ColumnType> types;
    size_t max_columns = 0;
  };
  std::vector<IndexMethod> index_methods;
  // sort_by: up to this many columns, of these types.
  size_t max_sort_columns = 0;
  std::vector<ColumnType> sort_types;
  // The keys it takes, as a refusal's way out names them: "sort_by: [columns]".
  std::string keys;

  bool partition_by() const { return !partition_types.empty(); }
  bool cluster_by() const { return max_cluster_columns > 0; }
  bool indexes() const { return !index_methods.empty(); }
  bool sort_by() const { return max_sort_columns > 0; }
  const IndexMethod* index_method(const std::string& name) const {
    for (const auto& m : index_methods)
      if (m.name == name) return &m;
    return nullptr;
  }
  static bool in(const std::vector<ColumnType>& types, ColumnType t) {
    return std::find(types.begin(), types.end(), t) != types.end();
  }
};

struct WarehouseCapabilities {
  std::string engine;         // its name in messages: "DuckDB", "PostgreSQL", "BigQuery"
  bool typed_columns = true;  // `columns: from_schema | infer` (tables:)
  bool latest_by_key =
      true;  // `strategy: latest_by_key` (tables:); append and full_refresh: every engine

  NameRules names;  // table and column names are made within these
  DesignCapabilities design;  // physical design per table (`tables:`)
  // Several processes may write one sync's tables at once (workers sharing a sync's
  // partitions, each commit fenced): a server engine can; a DuckDB file has one writer.
  bool concurrent_writers = false;
  // Without concurrent writers: why, for the refusal of `--worker-id`.
  std::string single_writer_reason;
  // How many table batches a day the engine's quotas let one project write, every table and
  // sync together (0: no such limit), and what each one costs there: a continuous sync whose
  // batch.max_wait would come near it is warned when it starts.
  int64_t daily_table_batches = 0;
  std::string daily_table_batch_cost;

  bool takes(Strategy s) const { return s != Strategy::latest_by_key || latest_by_key; }
};

}  // namespace krow
