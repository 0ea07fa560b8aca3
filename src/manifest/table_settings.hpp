#pragma once
// Per-table settings (`tables:` in the manifest): how a topic's messages meet its table.
//
//   tables:
//     "customers.*":                # a topic name or a glob; an exact name wins over globs,
//       strategy: latest_by_key     # then the first matching glob in manifest order
//       unique_key: [customer_id]   # value fields; default: the Kafka key
//       tombstones: delete          # or keep
//     orders.snapshot:
//       strategy: full_refresh
//     "payments.*":
//       columns: from_schema        # typed columns from the latest value schema; default: none
//       nested: flatten             # or json: nested records as one JSON column each
//       cluster_by: [customer_id]   # physical design, in the engine's own terms
//                                   #   (manifest/physical_design.hpp)
//
// Strategies: `append` (default: one row per message), `latest_by_key` (one row per key, the
// newest message's; a tombstone deletes it unless `tombstones: keep`), `full_refresh` (each
// run re-reads the whole retained topic and replaces the table's rows in one transaction).

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "settings/section.hpp"
#include "warehouse/table_strategy.hpp"

namespace krow {

struct TableRule {
  std::string pattern;  // a topic name, or a glob (*, ?, [abc])
  TableSettings settings;
};

// The rules of `tables:`, in manifest order. An option the engine of `warehouse_type` does
// not write (warehouse/capabilities.hpp) is refused here, whether or not a topic matches its
// rule, so that every command refuses it alike. Throws Error(config) naming the line and key.
std::vector<TableRule> read_table_rules(const ManifestReader& r, const YAML::Node& node,
                                        const std::string& warehouse_type);

// The settings of `topic`: its exact rule, else the first glob that matches, else the defaults.
TableSettings settings_for(const std::vector<TableRule>& rules, const std::string& topic);

}  // namespace krow
