#pragma once
// Which topics a sync reads, and what their tables are called.

#include <map>
#include <string>
#include <vector>

#include "manifest/manifest.hpp"
#include "warehouse/capabilities.hpp"
#include "warehouse/state_store.hpp"

namespace krow {

// Internal topics are never synced: Kafka's own (`__consumer_offsets`, `__transaction_state`)
// and any `_`-prefixed one (`_schemas`, `_confluent-*`).
bool is_internal_topic(const std::string& name);

// True when the manifest's selection includes `name` (all topics when it names none).
bool is_selected(const TopicSelection& selection, const std::string& name);

// Table name of each topic. Deterministic and collision-free: the topic lower-cased with
// every character other than a-z, 0-9 and _ replaced by _; when two topics would share a
// name, the one whose name is already that (or else the first in byte order) keeps it and
// the others get a suffix from a hash of their exact name. A name longer than the engine
// allows is cut and gets the same kind of suffix. Names recorded in the warehouse are kept
// as they were.
std::map<std::string, std::string> table_names(const std::string& sync_id, const std::vector<std::string>& topics,
                                               const std::vector<TableMapping>& recorded, const NameRules& rules = {});

}  // namespace krow
