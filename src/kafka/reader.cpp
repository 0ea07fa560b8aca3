#include "kafka/reader.hpp"

#include <algorithm>

#include "kafka/errors.hpp"

namespace krow::kafka {

namespace {
constexpr int kPrefetchKiB = 16 << 10;    // fetched ahead, across all partitions read
constexpr int kMinPrefetchKiB = 1 << 10;  // one partition's fetch (max.partition.fetch.bytes)
}  // namespace

size_t max_fetching_partitions() { return kPrefetchKiB / kMinPrefetchKiB; }

int prefetch_kib_per_partition(size_t partitions) {
  return std::max(kMinPrefetchKiB, kPrefetchKiB / static_cast<int>(std::clamp<size_t>(partitions, 1, 1 << 16)));
}

Reader::Reader(Client& client) : client_(client), queue_(rd_kafka_queue_new(client.handle())) {}

Reader::~Reader() { release(); }

void Reader::release() noexcept {
  for (auto& [tp, running] : running_)
    if (running) rd_kafka_consume_stop(topics_[tp.topic], tp.partition.value());
  running_.clear();
  for (auto& [name, rkt] : topics_) rd_kafka_topic_destroy(rkt);
  topics_.clear();
  queue_.reset();
}

size_t Reader::poll(std::vector<Message>& out, size_t max, int timeout_ms) {
  scratch_.resize(max);
  const auto n = rd_kafka_consume_batch_queue(queue_.get(), timeout_ms, scratch_.data(), max);
  client_.serve_callbacks();
  if (n <= 0) return 0;
  for (ssize_t i = 0; i < n; ++i) out.emplace_back(scratch_[i]);
  return static_cast<size_t>(n);
}

void Reader::start(const Position& a) {
  auto& rkt = topics_[a.topic];
  if (!rkt) rkt = rd_kafka_topic_new(client_.handle(), a.topic.c_str(), nullptr);
  if (!rkt) throw make_error(rd_kafka_last_error(), "opening topic " + a.topic);
  if (rd_kafka_consume_start_queue(rkt, a.partition.value(), a.next.value(), queue_.get()) != 0)
    throw make_error(rd_kafka_last_error(),
                     "starting to read " + a.topic + " partition " + std::to_string(a.partition.value()));
  running_[{a.topic, a.partition}] = true;
}

void Reader::restart(const TopicPartition& tp, Offset next) {
  stop(tp);
  start(Position{tp.topic, {}, tp.partition, next});
}

void Reader::stop(const TopicPartition& tp) {
  auto it = running_.find(tp);
  if (it == running_.end() || !it->second) return;
  it->second = false;
  rd_kafka_consume_stop(topics_[tp.topic], tp.partition.value());
}

std::optional<Offset> Reader::end_of(const TopicPartition& tp) const {
  int64_t low = 0, high = 0;
  if (rd_kafka_get_watermark_offsets(client_.handle(), tp.topic.c_str(), tp.partition.value(), &low,
                                     &high) != RD_KAFKA_RESP_ERR_NO_ERROR ||
      high < 0)
    return std::nullopt;
  return Offset(high);
}

}  // namespace krow::kafka
