#include "sync/session.hpp"

#include <algorithm>
#include <thread>

namespace krow {

Session::Session(const SourceConfig& source, const BatchConfig& limits, RowBuilder& rows,
                 Committer& committer, std::unique_ptr<RowBatch>& batch, std::vector<size_t> slots,
                 End end, bool verbose, std::chrono::seconds retry_timeout, Listener& listener)
    : limits_(limits),
      rows_(rows),
      committer_(committer),
      batch_(batch),
      slots_(std::move(slots)),
      end_(end),
      clock_(std::chrono::milliseconds(limits.max_wait_ms)),
      listener_(listener),
      reader_(source, verbose, {}, retry_timeout) {}

void Session::assign(std::vector<Assignment> partitions) {
  std::vector<ReadStart> reads;
  for (auto& a : partitions) {
    // The committer first: a message of the partition may be handed over at the next poll.
    committer_.expect(a.read.start.topic_id, a.read.start.partition, a.stored, a.floor, a.epoch);
    if (end_ == End::never) a.read.boundary.reset();
    reads.push_back(std::move(a.read));
  }
  reader_.assign(std::move(reads));
}

void Session::revoke(const std::vector<TopicPartition>& partitions) {
  reader_.revoke(partitions, /*report_moved=*/true);
  drain();
}

void Session::lose(const std::vector<TopicPartition>& partitions) {
  for (const auto& tp : partitions) {
    const auto table = reader_.table_of(tp);
    if (!table) continue;
    const auto dropped = batch_->drop_rows(slots_[*table], tp.partition);
    if (!dropped.empty()) listener_.on_rows_dropped(*table, dropped);
  }
  reader_.revoke(partitions, /*report_moved=*/false);
}

bool Session::poll() {
  if (end_ == End::at_boundaries && reader_.active() == 0) return false;
  // Nothing to read (no partition selected yet): wait as a poll would, instead of spinning.
  if (reader_.active() == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  else
    reader_.poll(*this);
  if (end_ == End::never) {
    // Rows dropped since (a lost partition) may have emptied the batch: nothing is due then.
    if (batch_->row_count() == 0)
      clock_.reset();
    else if (clock_.due(std::chrono::steady_clock::now()))
      submit();
    return true;
  }
  return reader_.active() > 0;
}

void Session::drain() {
  submit();
  committer_.drain();
}

std::vector<Session::Lag> Session::lags() const {
  std::vector<Lag> out;
  for (const auto& r : reader_.reading()) {
    const auto stored = committer_.position(r.topic_id, r.partition);
    if (!r.end || !stored) continue;
    out.push_back({r.topic, r.partition, std::max<int64_t>(0, r.end->value() - stored->value())});
  }
  return out;
}

void Session::on_message(size_t topic, const kafka::Message& m) {
  const Row& row = rows_.add(m, *batch_, slots_[topic]);
  listener_.on_row(topic, m, row);
  // One clock read per batch, not per message.
  if (end_ == End::never && !clock_.running()) clock_.on_message(std::chrono::steady_clock::now());
  if (batch_->row_count() >= static_cast<size_t>(limits_.max_messages) ||
      batch_->byte_size() >= static_cast<size_t>(limits_.max_bytes))
    submit();
}

void Session::submit() {
  auto moved = reader_.take_moved(*this);  // first, so that rows of a replaced topic are dropped
  committer_.submit(batch_, std::move(moved));
  clock_.reset();
  last_submit_ = std::chrono::steady_clock::now();
}

void Session::on_topic_stopped(size_t topic, const std::string& error) {
  listener_.on_topic_stopped(topic, error);
}

void Session::on_topic_replaced(size_t topic, const std::string& error) {
  // The rows read since the last batch may be the new topic's: none is stored under the
  // planned topic ID.
  const auto dropped = batch_->drop_rows(slots_[topic]);
  if (!dropped.empty()) listener_.on_rows_dropped(topic, dropped);
  listener_.on_topic_replaced(topic, error);
}

void Session::on_gap(size_t topic, const Gap& gap) {
  listener_.on_gap(topic, gap);
}

}  // namespace krow
