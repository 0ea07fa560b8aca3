#pragma once
// What a warehouse engine can do, declared by its adapter (its Engine, warehouse/engine.hpp) and checked
// when the manifest loads: an option the engine of `warehouse.type` does not take is refused
// there, naming the engines that take it and the way out, so that plan, doctor and sync all
// refuse it alike before anything is read. An adapter is never given what it does not take.

#include <cstddef>
#include <cstdint>
#include <string>

#include "warehouse/table_strategy.hpp"

namespace krow {

// What an engine allows in names.
struct NameRules {
  size_t max_identifier_bytes = 0;  // 0: no limit krow needs to care about
};

struct WarehouseCapabilities {
  std::string engine;         // its name in messages: "DuckDB", "PostgreSQL", "BigQuery"
  bool typed_columns = true;  // `columns: from_schema | infer` (tables:)
  bool latest_by_key =
      true;  // `strategy: latest_by_key` (tables:); append and full_refresh: every engine

  NameRules names;  // table and column names are made within these
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
