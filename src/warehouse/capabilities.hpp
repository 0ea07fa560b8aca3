#pragma once
// What a warehouse engine can do, declared by its adapter (its Engine, warehouse/engine.hpp) and checked
// when the manifest loads: an option the engine of `warehouse.type` does not take is refused
// there, naming the engines that take it and the way out, so that plan, doctor and sync all
// refuse it alike before anything is read. An adapter is never given what it does not take.

#include <cstddef>
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

  bool takes(Strategy s) const { return s != Strategy::latest_by_key || latest_by_key; }
};

}  // namespace krow
