#include "sync/partition_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>

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
  messages_.reserve(1024);
  assign(std::move(partitions));
}

void PartitionReader::assign(std::vector<ReadStart> partitions) {
  for (auto& w : partitions) {
    if (w.topic >= active_per_topic_.size()) active_per_topic_.resize(w.topic + 1, 0);
    auto& slots = by_topic_[w.start.topic];
    const auto p = static_cast<size_t>(w.start.partition.value());
    if (p >= slots.size()) slots.resize(p + 1, kNone);
    if (slots[p] == kNone) {
      slots[p] = partitions_.size();
      partitions_.emplace_back();
    }
    State& s = partitions_[slots[p]];
    deactivate(s);  // assigned again: from its new start
    s = State{w, w.start.next, w.read, false, w.moved};
    if (s.active) {
      waiting_.push_back(slots[p]);
      ++active_per_topic_[w.topic];
      ++active_;
    }
  }
  if (waiting_next_ == waiting_.size()) return;
  if (!client_) {
    max_fetching_ = std::min(waiting_.size() - waiting_next_, kafka::max_fetching_partitions());
    client_ = std::make_unique<kafka::Client>(
        source_,
        kafka::ClientOptions{{}, kafka::prefetch_kib_per_partition(max_fetching_), verbose_});
    reader_ = std::make_unique<kafka::Reader>(*client_);
    last_progress_ = std::chrono::steady_clock::now();
  }
  fetch_more();
}

void PartitionReader::revoke(const std::vector<TopicPartition>& partitions, bool report_moved) {
  for (const auto& tp : partitions) {
    State* p = find(tp);
    if (!p) continue;
    deactivate(*p);
    if (!report_moved) p->moved = false;
  }
}

std::optional<size_t> PartitionReader::table_of(const TopicPartition& partition) {
  const State* p = find(partition);
  if (!p) return std::nullopt;
  return p->where.topic;
}

PartitionReader::~PartitionReader() = default;

size_t PartitionReader::active_in(size_t topic) const {
  return topic < active_per_topic_.size() ? active_per_topic_[topic] : 0;
}

PartitionReader::State* PartitionReader::find(const kafka::Message& m) {
  return find(TopicPartition{std::string(m.topic()), m.partition()});
}

PartitionReader::State* PartitionReader::find(const TopicPartition& tp) {
  auto it = by_topic_.find(tp.topic);
  if (it == by_topic_.end()) return nullptr;
  const auto p = static_cast<size_t>(tp.partition.value());
  if (p >= it->second.size() || it->second[p] == kNone) return nullptr;
  return &partitions_[it->second[p]];
}

void PartitionReader::fetch_more() {
  while (waiting_next_ < waiting_.size()) {
    State& p = partitions_[waiting_[waiting_next_]];
    // A partition read on (continuous) never finishes to make room: each is fetched at once.
    if (fetching_ >= max_fetching_ && p.where.boundary) break;
    ++waiting_next_;
    if (!p.active || p.fetching)
      continue;  // its topic stopped while it waited, or it was assigned again
    reader_->start(Position{p.where.start.topic, p.where.start.topic_id, p.where.start.partition, p.next});
    p.fetching = true;
    ++fetching_;
  }
}

void PartitionReader::poll(Handler& handler) {
  if (!reader_ || active_ == 0) return;
  std::string reason;
  if (const auto fatal = client_->fatal_error(&reason))
    throw kafka::make_error(fatal, "reading from Kafka (" + reason + ")").as(ErrorClass::fatal_run);
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
  } else if (now - last_progress_ > retry_timeout_ &&
             std::any_of(partitions_.begin(), partitions_.end(),
                         [](const State& p) { return p.active && p.where.boundary; })) {
    // Only a partition short of its boundary is owed messages: one read on (continuous) may
    // just be quiet.
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
    if (past(*p, m.offset())) {          // produced after the sync started: the next sync's
      finish(*p);
      continue;
    }
    // "+1": a position is the next offset to read.
    p->next = m.offset().next();
    p->moved = true;
    if (past(*p, p->next)) finish(*p);
    handler.on_message(p->where.topic, m);
  }
  fetch_more();  // in place of the partitions done
}

void PartitionReader::handle_error(kafka::Message& m, Handler& handler) {
  State* p = find(m);
  if (m.error() == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
    // EOF at or past the boundary: every offset below it has been seen or was not a message
    // (aborted, control record, compacted away).
    if (p && p->active && past(*p, m.offset())) finish(*p);
    return;
  }
  if (m.error() == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET) {
    if (verbose_) std::fprintf(stderr, "krow: kafka: %s\n", m.error_text());
    if (p && p->active) relocate(*p, handler);
    return;
  }
  const auto cls = kafka::classify(m.error());
  if (cls == ErrorClass::fatal_table && p) {
    const auto& topic = p->where.start.topic;
    stop_topic(p->where.topic,
               kafka::make_error(m, "reading topic " + topic, source_.username).what(), handler);
    return;
  }
  if (cls == ErrorClass::fatal_run)
    throw kafka::make_error(m, std::string("reading from Kafka (") + m.error_text() + ")");
  if (verbose_) std::fprintf(stderr, "krow: kafka: %s (retrying)\n", m.error_text());
}

kafka::Cluster PartitionReader::cluster() { return kafka::Cluster(*client_, std::chrono::seconds(30), retry_timeout_); }

std::string PartitionReader::deleted(const State& p, const kafka::TopicDescription& now) const {
  if (!kafka::is_topic_missing(now.error)) return {};
  return "topic " + p.where.start.topic + " was deleted while the sync ran; its rows up to here stay. Remove it "
         "from the manifest's topics, or recreate it to sync the new one";
}

