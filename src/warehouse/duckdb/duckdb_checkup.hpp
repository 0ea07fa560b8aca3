#pragma once
// `krow doctor` for a DuckDB warehouse: the file's folder exists (or can be created) and is
// writable, the file (when there is one) opens as a DuckDB database that is not being
// written by another process, and the free space of the folder's file system.

#include <string>

#include "warehouse/warehouse_checkup.hpp"
#include "warehouse/warehouse_config.hpp"

namespace krow {

// Writes nothing krow keeps: writability is tested with a temporary file, removed at once.
WarehouseCheckup check_duckdb(const WarehouseConfig& config, const std::string& sync_id);

}  // namespace krow
