#pragma once
// What a continuous sync (`krow sync --follow`) decides besides reading: the manifests it
// refuses, when a batch is due by time (batch.max_wait), whether the selected topics grew
// while it ran, and how long it waits before it goes on after a failure that may pass.
//
// Thread: any; the objects here are used by one thread at a time.

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "kafka/cluster.hpp"
#include "manifest/manifest.hpp"
#include "util/ids.hpp"
#include "warehouse/capabilities.hpp"

namespace krow {

// Why `manifest` (its bounds already merged with the command's flags) cannot be synced
// continuously, naming what to change; "" when it can. Refused: bounds that stop reading
// (a continuous sync has no end to stop at), staged publishing (nothing would be visible
// before the process ends), quality gates (they judge a finished run), and full_refresh
// tables (each run replaces the table with the whole topic: there is no "one more batch").
std::string continuous_refusal(const Manifest& manifest);

// On an engine whose quotas limit the batches a project writes per day (BigQuery's load jobs,
// WarehouseCapabilities::daily_table_batches): a note when batch.max_wait lets this sync alone
// take half of them or more, if every selected table keeps receiving messages (a prefix or a
// glob counts as one table: at least). Names the max_wait that keeps it to a tenth. "" else.
std::string daily_quota_note(const Manifest& manifest, const WarehouseCapabilities& capabilities);

// The time limit of a batch: due `max_wait` after the batch's first message.
class BatchClock {
 public:
  using Clock = std::chrono::steady_clock;
  explicit BatchClock(std::chrono::milliseconds max_wait) : max_wait_(max_wait) {}
  // A message joined the batch at `now`; only the first one of a batch starts the clock.
  void on_message(Clock::time_point now) {
    if (!first_) first_ = now;
  }
  // The batch was handed over (or emptied): the next message starts a new one.
  void reset() { first_.reset(); }
  bool due(Clock::time_point now) const { return first_ && now - *first_ >= max_wait_; }
  bool running() const { return first_.has_value(); }

 private:
  std::chrono::milliseconds max_wait_;
  std::optional<Clock::time_point> first_;
};

// A selected topic as the cluster describes it (readable topics only).
struct TopicShape {
  TopicId topic_id;
  size_t partitions = 0;
  bool operator==(const TopicShape&) const = default;
};
using Topology = std::map<std::string, TopicShape>;  // by topic name

// True when `now` holds what `before` lacks: a topic, a topic recreated under its name
// (another topic ID), more partitions. Topics that went away are not growth: their tables
// stop as they do in any sync.
bool topology_grew(const Topology& before, const Topology& now);

// The readable topics the manifest selects, as the cluster describes them now. Throws as
// kafka::Cluster does (transient when the cluster does not answer within its budget).
Topology selected_topology(kafka::Cluster& cluster, const TopicSelection& selection);

// The wait before going on after the `attempt`-th failure in a row (1-based) that may pass
// by itself: 1 s, doubling, at most 60 s.
std::chrono::milliseconds retry_backoff(int attempt);

}  // namespace krow
