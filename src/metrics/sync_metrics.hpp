#pragma once
// A sync's figures in Prometheus's terms (docs/metrics.md): counters, gauges and a histogram
// kept by prometheus-cpp, labelled by sync ID (and topic, partition where they apply), and
// rendered in the text exposition format. Names follow Prometheus's conventions: the `krow_`
// prefix, base units (seconds, bytes), `_total` for counters.
//
// Labels carry only names a manifest already shows (the sync ID, topics, partitions, outcome
// words): never a credential.
//
// Thread: every call, from any thread.

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "sync/sync_observer.hpp"

namespace krow::metrics {

class SyncMetrics final : public SyncObserver {
 public:
  // Figures of sync `sync_id`, registered in a registry of their own.
  explicit SyncMetrics(std::string sync_id);

  void on_message(const std::string& topic, bool decode_error, size_t bytes) override;
  void on_commit(size_t rows, std::chrono::duration<double> took) override;
  void on_retry() override;
  void on_fence_conflict() override;
  void on_rebalance(const std::string& change, size_t partitions) override;
  void on_lag(const std::string& topic, Partition partition, int64_t messages) override;
  void on_partition_gone(const std::string& topic, Partition partition) override;
  void on_run_end(const std::string& status) override;

  // Every figure, in Prometheus's text exposition format (version 0.0.4).
  std::string exposition() const;

 private:
  struct TopicFigures {
    prometheus::Counter* messages;
    prometheus::Counter* decode_errors;
    prometheus::Counter* bytes;
  };
  TopicFigures& topic(const std::string& name);  // with mu_ held

  std::string sync_id_;
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& messages_;
  prometheus::Family<prometheus::Counter>& decode_errors_;
  prometheus::Family<prometheus::Counter>& bytes_;
  prometheus::Counter& rows_;
  prometheus::Counter& batches_;
  prometheus::Histogram& commit_seconds_;
  prometheus::Counter& retries_;
  prometheus::Counter& fence_conflicts_;
  prometheus::Family<prometheus::Counter>& rebalances_;
  prometheus::Family<prometheus::Gauge>& lag_;
  prometheus::Gauge& last_commit_;
  prometheus::Gauge& last_success_;
  prometheus::Family<prometheus::Counter>& runs_;

  std::mutex mu_;
  std::map<std::string, TopicFigures> topics_;
  std::map<std::pair<std::string, int32_t>, prometheus::Gauge*> lags_;
};

}  // namespace krow::metrics
