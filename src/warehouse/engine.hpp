#pragma once
// What an adapter tells the rest of krow about its engine: its name in manifests and
// messages, what it can write, and the functions that read its manifest keys, open it and
// check it. Each adapter defines one Engine in its folder (warehouse/<engine>/<engine>_engine);
// engines/ lists them, the one place that names every engine.

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "settings/section.hpp"
#include "warehouse/capabilities.hpp"
#include "warehouse/warehouse.hpp"
#include "warehouse/warehouse_checkup.hpp"
#include "warehouse/warehouse_config.hpp"

namespace krow {

struct Engine {
  std::string type;           // warehouse.type in manifests: "postgres"
  std::string what;           // in help texts and messages: "a PostgreSQL database"
  std::string doctor_checks;  // what `krow doctor` checks there, for its help
  // Another key for warehouse.schema in the engine's own words ("dataset"), or empty.
  std::string schema_key_alias;
  WarehouseCapabilities capabilities;

  // Parses the adapter's own keys of the `warehouse` section; `common` are the keys every
  // adapter shares (read by the manifest). Throws Error(config) naming file, line and key.
  std::shared_ptr<const AdapterSettings> (*parse_settings)(const Section& section,
                                                           const std::vector<std::string>& common);
  // Opens the warehouse (Warehouse's constructor contract: engines/engines.hpp open_warehouse);
  // `worker_id` is set with OpenMode::worker only.
  std::unique_ptr<Warehouse> (*open)(const WarehouseConfig& config, const std::string& sync_id,
                                     OpenMode mode, const std::string& worker_id);
  // `krow doctor`'s checks: writes nothing, takes no lock, waits at most `timeout` for a
  // server; a failure is a failed check naming the fix, never an exception.
  WarehouseCheckup (*check)(const WarehouseConfig& config, const std::string& sync_id,
                            std::chrono::seconds timeout);
  // The client libraries it runs on and their versions, for `krow doctor` and `--version`:
  // {"libpq", "15.18"}.
  std::vector<std::pair<std::string, std::string>> (*library_versions)();
};

}  // namespace krow
