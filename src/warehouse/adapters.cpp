#include "warehouse/adapters.hpp"

#include "util/error.hpp"
#include "warehouse/duckdb_adapter/duckdb_settings.hpp"
#include "warehouse/duckdb_adapter/duckdb_warehouse.hpp"

namespace krow {

const std::vector<std::string>& warehouse_types() {
  static const std::vector<std::string> types{"duckdb"};
  return types;
}

std::shared_ptr<const AdapterSettings> parse_warehouse_settings(const std::string& /*type*/, const Section& section,
                                                                const std::vector<std::string>& common) {
  return parse_duckdb_settings(section, common);
}

std::unique_ptr<Warehouse> open_warehouse(const WarehouseConfig& config, const std::string& sync_id, OpenMode mode) {
  if (config.type == "duckdb") return std::make_unique<DuckDBWarehouse>(config, sync_id, mode);
  throw Error(ErrorClass::config, "warehouse type '" + config.type + "' is not supported");
}

}  // namespace krow
