#pragma once
// `krow status`: per table and partition the stored position and, when the cluster
// answers, the last stable offset and the lag; the tables the last run stopped, with their
// fix; and recent runs.

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "manifest/manifest.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

struct ClusterView {
  bool reachable = false;
  std::string why_not;  // when not reachable
  std::map<TopicPartition, Offset> last_stable;  // last stable offsets
  std::map<std::string, TopicId> live_ids;       // the topic ID each name has now
};

std::string format_status(const Manifest& manifest, StateStore& warehouse,
                          const ClusterView& cluster, bool json);

}  // namespace krow
