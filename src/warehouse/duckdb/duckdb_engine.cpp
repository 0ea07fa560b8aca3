#include "warehouse/duckdb/duckdb_engine.hpp"

#include <duckdb.h>

#include "warehouse/duckdb/duckdb_checkup.hpp"
#include "warehouse/duckdb/duckdb_settings.hpp"
#include "warehouse/duckdb/duckdb_warehouse.hpp"

namespace krow {

const Engine& duckdb_engine() {
  static const Engine engine{
      .type = "duckdb",
      .what = "a DuckDB file",
      .doctor_checks = "DuckDB: its folder is writable and the file opens",
      .schema_key_alias = "",
      // One process writes a DuckDB file at a time.
      .capabilities =
          {.engine = "DuckDB",
           .typed_columns = true,
           .latest_by_key = true,
           // The order of each batch's rows (and of the whole table when the
           // design is applied): what DuckDB's zone maps prune by.
           .design = {.max_sort_columns = 8,
                      .sort_types = {ColumnType::boolean, ColumnType::int32, ColumnType::int64,
                                     ColumnType::uint64, ColumnType::float32, ColumnType::float64,
                                     ColumnType::decimal, ColumnType::text, ColumnType::bytes,
                                     ColumnType::date, ColumnType::time, ColumnType::timestamp},
                      .keys = "sort_by: [columns]"},
           .single_writer_reason = "a DuckDB file admits one writing process at a time"},
      .parse_settings = parse_duckdb_settings,
      .open = [](const WarehouseConfig& config, const std::string& sync_id, OpenMode mode,
                 const std::string&) -> std::unique_ptr<Warehouse> {
        return std::make_unique<DuckDBWarehouse>(config, sync_id, mode);
      },
      .check =
          [](const WarehouseConfig& config, const std::string& sync_id, std::chrono::seconds) {
            return check_duckdb(config, sync_id);  // a file: nothing to wait for
          },
      .library_versions = []() -> std::vector<std::pair<std::string, std::string>> {
        return {{"duckdb", duckdb_library_version()}};
      },
  };
  return engine;
}

}  // namespace krow
