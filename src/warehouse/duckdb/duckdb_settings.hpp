#pragma once
// The DuckDB adapter's manifest keys: `warehouse: {type: duckdb, path: FILE}`.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "settings/section.hpp"
#include "warehouse/warehouse_config.hpp"

namespace krow {

struct DuckDBSettings : AdapterSettings {
  std::filesystem::path path;  // the DuckDB file, relative to the manifest's folder
};

std::shared_ptr<const AdapterSettings> parse_duckdb_settings(
    const Section& section, const std::vector<std::string>& common);

}  // namespace krow
