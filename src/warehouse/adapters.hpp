#pragma once
// The warehouse adapters, by the manifest's `warehouse.type`: each parses and checks its own
// manifest keys and opens its engine. The one place that names every engine.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "manifest/section.hpp"
#include "warehouse/capabilities.hpp"
#include "warehouse/warehouse.hpp"
#include "warehouse/warehouse_checkup.hpp"
#include "warehouse/warehouse_config.hpp"

namespace krow {

// The types a manifest may name: duckdb (the default), postgres, bigquery.
const std::vector<std::string>& warehouse_types();

// Each engine as help texts and messages describe it, in the order of warehouse_types().
struct WarehouseKind {
  std::string type;           // "postgres"
  std::string what;           // "a PostgreSQL database"
  std::string doctor_checks;  // what `krow doctor` checks there, for its help
};
const std::vector<WarehouseKind>& warehouse_kinds();
// "a DuckDB file, a PostgreSQL database or a BigQuery dataset".
std::string warehouse_kinds_text();

// What the engine of `type` can write (one of warehouse_types()).
const WarehouseCapabilities& warehouse_capabilities(const std::string& type);

// Parses the adapter's keys of the `warehouse` section; `common` are the keys every adapter
// shares (read by the manifest). Throws Error(config) naming file, line and key.
std::shared_ptr<const AdapterSettings> parse_warehouse_settings(const std::string& type, const Section& section,
                                                                const std::vector<std::string>& common);

// Opens the manifest's warehouse. In write mode it first takes the sync's lock, so two
// syncs of one sync ID never run at once (throws transient, try again later, naming the
// holder; a holder that is gone is waited for, up to warehouse.retry_timeout), and creates
// krow's state tables. A read-only open of a warehouse krow never wrote answers with no
// state.
std::unique_ptr<Warehouse> open_warehouse(const WarehouseConfig& config, const std::string& sync_id, OpenMode mode);

// `krow doctor`'s checks of the manifest's warehouse: can krow open (or create) it and
// write there. Writes nothing and takes no lock; waits at most `timeout` for a server.
// Never throws for what it finds: a failure is a failed check naming the fix.
WarehouseCheckup check_warehouse(const WarehouseConfig& config, const std::string& sync_id,
                                 std::chrono::seconds timeout);

}  // namespace krow
