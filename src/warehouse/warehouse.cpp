#include "warehouse/warehouse.hpp"

#include "util/error.hpp"
#include "warehouse/duckdb_adapter/duckdb_warehouse.hpp"

namespace krow {

std::unique_ptr<Warehouse> open_warehouse(const WarehouseConfig& config, const std::string& sync_id,
                                          OpenMode mode) {
  if (config.type == "duckdb") return std::make_unique<DuckDBWarehouse>(config, sync_id, mode);
  throw Error(ErrorClass::config, "warehouse type '" + config.type + "' is not supported");
}

}  // namespace krow
