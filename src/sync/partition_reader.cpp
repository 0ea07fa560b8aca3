#include "sync/partition_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "kafka/errors.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace krow {

namespace {
constexpr size_t kNone = std::numeric_limits<size_t>::max();
}  // namespace

PartitionReader::PartitionReader(const SourceConfig& source, bool verbose, std::vector<ReadStart> partitions,
                                 std::chrono::seconds retry_timeout)
    : source_(source), verbose_(verbose), retry_timeout_(retry_timeout) {
  std::vector<Position> starts;
  for (auto& w : partitions) {
    State s{w, w.start.next, w.read, w.moved};
    if (w.topic >= active_per_topic_.size()) active_per_topic_.resize(w.topic + 1, 0);
    auto& slots = by_topic_[w.start.topic];
    const auto p = static_cast<size_t>(w.start.partition.value());
    if (p >= slots.size()) slots.resize(p + 1, kNone);
    slots[p] = partitions_.size();
    if (s.active) {
      starts.push_back(w.start);
      ++active_per_topic_[w.topic];
      ++active_;
    }
    partitions_.push_back(std::move(s));
  }
  if (starts.empty()) return;
  client_ = std::make_unique<kafka::Client>(
      source_, kafka::ClientOptions{{}, kafka::prefetch_kib_per_partition(starts.size()), verbose_});
  reader_ = std::make_unique<kafka::Reader>(*client_, starts);
  messages_.reserve(1024);
  last_progress_ = std::chrono::steady_clock::now();
}

PartitionReader::~PartitionReader() = default;

size_t PartitionReader::active_in(size_t topic) const {
  return topic < active_per_topic_.size() ? active_per_topic_[topic] : 0;
}

PartitionReader::State* PartitionReader::find(const kafka::Message& m) {
  auto it = by_topic_.find(m.topic());
  if (it == by_topic_.end()) return nullptr;
  const auto p = static_cast<size_t>(m.partition().value());
  if (p >= it->second.size() || it->second[p] == kNone) return nullptr;
  return &partitions_[it->second[p]];
}

void PartitionReader::poll(Handler& handler) {
  if (!reader_ || active_ == 0) return;
  std::string reason;
  if (const auto fatal = client_->fatal_error(&reason))
    throw Error(ErrorClass::fatal_run, kafka::make_error(fatal, "reading from Kafka (" + reason + ")").what());
  messages_.clear();
  reader_->poll(messages_, 1024, 100);
  // librdkafka reconnects on its own, with backoff, through broker outages, network loss and
  // leader changes; fetching resumes at the in-memory position, which never runs ahead of
  // what was received. This watchdog only bounds how long krow waits for that.
  const auto now = std::chrono::steady_clock::now();
  const bool progressed = std::any_of(messages_.begin(), messages_.end(), [](const kafka::Message& m) {
    return !m.error() || m.error() == RD_KAFKA_RESP_ERR__PARTITION_EOF;
  });
  if (progressed) {
    last_progress_ = now;
  } else if (now - last_progress_ > retry_timeout_) {
    throw Error(ErrorClass::transient,
                "no message could be read for " + std::to_string(retry_timeout_.count()) +
                    " s (source.retry_timeout): the cluster is unreachable or unavailable. Everything up to the "
                    "last committed batch is kept; run the sync again once the cluster is back");
  }
  for (auto& m : messages_) {
    if (m.error()) {
      handle_error(m, handler);
      continue;
    }
    State* p = find(m);
    if (!p || !p->active) continue;
    if (m.offset() < p->next) continue;  // already read (a re-delivery after an offset reset)
    if (m.offset() >= p->where.boundary) {  // produced after the sync started: the next sync's
      finish(*p);
      continue;
    }
    // "+1": a position is the next offset to read.
    p->next = m.offset().next();
    p->moved = true;
    if (p->next >= p->where.boundary) finish(*p);
    handler.on_message(p->where.topic, m);
  }
}

void PartitionReader::handle_error(kafka::Message& m, Handler& handler) {
  State* p = find(m);
  if (m.error() == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
    // EOF at or past the boundary: every offset below it has been seen or was not a message
    // (aborted, control record, compacted away).
    if (p && p->active && m.offset() >= p->where.boundary) finish(*p);
    return;
  }
  const auto cls = kafka::classify(m.error());
  if (cls == ErrorClass::fatal_table && p) {
    const auto& topic = p->where.start.topic;
    stop_topic(p->where.topic, kafka::make_error(m.error(), "reading topic " + topic, source_.username, topic).what(),
               handler);
    return;
  }
  if (cls == ErrorClass::fatal_run)
    throw kafka::make_error(m.error(), std::string("reading from Kafka (") + m.error_text() + ")");
  if (verbose_) std::fprintf(stderr, "krow: kafka: %s (retrying)\n", m.error_text());
}

void PartitionReader::finish(State& p) {
  if (!p.active) return;
  p.active = false;
  if (p.next != p.where.boundary) {
    p.next = p.where.boundary;
    p.moved = true;
  }
  --active_per_topic_[p.where.topic];
  --active_;
  reader_->stop({p.where.start.topic, p.where.start.partition});
}

void PartitionReader::stop_topic(size_t topic, const std::string& error, Handler& handler) {
  for (auto& p : partitions_) {
    if (p.where.topic != topic || !p.active) continue;
    p.active = false;
    --active_per_topic_[topic];
    --active_;
    reader_->stop({p.where.start.topic, p.where.start.partition});
  }
  handler.on_topic_stopped(topic, error);
}

std::vector<Position> PartitionReader::take_moved() {
  std::vector<Position> out;
  for (auto& p : partitions_) {
    if (!p.moved) continue;
    p.moved = false;
    Position pos = p.where.start;
    pos.next = p.next;
    out.push_back(std::move(pos));
  }
  return out;
}

std::string PartitionReader::furthest_behind() const {
  const State* worst = nullptr;
  for (const auto& p : partitions_)
    if (p.active && (!worst || distance(p.next, p.where.boundary) > distance(worst->next, worst->where.boundary)))
      worst = &p;
  if (!worst) return {};
  return worst->where.start.topic + "[" + std::to_string(worst->where.start.partition.value()) + "] " +
         with_thousands(static_cast<uint64_t>(worst->next.value())) + "/" +
         with_thousands(static_cast<uint64_t>(worst->where.boundary.value()));
}

}  // namespace krow
