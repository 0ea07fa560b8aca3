#pragma once
// The manifest: what to sync, from where, into where. Loaded from YAML; every key is
// declared once here with its default (the warehouse adapters declare their own keys in
// their folders), unknown keys are rejected with their line, and `${ENV_VAR}` references
// are replaced before values are checked.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kafka/source_config.hpp"
#include "manifest/bounds.hpp"
#include "manifest/quality.hpp"
#include "manifest/table_settings.hpp"
#include "registry/registry_config.hpp"
#include "rows/row_batch.hpp"
#include "settings/section.hpp"
#include "util/secret.hpp"
#include "warehouse/warehouse_config.hpp"

namespace krow {

struct TopicSelection {
  std::vector<std::string> names;     // exact topic names
  std::vector<std::string> prefixes;  // e.g. "orders."
  std::vector<std::string> globs;     // shell-style: *, ?, [abc]
  std::vector<std::string> exclude;   // globs removed from the selection
  bool selects_all() const { return names.empty() && prefixes.empty() && globs.empty(); }
};

struct LimitsConfig {
  int64_t max_value_bytes = 8ll << 20;
};

struct Manifest {
  std::filesystem::path file;  // where it was loaded from
  std::string name;            // the sync ID; defaults to the file's stem
  SourceConfig source;
  std::string saved_source;    // `source: {saved: NAME}`: settings come from `krow connect`
  std::string bound_cluster_id;  // set from a saved source: the cluster its key was checked on
  RegistryConfig registry;
  TopicSelection topics;
  WarehouseConfig warehouse;
  BatchConfig batch;
  LimitsConfig limits;
  BoundsConfig bounds;  // how far one run reads (`bounds:`, overridden by the sync flags)
  QualityConfig quality;  // gates a run must pass, and when its rows become visible (`quality:`)
  std::vector<TableRule> tables;  // per-table strategy (`tables:`)
};

// Loads and checks a manifest. Throws Error(ErrorClass::config) naming the file, line and
// key of the first problem. `env` looks up environment variables (injectable for tests).
Manifest load_manifest(const std::filesystem::path& file, EnvLookup env = nullptr);
Manifest parse_manifest(const std::string& yaml, const std::filesystem::path& file,
                        EnvLookup env = nullptr);

}  // namespace krow
