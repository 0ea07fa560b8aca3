#include "warehouse/duckdb/duckdb_settings.hpp"

namespace krow {

std::shared_ptr<const AdapterSettings> parse_duckdb_settings(
    const Section& section, const std::vector<std::string>& common) {
  auto keys = common;
  keys.push_back("path");
  section.check_keys(keys);
  auto s = std::make_shared<DuckDBSettings>();
  section.required_text("path", "the DuckDB file to write, e.g. path: kafka.duckdb");
  s->path = section.path("path");
  return s;
}

}  // namespace krow
