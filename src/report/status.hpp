#pragma once
// `krow status`: per table and partition the stored position and, when the cluster
// answers, the last stable offset and the lag; the tables the last run stopped, with their
// fix; and recent runs.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kafka/client.hpp"
#include "manifest/manifest.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

struct ClusterView {
  bool reachable = false;
  std::string why_not;  // when not reachable
  std::map<TopicPartition, Offset> last_stable;  // last stable offsets
  std::map<std::string, TopicId> live_ids;       // the topic ID each name has now
  // The workers' group (krow-<sync id>.workers) as its coordinator describes it: each
  // member's worker ID, host and partitions; empty for a sync without workers.
  struct Member {
    std::string worker_id, host;
    std::vector<TopicPartition> assigned;
  };
  std::vector<Member> group_members;
  std::string group_why_not;  // when the group could not be described
};

// What the cluster says now of the partitions that have positions in `warehouse`: their last
// stable offsets and the topic ID each name has. Waits up to source.connect_timeout (10 s at
// most) for the cluster. Never throws for the cluster: status still answers from the
// warehouse when it is away, and why_not says why.
ClusterView view_cluster(const Manifest& manifest, StateStore& warehouse);
// The same through a client already connected to the manifest's cluster (`krow serve` keeps
// one per sync: a new client's first round trips are most of the time of a status).
ClusterView view_cluster(const Manifest& manifest, StateStore& warehouse, kafka::Client& client);

std::string format_status(const Manifest& manifest, StateStore& warehouse,
                          const ClusterView& cluster, bool json);

// The sum of the lag of the live partitions whose last stable offset the cluster gave; none
// when the cluster did not answer.
std::optional<int64_t> total_lag(const Manifest& manifest, StateStore& warehouse,
                                 const ClusterView& cluster);

}  // namespace krow
