#include "warehouse/postgres/postgres_engine.hpp"

#include <libpq-fe.h>

#include "warehouse/postgres/postgres_checkup.hpp"
#include "warehouse/postgres/postgres_settings.hpp"
#include "warehouse/postgres/postgres_warehouse.hpp"

namespace krow {

namespace {

// The index methods PostgreSQL takes (indexes:), on the column types krow makes (jsonb for
// JSON): B-tree, hash (one column) and BRIN (min/max: not on booleans) on any but JSON; GIN
// (jsonb_ops) on JSON only. Up to 32 columns (INDEX_MAX_KEYS).
std::vector<DesignCapabilities::IndexMethod> postgres_index_methods() {
  const std::vector<ColumnType> scalar{
      ColumnType::boolean, ColumnType::int32,   ColumnType::int64,   ColumnType::uint64,
      ColumnType::float32, ColumnType::float64, ColumnType::decimal, ColumnType::text,
      ColumnType::bytes,   ColumnType::date,    ColumnType::time,    ColumnType::timestamp};
  auto ordered = scalar;
  ordered.erase(ordered.begin());  // no boolean
  return {{"btree", scalar, 32},
          {"hash", scalar, 1},
          {"brin", ordered, 32},
          {"gin", {ColumnType::json}, 32}};
}

}  // namespace

const Engine& postgres_engine() {
  static const Engine engine{
      .type = "postgres",
      .what = "a PostgreSQL database",
      .doctor_checks = "PostgreSQL: login, UTF8, CREATE on the schemas",
      .schema_key_alias = "",
      .capabilities = {.engine = "PostgreSQL",
                       .typed_columns = true,
                       .latest_by_key = true,
                       .names = {.max_identifier_bytes = 63},  // NAMEDATALEN - 1
                       .design = {.index_methods = postgres_index_methods(),
                                  .keys = "indexes: [columns, or {columns: [a, b], using: "
                                          "btree}]"},
                       .concurrent_writers = true},
      .parse_settings = parse_postgres_settings,
      .open = [](const WarehouseConfig& config, const std::string& sync_id, OpenMode mode,
                 const std::string&) -> std::unique_ptr<Warehouse> {
        return std::make_unique<PostgresWarehouse>(config, sync_id, mode);
      },
      .check = [](const WarehouseConfig& config, const std::string&,
                  std::chrono::seconds timeout) { return check_postgres(config, timeout); },
      .library_versions = []() -> std::vector<std::pair<std::string, std::string>> {
        const int v = PQlibVersion();  // 150018 for 15.18
        return {{"libpq", std::to_string(v / 10000) + "." + std::to_string(v % 10000)}};
      },
  };
  return engine;
}

}  // namespace krow