std::string PartitionReader::replaced(const State& p, const kafka::TopicDescription& now) const {
  const auto& planned = p.where.start.topic_id;
  if (now.error || now.topic_id == planned) return {};
  return "topic " + p.where.start.topic + " was deleted and recreated while the sync ran (topic ID " + planned.str() + " is now " +
         now.topic_id.str() + "): the rows of the old topic up to the last committed batch stay under " +
         planned.str() + "; the messages read since could not be told from the new topic's and were not stored. "
         "The next sync copies the new topic under its own ID";
}

void PartitionReader::relocate(State& p, Handler& handler) {
  const auto& topic = p.where.start.topic;
  const TopicPartition tp{topic, p.where.start.partition};
  const auto described = cluster().describe({topic});
  if (described.empty()) throw Error(ErrorClass::transient, "the cluster did not describe topic " + topic);
  if (auto why = deleted(p, described[0]); !why.empty()) {
    stop_topic(p.where.topic, why, handler);  // what was read before is the topic's
    return;
  }
  // A refusal (no DESCRIBE any more) stops the topic; what is still retriable after the
  // retry budget ends the run, to be resumed.
  auto refused = [&](rd_kafka_resp_err_t err, const std::string& what) {
    const auto e = kafka::make_error(err, what + topic, source_.username, topic);
    if (e.error_class() != ErrorClass::fatal_table) throw e;
    stop_topic(p.where.topic, e.what(), handler);
  };
  if (described[0].error) return refused(described[0].error, "describing topic ");
  if (auto why = replaced(p, described[0]); !why.empty()) {
    replace_topic(p.where.topic, why, handler);
    return;
  }
  const auto now = cluster().offsets({tp});
  if (now.at(0).error) return refused(now[0].error, "reading offsets of ");
  const Offset earliest = now[0].earliest, end = now[0].last_stable;
  if (earliest > p.next) {
    const Offset to = p.where.boundary ? std::min(earliest, *p.where.boundary) : earliest;
    handler.on_gap(p.where.topic, Gap{tp.partition, p.next, to,
                                      "deleted while the sync ran (retention or a records deletion), before it was read"});
    p.next = to;
    p.moved = true;
    if (past(p, p.next)) {
      finish(p);
      return;
    }
  } else if (end < p.next) {
    handler.on_gap(p.where.topic, Gap{tp.partition, end, p.next,
                                      "log truncated below the position while the sync ran (unclean leader election?): "
                                      "messages at these offsets were copied before; the next sync resumes at the "
                                      "log's end and copies what is written there"});
    deactivate(p);  // the position stays; the next plan moves it down to the end
    return;
  }
  // Reading goes on at the position (also when the out-of-range answer has passed by itself,
  // as during a leader change).
  reader_->restart(tp, p.next);
}

void PartitionReader::deactivate(State& p) {
  if (!p.active) return;
  p.active = false;
  --active_per_topic_[p.where.topic];
  --active_;
  if (p.fetching) {
    p.fetching = false;
    --fetching_;
    reader_->stop({p.where.start.topic, p.where.start.partition});
  }
}

void PartitionReader::finish(State& p) {
  if (!p.active) return;
  if (p.where.boundary && p.next != *p.where.boundary) {
    p.next = *p.where.boundary;
    p.moved = true;
  }
  deactivate(p);
}

void PartitionReader::stop_topic(size_t topic, const std::string& error, Handler& handler) {
  for (auto& p : partitions_) {
    if (p.where.topic != topic) continue;
    deactivate(p);
  }
  handler.on_topic_stopped(topic, error);
}

void PartitionReader::replace_topic(size_t topic, const std::string& why, Handler& handler) {
  for (auto& p : partitions_)
    if (p.where.topic == topic) {
      p.moved = false;  // positions reached since the last check may be the new topic's
      deactivate(p);
    }
  handler.on_topic_replaced(topic, why);
}

std::vector<Position> PartitionReader::take_moved(Handler& handler) {
  // The topics about to get new positions still have the planned IDs: then every message
  // handed over so far came from the planned topic (IDs are never reused).
  std::vector<std::string> names;
  std::map<std::string, const State*> topics;
  for (const auto& p : partitions_)
    if (p.moved && topics.emplace(p.where.start.topic, &p).second) names.push_back(p.where.start.topic);
  if (!names.empty() && client_) {
    for (const auto& now : cluster().describe(names)) {
      const State& p = *topics.at(now.name);
      if (auto why = deleted(p, now); !why.empty()) stop_topic(p.where.topic, why, handler);
      else if (auto why = replaced(p, now); !why.empty()) replace_topic(p.where.topic, why, handler);
    }
    fetch_more();
  }
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

std::vector<PartitionReader::Reading> PartitionReader::reading() const {
  std::vector<Reading> out;
  for (const auto& p : partitions_) {
    if (!p.active) continue;
    const auto& start = p.where.start;
    Reading r{start.topic, start.topic_id, start.partition, std::nullopt};
    if (p.fetching && reader_) r.end = reader_->end_of({start.topic, start.partition});
    out.push_back(std::move(r));
  }
  return out;
}

std::string PartitionReader::furthest_behind() const {
  const State* worst = nullptr;
  for (const auto& p : partitions_)
    if (p.active && p.where.boundary &&
        (!worst ||
         distance(p.next, *p.where.boundary) > distance(worst->next, *worst->where.boundary)))
      worst = &p;
  if (!worst) return {};
  return worst->where.start.topic + "[" + std::to_string(worst->where.start.partition.value()) +
         "] " + with_thousands(static_cast<uint64_t>(worst->next.value())) + "/" +
         with_thousands(static_cast<uint64_t>(worst->where.boundary->value()));
}

}  // namespace krow
