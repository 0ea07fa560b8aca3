#include "metrics/serve_metrics.hpp"

#include <prometheus/text_serializer.h>

#include <sstream>

namespace krow::metrics {

ServeMetrics::ServeMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      runs_(prometheus::BuildCounter()
                .Name("krow_serve_runs_total")
                .Help("Runs of a hosted sync that ended, by outcome (success, partial, failed, "
                      "retry_later, invalid, "
                      "interrupted, killed, ...)")
                .Register(*registry_)),
      durations_(prometheus::BuildHistogram()
                     .Name("krow_serve_run_duration_seconds")
                     .Help("How long the runs of a hosted sync took, start to end")
                     .Register(*registry_)),
      last_success_(prometheus::BuildGauge()
                        .Name("krow_serve_last_success_timestamp_seconds")
                        .Help("When a run of the sync last ended successfully (Unix time)")
                        .Register(*registry_)),
      running_(prometheus::BuildGauge()
                   .Name("krow_serve_running")
                   .Help("1 while a run of the sync is under way")
                   .Register(*registry_)),
      stuck_(prometheus::BuildGauge()
                 .Name("krow_serve_stuck")
                 .Help("1 while a run of the sync has gone on longer than run_timeout")
                 .Register(*registry_)),
      next_due_(prometheus::BuildGauge()
                    .Name("krow_serve_next_run_timestamp_seconds")
                    .Help("When the next scheduled run of the sync is due (Unix time; absent for "
                          "manual syncs)")
                    .Register(*registry_)),
      messages_(counter("krow_messages_read_total",
                        "Kafka messages read, rows of decode errors included")),
      rows_(counter("krow_rows_written_total", "Rows committed to the warehouse")),
      bytes_(counter("krow_read_bytes_total", "Bytes of keys and values read from Kafka")),
      batches_(counter("krow_batches_total", "Batches committed")),
      decode_errors_(counter("krow_decode_errors_total", "Messages stored as decode_error rows")),
      retries_(counter("krow_warehouse_retries_total",
                       "Warehouse operations retried after a transient failure")) {}

prometheus::Family<prometheus::Counter>& ServeMetrics::counter(const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(*registry_);
}

void ServeMetrics::run_figures(const std::string& sync, const RunFigures& f) {
  const prometheus::Labels labels{{"sync", sync}};
  messages_.Add(labels).Increment(static_cast<double>(f.messages));
  rows_.Add(labels).Increment(static_cast<double>(f.rows));
  bytes_.Add(labels).Increment(static_cast<double>(f.bytes));
  batches_.Add(labels).Increment(static_cast<double>(f.batches));
  decode_errors_.Add(labels).Increment(static_cast<double>(f.decode_errors));
  retries_.Add(labels).Increment(static_cast<double>(f.retries));
}

void ServeMetrics::run_ended(const std::string& sync, const std::string& outcome,
                             std::chrono::duration<double> took, double ended) {
  runs_.Add({{"sync", sync}, {"outcome", outcome}}).Increment();
  durations_
      .Add({{"sync", sync}},
           prometheus::Histogram::BucketBoundaries{1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600})
      .Observe(took.count());
  if (outcome == "success") last_success_.Add({{"sync", sync}}).Set(ended);
}

void ServeMetrics::sync_state(const std::string& sync, bool running, bool stuck, std::optional<double> next_due) {
  running_.Add({{"sync", sync}}).Set(running ? 1 : 0);
  stuck_.Add({{"sync", sync}}).Set(stuck ? 1 : 0);
  auto& due = next_due_.Add({{"sync", sync}});
  if (next_due)
    due.Set(*next_due);
  else
    next_due_.Remove(&due);
}

std::string ServeMetrics::exposition() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

}  // namespace krow::metrics
