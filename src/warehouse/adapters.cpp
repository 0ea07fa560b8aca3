#include "warehouse/adapters.hpp"

#include "util/error.hpp"
#include "warehouse/bigquery/bigquery_warehouse.hpp"
#include "warehouse/bigquery/bq_checkup.hpp"
#include "warehouse/bigquery/bq_settings.hpp"
#include "warehouse/duckdb_adapter/duckdb_checkup.hpp"
#include "warehouse/duckdb_adapter/duckdb_settings.hpp"
#include "warehouse/duckdb_adapter/duckdb_warehouse.hpp"
#include "warehouse/postgres/pg_checkup.hpp"
#include "warehouse/postgres/pg_settings.hpp"
#include "warehouse/postgres/postgres_warehouse.hpp"

namespace krow {

const std::vector<WarehouseKind>& warehouse_kinds() {
  static const std::vector<WarehouseKind> kinds{
      {"duckdb", "a DuckDB file", "DuckDB: its folder is writable and the file opens"},
      {"postgres", "a PostgreSQL database", "PostgreSQL: login, UTF8, CREATE on the schemas"},
      {"bigquery", "a BigQuery dataset", "BigQuery: the credentials, the dataset and a query job"},
  };
  return kinds;
}

const std::vector<std::string>& warehouse_types() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> out;
    for (const auto& k : warehouse_kinds()) out.push_back(k.type);
    return out;
  }();
  return types;
}

std::string warehouse_kinds_text() {
  const auto& kinds = warehouse_kinds();
  std::string out;
  for (size_t i = 0; i < kinds.size(); ++i)
    out += (i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ") + kinds[i].what;
  return out;
}

const WarehouseCapabilities& warehouse_capabilities(const std::string& type) {
  static const WarehouseCapabilities duckdb{
      .engine = "DuckDB", .typed_columns = true, .latest_by_key = true};
  static const WarehouseCapabilities postgres{
      .engine = "PostgreSQL", .typed_columns = true, .latest_by_key = true};
  // Its batches are load jobs of the metadata columns, published by INSERT ... SELECT: typed
  // columns and the newest row per key are not written yet.
  static const WarehouseCapabilities bigquery{
      .engine = "BigQuery", .typed_columns = false, .latest_by_key = false};
  if (type == "postgres") return postgres;
  if (type == "bigquery") return bigquery;
  return duckdb;
}

std::shared_ptr<const AdapterSettings> parse_warehouse_settings(const std::string& type, const Section& section,
                                                                const std::vector<std::string>& common) {
  if (type == "postgres") return parse_postgres_settings(section, common);
  if (type == "bigquery") return parse_bigquery_settings(section, common);
  return parse_duckdb_settings(section, common);
}

std::unique_ptr<Warehouse> open_warehouse(const WarehouseConfig& config, const std::string& sync_id, OpenMode mode) {
  if (config.type == "duckdb") return std::make_unique<DuckDBWarehouse>(config, sync_id, mode);
  if (config.type == "postgres") return std::make_unique<PostgresWarehouse>(config, sync_id, mode);
  if (config.type == "bigquery") return std::make_unique<BigQueryWarehouse>(config, sync_id, mode);
  throw Error(ErrorClass::config, "warehouse type '" + config.type + "' is not supported");
}

WarehouseCheckup check_warehouse(const WarehouseConfig& config, const std::string& sync_id,
                                 std::chrono::seconds timeout) {
  if (config.type == "postgres") return check_postgres(config, timeout);
  if (config.type == "bigquery") return check_bigquery(config, timeout);
  return check_duckdb(config, sync_id);
}

}  // namespace krow
