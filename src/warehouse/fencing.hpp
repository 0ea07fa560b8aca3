#pragma once
// What every adapter says when a fenced move (batch_writer.hpp's PositionMove) meets another
// epoch than its own: the partition was taken by another worker (StateStore::take) since this
// writer took it. A move that meets its own epoch but another position keeps each adapter's
// own message, as before epochs.

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "warehouse/batch_writer.hpp"

namespace krow {

// What is stored for one partition, as an adapter reads it back after a fenced write failed.
struct StoredFence {
  TopicId topic_id;
  Partition partition;
  Epoch epoch;                 // 0 when the row has none
  std::optional<Offset> next;  // none: taken, never committed
};

// The first of `moves` whose partition's stored epoch is not its own, as Error(conflict), or
// none when every stored epoch is the move's (a partition with no row at all counts as epoch 0).
// `where`: the warehouse (StateStore::describe()).
inline std::optional<Error> epoch_conflict(const std::string& sync_id, const std::string& where,
                                           const std::vector<PositionMove>& moves,
                                           const std::vector<StoredFence>& stored) {
  for (const auto& m : moves) {
    const auto it = std::find_if(stored.begin(), stored.end(), [&](const StoredFence& s) {
      return s.topic_id == m.to.topic_id && s.partition == m.to.partition;
    });
    const Epoch now = it == stored.end() ? Epoch(0) : it->epoch;
    if (now == m.epoch) continue;
    ErrorSource source;
    source.topic = m.to.topic;
    source.partition = m.to.partition;
    return Error(ErrorClass::conflict,
                 "partition " + std::to_string(m.to.partition.value()) + " of topic " + m.to.topic +
                     " (sync '" + sync_id + "' in " + where +
                     ") was taken by another worker: its epoch is " + std::to_string(now.value()) +
                     ", this one took it at epoch " + std::to_string(m.epoch.value()) +
                     "; this worker lost it and writes nothing more for it",
                 Fix{"The krow that took it (another run of this sync, or a worker given the "
                     "partition) goes on from the position it found; nothing is lost. Make sure "
                     "this process is not meant to run: it stopped or paused while another took "
                     "over"},
                 source);
  }
  return std::nullopt;
}

}  // namespace krow
