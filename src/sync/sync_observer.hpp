#pragma once
// What a sync tells whoever watches it as it goes (metrics: `krow sync --follow
// --metrics-address`, docs/metrics.md). The sync calls it from its reading thread and from its
// committer's thread: an implementation is thread-safe, and quick (on_message is called for
// every message read).

#include <chrono>
#include <cstdint>
#include <string>

#include "util/ids.hpp"

namespace krow {

class SyncObserver {
 public:
  virtual ~SyncObserver() = default;

  // A message of `topic` read and made a row (`decode_error`: its payload could not be
  // decoded), `bytes` its key and value.
  virtual void on_message(const std::string& topic, bool decode_error, size_t bytes) = 0;
  // A batch committed: its rows, and how long writing it took (retries included).
  virtual void on_commit(size_t rows, std::chrono::duration<double> took) = 0;
  // A write the warehouse refused for now, tried again.
  virtual void on_retry() = 0;
  // A commit refused because another process took a partition (the epoch fence).
  virtual void on_fence_conflict() = 0;
  // A worker's partitions changed: `change` is "assigned", "revoked" or "lost".
  virtual void on_rebalance(const std::string& change, size_t partitions) = 0;
  // How far a partition's stored position is behind its end (messages), as last seen.
  virtual void on_lag(const std::string& topic, Partition partition, int64_t messages) = 0;
  // A partition no longer read by this process (revoked, lost): its lag is another's now.
  virtual void on_partition_gone(const std::string& topic, Partition partition) = 0;
  // A run ended (a continuous sync: when the process stops) with `status`, status_name of
  // its SyncStatus.
  virtual void on_run_end(const std::string& status) = 0;
};

}  // namespace krow
