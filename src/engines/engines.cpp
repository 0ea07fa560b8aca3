#include "engines/engines.hpp"

#include "util/error.hpp"
#include "warehouse/bigquery/bigquery_engine.hpp"
#include "warehouse/duckdb/duckdb_engine.hpp"
#include "warehouse/postgres/postgres_engine.hpp"

namespace krow {

const std::vector<const Engine*>& engines() {
  static const std::vector<const Engine*> all{
      &duckdb_engine(),
      &postgres_engine(),
      &bigquery_engine(),
  };
  return all;
}

const Engine& engine_of(const std::string& type) {
  for (const auto* e : engines())
    if (e->type == type) return *e;
  std::string known;
  for (const auto* e : engines()) known += (known.empty() ? "" : ", ") + e->type;
  throw Error(ErrorClass::config,
              "warehouse type '" + type + "' is not one krow writes to; use one of " + known);
}

std::vector<std::string> warehouse_types() {
  std::vector<std::string> out;
  for (const auto* e : engines()) out.push_back(e->type);
  return out;
}

std::string warehouse_kinds_text() {
  const auto& all = engines();
  std::string out;
  for (size_t i = 0; i < all.size(); ++i)
    out += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i]->what;
  return out;
}

const WarehouseCapabilities& warehouse_capabilities(const std::string& type) {
  return engine_of(type).capabilities;
}

std::string engines_that(const std::function<bool(const WarehouseCapabilities&)>& takes) {
  std::vector<std::string> names;
  for (const auto* e : engines())
    if (takes(e->capabilities)) names.push_back(e->capabilities.engine);
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

std::unique_ptr<Warehouse> open_warehouse(const WarehouseConfig& config, const std::string& sync_id,
                                          OpenMode mode, const std::string& worker_id) {
  const auto& engine = engine_of(config.type);
  // The command refuses --worker-id first, with its reason; this keeps an adapter from ever
  // being opened in a mode it does not implement.
  if (mode == OpenMode::worker && !engine.capabilities.concurrent_writers)
    throw Error(ErrorClass::config, engine.capabilities.engine + " takes no workers");
  return engine.open(config, sync_id, mode, worker_id);
}

WarehouseCheckup check_warehouse(const WarehouseConfig& config, const std::string& sync_id,
                                 std::chrono::seconds timeout) {
  return engine_of(config.type).check(config, sync_id, timeout);
}

}  // namespace krow
