#pragma once
// The warehouse engines krow writes to, by the manifest's `warehouse.type`: the one place that
// names every engine. A new engine is one folder under warehouse/ with its Engine
// (warehouse/engine.hpp), its CMake library, and one line in engines.cpp.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "warehouse/engine.hpp"

namespace krow {

// Every engine, the default (DuckDB) first.
const std::vector<const Engine*>& engines();

// The engine of `type`; throws Error(config) naming the types there are for any other.
const Engine& engine_of(const std::string& type);

// The types a manifest may name: duckdb (the default), postgres, bigquery.
std::vector<std::string> warehouse_types();

// "a DuckDB file, a PostgreSQL database or a BigQuery dataset".
std::string warehouse_kinds_text();

// What the engine of `type` can write (one of warehouse_types()).
const WarehouseCapabilities& warehouse_capabilities(const std::string& type);

// "DuckDB and PostgreSQL": the engines whose capabilities `takes` accepts, by their names in
// messages.
std::string engines_that(const std::function<bool(const WarehouseCapabilities&)>& takes);

// Opens the manifest's warehouse. In write mode it first takes the sync's lock, so two
// syncs of one sync ID never run at once (throws transient, try again later, naming the
// holder; a holder that is gone is waited for, up to warehouse.retry_timeout), and creates
// krow's state tables. A read-only open of a warehouse krow never wrote answers with no
// state. OpenMode::worker takes the worker's ID (--worker-id).
std::unique_ptr<Warehouse> open_warehouse(const WarehouseConfig& config, const std::string& sync_id,
                                          OpenMode mode, const std::string& worker_id = {});

// `krow doctor`'s checks of the manifest's warehouse: can krow open (or create) it and
// write there. Writes nothing and takes no lock; waits at most `timeout` for a server.
// Never throws for what it finds: a failure is a failed check naming the fix.
WarehouseCheckup check_warehouse(const WarehouseConfig& config, const std::string& sync_id,
                                 std::chrono::seconds timeout);

}  // namespace krow
