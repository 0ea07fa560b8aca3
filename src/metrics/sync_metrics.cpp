#include "metrics/sync_metrics.hpp"

#include <prometheus/text_serializer.h>

#include <chrono>
#include <sstream>

namespace krow::metrics {

namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

SyncMetrics::SyncMetrics(std::string sync_id)
    : sync_id_(std::move(sync_id)),
      registry_(std::make_shared<prometheus::Registry>()),
      messages_(BuildCounter()
                    .Name("krow_messages_read_total")
                    .Help("Messages read and made rows, by topic (a message read again after a "
                          "restart counts again)")
                    .Register(*registry_)),
      decode_errors_(BuildCounter()
                         .Name("krow_decode_errors_total")
                         .Help("Messages whose payload could not be decoded (stored with "
                               "decode_error), by topic")
                         .Register(*registry_)),
      bytes_(BuildCounter()
                 .Name("krow_read_bytes_total")
                 .Help("Bytes of the keys and values of the messages read, by topic")
                 .Register(*registry_)),
      rows_(BuildCounter()
                .Name("krow_rows_written_total")
                .Help("Rows committed to the warehouse")
                .Register(*registry_)
                .Add({{"sync", sync_id_}})),
      batches_(BuildCounter()
                   .Name("krow_batches_total")
                   .Help("Batches committed to the warehouse (rows and positions together)")
                   .Register(*registry_)
                   .Add({{"sync", sync_id_}})),
      commit_seconds_(
          BuildHistogram()
              .Name("krow_commit_duration_seconds")
              .Help("Time to write one batch and its positions, retries included")
              .Register(*registry_)
              .Add({{"sync", sync_id_}},
                   prometheus::Histogram::BucketBoundaries{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                           1, 2.5, 5, 10, 30, 60})),
      retries_(BuildCounter()
                   .Name("krow_warehouse_retries_total")
                   .Help("Writes the warehouse refused for now and krow tried again")
                   .Register(*registry_)
                   .Add({{"sync", sync_id_}})),
      fence_conflicts_(
          BuildCounter()
              .Name("krow_fence_conflicts_total")
              .Help("Commits refused because another process took a partition (the epoch fence)")
              .Register(*registry_)
              .Add({{"sync", sync_id_}})),
      rebalances_(BuildCounter()
                      .Name("krow_rebalances_total")
                      .Help("Changes of a worker's partitions, by kind: assigned, revoked, lost")
                      .Register(*registry_)),
      lag_(BuildGauge()
               .Name("krow_partition_lag_messages")
               .Help("Messages between a partition's end (high watermark) and its committed "
                     "position, as last "
                     "seen by this process")
               .Register(*registry_)),
      last_commit_(BuildGauge()
                       .Name("krow_last_commit_timestamp_seconds")
                       .Help("When the last batch was committed (Unix time)")
                       .Register(*registry_)
                       .Add({{"sync", sync_id_}})),
      last_success_(BuildGauge()
                        .Name("krow_last_success_timestamp_seconds")
                        .Help("When the last run ended successfully (Unix time)")
                        .Register(*registry_)
                        .Add({{"sync", sync_id_}})),
      runs_(BuildCounter()
                .Name("krow_runs_total")
                .Help("Runs ended, by outcome: success, partial, failed, interrupted, gate_failed")
                .Register(*registry_)) {}

SyncMetrics::TopicFigures& SyncMetrics::topic(const std::string& name) {
  auto it = topics_.find(name);
  if (it != topics_.end()) return it->second;
  const prometheus::Labels labels{{"sync", sync_id_}, {"topic", name}};
  return topics_
      .emplace(name, TopicFigures{&messages_.Add(labels), &decode_errors_.Add(labels),
                                  &bytes_.Add(labels)})
      .first->second;
}

void SyncMetrics::on_message(const std::string& name, bool decode_error, size_t bytes) {
  std::lock_guard lock(mu_);
  auto& t = topic(name);
  t.messages->Increment();
  if (decode_error) t.decode_errors->Increment();
  t.bytes->Increment(static_cast<double>(bytes));
}

void SyncMetrics::on_commit(size_t rows, std::chrono::duration<double> took) {
  rows_.Increment(static_cast<double>(rows));
  batches_.Increment();
  commit_seconds_.Observe(took.count());
  last_commit_.Set(unix_seconds());
}

void SyncMetrics::on_retry() {
  retries_.Increment();
}

void SyncMetrics::on_fence_conflict() {
  fence_conflicts_.Increment();
}

void SyncMetrics::on_rebalance(const std::string& change, size_t partitions) {
  (void)partitions;
  rebalances_.Add({{"sync", sync_id_}, {"change", change}}).Increment();
}

void SyncMetrics::on_lag(const std::string& topic_name, Partition partition, int64_t messages) {
  std::lock_guard lock(mu_);
  auto& gauge = lags_[{topic_name, partition.value()}];
  if (!gauge)
    gauge = &lag_.Add({{"sync", sync_id_},
                       {"topic", topic_name},
                       {"partition", std::to_string(partition.value())}});
  gauge->Set(static_cast<double>(messages));
}

void SyncMetrics::on_partition_gone(const std::string& topic_name, Partition partition) {
  std::lock_guard lock(mu_);
  const auto it = lags_.find({topic_name, partition.value()});
  if (it == lags_.end()) return;
  lag_.Remove(it->second);
  lags_.erase(it);
}

void SyncMetrics::on_run_end(const std::string& status) {
  runs_.Add({{"sync", sync_id_}, {"outcome", status}}).Increment();
  if (status == "success") last_success_.Set(unix_seconds());
}

std::string SyncMetrics::exposition() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

}  // namespace krow::metrics
