#pragma once
// The figures of `krow serve` (docs/serve.md) in Prometheus's terms: for each hosted sync, its
// runs by outcome and how long they took, whether one is under way or stuck, when the last
// success ended and when the next run is due; and what its finished runs read and wrote (from
// their run records), under the names a sync's own figures have (docs/metrics.md). Labelled by
// sync ID; no credential ever.
//
// Thread: every call, from any thread.

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace krow::metrics {

class ServeMetrics {
 public:
  ServeMetrics();

  // A run of `sync` ended with `outcome` after `took`, at `ended` (Unix seconds).
  void run_ended(const std::string& sync, const std::string& outcome, std::chrono::duration<double> took,
                 double ended);
  // What a finished run of `sync` did, from its run record.
  struct RunFigures {
    int64_t messages = 0, rows = 0, bytes = 0, batches = 0, decode_errors = 0, retries = 0;
  };
  void run_figures(const std::string& sync, const RunFigures& f);
  // What the scheduler says of `sync` now.
  void sync_state(const std::string& sync, bool running, bool stuck, std::optional<double> next_due);

  std::string exposition() const;

 private:
  prometheus::Family<prometheus::Counter>& counter(const char* name, const char* help);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& runs_;
  prometheus::Family<prometheus::Histogram>& durations_;
  prometheus::Family<prometheus::Gauge>& last_success_;
  prometheus::Family<prometheus::Gauge>& running_;
  prometheus::Family<prometheus::Gauge>& stuck_;
  prometheus::Family<prometheus::Gauge>& next_due_;
  prometheus::Family<prometheus::Counter>& messages_;
  prometheus::Family<prometheus::Counter>& rows_;
  prometheus::Family<prometheus::Counter>& bytes_;
  prometheus::Family<prometheus::Counter>& batches_;
  prometheus::Family<prometheus::Counter>& decode_errors_;
  prometheus::Family<prometheus::Counter>& retries_;
};

}  // namespace krow::metrics
