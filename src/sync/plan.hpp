#pragma once
// What a sync will do: for every selected topic its table and topic ID, and for every
// partition the stored position, the last stable offset captured now (the boundary), and
// the range to read. Used by `krow plan` and as the first step of `krow sync`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kafka/cluster.hpp"
#include "manifest/manifest.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

struct PartitionPlan {
  Partition partition;
  std::optional<Offset> stored;  // the committed position; none before the first commit
  Offset earliest;               // log start offset
  Offset boundary;               // last stable offset at plan time: read up to, not including, it
  Offset start;                  // first offset to read: the stored position, or the log start
  int64_t to_read() const { return distance(start, boundary); }
  // Offsets [stored, earliest) expired before they could be read.
  bool retention_gap() const { return stored && earliest > *stored; }
  // The log ends before the stored position: it was truncated under krow (an unclean leader
  // election). Reading resumes at the log's end, so that the messages written at offsets
  // [boundary, stored) from now on are copied too, instead of waiting forever for an offset
  // that came and went.
  bool truncated() const { return stored && *stored > boundary; }
};

struct TopicPlan {
  std::string topic;
  TopicId topic_id;  // empty when the topic cannot be described
  std::string table;
  std::vector<PartitionPlan> partitions;
  std::string error;  // set when the table cannot be synced now (names the fix)
  int64_t to_read() const;
};

struct Plan {
  std::string sync_id;
  std::string warehouse;  // description of the warehouse
  std::string schema;
  std::string decoders;   // how keys and values will be read
  std::vector<TopicPlan> topics;
  std::vector<std::string> excluded_internal;  // internal topics left out
  std::vector<Position> older_topic_ids;     // positions of topics since recreated or deleted
  int64_t to_read() const;
};

// Asks the cluster and reads the stored state. Throws fatal_run / transient errors from
// the cluster; per-topic problems land in TopicPlan::error.
Plan make_plan(kafka::Cluster& cluster, Warehouse& warehouse, const Manifest& manifest);

enum class PlanFormat { text, md, json };
std::string format_plan(const Plan& plan, PlanFormat format);

}  // namespace krow
