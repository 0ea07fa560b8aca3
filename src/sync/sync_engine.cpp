#include "sync/sync_engine.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>
#include <unordered_map>

#include "codec/headers_json.hpp"
#include "codec/payload_decoder.hpp"
#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "kafka/errors.hpp"
#include "kafka/lag_group.hpp"
#include "kafka/reader.hpp"
#include "registry/decoder_cache.hpp"
#include "rows/row_batch.hpp"
#include "sync/batch_writer.hpp"
#include "sync/plan.hpp"
#include "sync/progress.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"
#include "util/text.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

const char* status_name(SyncStatus s) {
  switch (s) {
    case SyncStatus::success: return "success";
    case SyncStatus::partial: return "partial";
    case SyncStatus::failed: return "failed";
    case SyncStatus::interrupted: return "interrupted";
  }
  return "unknown";
}

namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string new_run_id() {
  const auto t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  std::random_device rd;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "-%06x", rd() & 0xffffff);
  return std::string(buf) + suffix;
}

struct TopicState;

struct PartitionState {
  TopicState* topic = nullptr;
  int32_t partition = 0;
  int64_t next = 0;      // next offset to read; what is committed once the batch is
  int64_t boundary = 0;  // last stable offset captured at start
  int64_t floor = 0;     // the position stored before this run; a full resync never moves below it
  bool active = false;   // being read in this run
  bool dirty = false;    // moved since the last commit
};

struct TopicState {
  const TopicPlan* plan = nullptr;
  size_t slot = 0;  // table slot in the row batch
  std::vector<PartitionState> partitions;  // indexed by partition number
  size_t active = 0;                        // partitions still being read
  int64_t messages = 0;
  int64_t bytes = 0;
  int64_t decode_errors = 0;
  int64_t tombstones = 0;
  std::string error;  // set when this table stopped during the run
};

class SyncRun {
 public:
  SyncRun(const Manifest& manifest, const SyncOptions& options)
      : manifest_(manifest),
        options_(options),
        schemas_(manifest.registry.configured()
                     ? std::make_unique<DecoderCache>(manifest.registry, DecodeOptions{manifest.registry.tagged_unions})
                     : nullptr),
        decoder_(DecoderOptions{static_cast<size_t>(manifest.limits.max_value_bytes)}, schemas_.get()) {}

  SyncResult run();

 private:
  void prepare_tables();
  // `admin` plans and reports lag; reading gets a client of its own, sized for the
  // partitions it reads.
  void read_all(kafka::Client& admin, Progress& progress);
  void handle_error(kafka::Message& m, kafka::Reader& reader);
  void add_row(const kafka::Message& m, TopicState& t, PartitionState& p);
  void finish_partition(PartitionState& p, kafka::Reader& reader);
  void stop_topic(TopicState& t, const std::string& error, kafka::Reader& reader);
  // Hands the batch in hand (and the positions it advances) to the writer.
  void commit();
  std::string record_json(const SyncResult& r, int64_t started, int64_t finished) const;
  std::string focus() const;

  const Manifest& manifest_;
  SyncOptions options_;
  std::unique_ptr<Warehouse> warehouse_;
  Plan plan_;
  std::vector<TopicState> topics_;
  std::unordered_map<std::string, TopicState*> by_name_;
  size_t active_partitions_ = 0;
  std::unique_ptr<DecoderCache> schemas_;  // null without a registry
  PayloadDecoder decoder_;
  std::unique_ptr<RowBatch> batch_ = std::make_unique<RowBatch>();
  std::unique_ptr<kafka::LagGroup> lag_group_;  // outlives the writer that uses it
  std::unique_ptr<BatchWriter> writer_;
  SyncResult result_;
};

SyncResult SyncRun::run() {
  const auto started = now_ms();
  const auto t0 = std::chrono::steady_clock::now();
  result_.run_id = new_run_id();
  warehouse_ = open_warehouse(manifest_.warehouse, manifest_.name, OpenMode::write);

  kafka::Client client(manifest_.source, kafka::ClientOptions{.verbose = options_.verbose});
  client.check_connection(std::chrono::seconds(manifest_.source.connect_timeout_s));
  kafka::Cluster cluster(client);
  if (!manifest_.bound_cluster_id.empty()) {
    const auto id = cluster.cluster_id();
    if (id != manifest_.bound_cluster_id)
      throw Error(ErrorClass::fatal_run, "saved source '" + manifest_.saved_source + "' is bound to cluster " +
                                             manifest_.bound_cluster_id + ", but its bootstrap servers now answer as "
                                             "cluster " + id + "; refusing to mix clusters in one sync");
  }
  plan_ = make_plan(cluster, *warehouse_, manifest_);
  prepare_tables();

  Progress progress(options_.progress, plan_.to_read(), topics_.size());
  try {
    read_all(client, progress);
  } catch (const Error& e) {
    // Whatever was committed stays committed; the next sync resumes from there.
    result_.status = SyncStatus::failed;
    result_.errors.push_back(e.what());
  } catch (const std::exception& e) {
    result_.status = SyncStatus::failed;
    result_.errors.push_back(std::string("unexpected error: ") + e.what());
  }
  progress.finish();
  if (lag_group_) {
    lag_group_->finish();  // the last positions, and the answers still due
    result_.lag_reporting_off = lag_group_->reason();
  }
  lag_group_.reset();

  for (const auto& t : topics_) {
    result_.decode_errors += t.decode_errors;
    result_.bytes += t.bytes;
  }
  if (result_.status != SyncStatus::failed) {
    bool any_stopped = false;
    for (const auto& t : topics_) any_stopped |= !t.error.empty();
    if (options_.stop && options_.stop->load()) result_.status = SyncStatus::interrupted;
    else if (any_stopped) result_.status = SyncStatus::partial;
  }
  result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto finished = now_ms();
  try {
    warehouse_->record_run(RunRecord{result_.run_id, manifest_.name, started, finished,
                                     status_name(result_.status), record_json(result_, started, finished)});
  } catch (const Error& e) {
    std::fprintf(stderr, "krow: warning: could not store the run record: %s\n", e.what());
  }
  return result_;
}

void SyncRun::prepare_tables() {
  topics_.reserve(plan_.topics.size());  // pointers into topics_ must stay valid
  for (const auto& tp : plan_.topics) {
    TopicState& t = topics_.emplace_back();
    t.plan = &tp;
    if (!tp.error.empty()) {
      t.error = tp.error;
      result_.errors.push_back(tp.error);
      continue;
    }
    warehouse_->create_table(manifest_.name, tp.topic, tp.table);
    t.slot = batch_->table_slot(tp.table, tp.topic, tp.topic_id);
    int32_t max_partition = -1;
    for (const auto& p : tp.partitions) max_partition = std::max(max_partition, p.partition);
    t.partitions.resize(static_cast<size_t>(max_partition + 1));
    const bool resync = options_.full_resync &&
                        (options_.only_tables.empty() ||
                         std::find(options_.only_tables.begin(), options_.only_tables.end(), tp.table) !=
                             options_.only_tables.end());
    for (const auto& p : tp.partitions) {
      auto& ps = t.partitions[static_cast<size_t>(p.partition)];
      ps.topic = &t;
      ps.partition = p.partition;
      ps.boundary = p.boundary;
      ps.floor = std::max<int64_t>(p.stored, 0);
      if (options_.full_resync) {
        // Re-read from the log start; the position ends at the boundary as usual. Tables
        // left out of a partial resync are not read at all in this run.
        ps.next = p.earliest;
        ps.active = resync && p.boundary > p.earliest;
        ps.dirty = false;
      } else {
        ps.next = p.start;
        ps.active = p.to_read() > 0;
        // A stored position behind the log start moves up to it now (the gap is recorded).
        ps.dirty = p.stored != p.start;
      }
      if (ps.active) ++t.active;
    }
    active_partitions_ += t.active;
    by_name_[tp.topic] = &t;
  }
}

void SyncRun::read_all(kafka::Client& admin, Progress& progress) {
  std::vector<kafka::Assignment> assignments;
  for (const auto& t : topics_)
    for (const auto& p : t.partitions)
      if (p.active) assignments.push_back({t.plan->topic, p.partition, p.next});
  // The writer's spare batch has the same table slots as the one being filled.
  auto spare = std::make_unique<RowBatch>();
  for (const auto& t : batch_->tables()) spare->table_slot(t.table, t.topic, t.topic_id);
  // Positions also go to the lag group once committed, so Kafka's tools can show lag.
  lag_group_ = std::make_unique<kafka::LagGroup>(admin, "krow-" + manifest_.name,
                                                 std::chrono::seconds(manifest_.source.retry_timeout_s));
  auto publish = [this](const std::vector<PositionUpdate>& positions) {
    std::vector<kafka::LagGroup::Offset> offsets;
    for (const auto& p : positions) offsets.push_back({p.topic, p.partition, p.next_offset});
    lag_group_->commit(offsets);
  };
  writer_ = std::make_unique<BatchWriter>(*warehouse_, manifest_.name,
                                         options_.full_resync ? Warehouse::WriteMode::merge : Warehouse::WriteMode::append,
                                         std::move(spare), publish);
  struct Drain {  // whatever happens, committed counts are read after the writer stops
    SyncRun& run;
    ~Drain() {
      run.writer_->stop();  // a batch being written when an error struck still lands
      run.result_.messages = run.writer_->committed_rows();
      run.result_.batches = run.writer_->committed_batches();
      run.writer_.reset();
    }
  } drain{*this};
  if (assignments.empty()) {
    commit();  // records moved positions (e.g. past expired offsets), if any
    writer_->drain();
    return;
  }
  kafka::Client client(manifest_.source,
                       kafka::ClientOptions{{}, kafka::prefetch_kib_per_partition(assignments.size()), options_.verbose});
  kafka::Reader reader(client, assignments);
  std::vector<kafka::Message> messages;
  messages.reserve(1024);
  const auto max_messages = static_cast<size_t>(manifest_.batch.max_messages);
  const auto max_bytes = static_cast<size_t>(manifest_.batch.max_bytes);
  // librdkafka reconnects on its own, with backoff, through broker outages, network loss
  // and leader changes; fetching resumes at the in-memory position, which never runs ahead
  // of what was received. The watchdog only bounds how long krow waits for that.
  const auto retry_timeout = std::chrono::seconds(manifest_.source.retry_timeout_s);
  auto last_progress = std::chrono::steady_clock::now();
  while (active_partitions_ > 0) {
    if (options_.stop && options_.stop->load()) break;
    std::string reason;
    if (const auto fatal = client.fatal_error(&reason))
      throw Error(ErrorClass::fatal_run, kafka::make_error(fatal, "reading from Kafka (" + reason + ")").what());
    messages.clear();
    reader.poll(messages, 1024, 100);
    const auto now = std::chrono::steady_clock::now();
    const bool progressed = std::any_of(messages.begin(), messages.end(), [](const kafka::Message& m) {
      return !m.error() || m.error() == RD_KAFKA_RESP_ERR__PARTITION_EOF;
    });
    if (progressed) {
      last_progress = now;
    } else if (now - last_progress > retry_timeout) {
      throw Error(ErrorClass::transient,
                  "no message could be read for " + std::to_string(manifest_.source.retry_timeout_s) +
                      " s (source.retry_timeout): the cluster is unreachable or unavailable. Everything up to the "
                      "last committed batch is kept; run the sync again once the cluster is back");
    }
    for (auto& m : messages) {
      if (m.error()) {
        handle_error(m, reader);
        continue;
      }
      auto it = by_name_.find(m.topic());
      if (it == by_name_.end()) continue;
      TopicState& t = *it->second;
      if (static_cast<size_t>(m.partition()) >= t.partitions.size()) continue;
      PartitionState& p = t.partitions[static_cast<size_t>(m.partition())];
      if (!p.active) continue;
      if (m.offset() < p.next) continue;  // already read (a re-delivery after an offset reset)
      if (m.offset() >= p.boundary) {  // produced after the sync started: the next sync's
        finish_partition(p, reader);
        continue;
      }
      add_row(m, t, p);
      // "+1": the stored position is the next offset to read.
      p.next = m.offset() + 1;
      p.dirty = true;
      if (p.next >= p.boundary) finish_partition(p, reader);
      if (batch_->row_count() >= max_messages || batch_->byte_size() >= max_bytes) commit();
    }
    size_t topics_done = 0;
    for (const auto& t : topics_) topics_done += t.active == 0;
    progress.update(writer_->committed_rows() + static_cast<int64_t>(batch_->row_count()), topics_done, focus());
  }
  commit();
  writer_->drain();
}

void SyncRun::handle_error(kafka::Message& m, kafka::Reader& reader) {
  auto it = by_name_.find(m.topic());
  TopicState* t = it == by_name_.end() ? nullptr : it->second;
  if (m.error() == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
    if (!t || static_cast<size_t>(m.partition()) >= t->partitions.size()) return;
    PartitionState& p = t->partitions[static_cast<size_t>(m.partition())];
    // EOF at or past the boundary: every offset below it has been seen or was not a
    // message (aborted, control record, compacted away).
    if (p.active && m.offset() >= p.boundary) finish_partition(p, reader);
    return;
  }
  const auto cls = kafka::classify(m.error());
  if (cls == ErrorClass::fatal_table && t) {
    stop_topic(*t, kafka::make_error(m.error(), "reading topic " + t->plan->topic, manifest_.source.username, t->plan->topic).what(),
               reader);
    return;
  }
  if (cls == ErrorClass::fatal_run)
    throw kafka::make_error(m.error(), std::string("reading from Kafka (") + m.error_text() + ")");
  if (options_.verbose) std::fprintf(stderr, "krow: kafka: %s (retrying)\n", m.error_text());
}

void SyncRun::add_row(const kafka::Message& m, TopicState& t, PartitionState& p) {
  auto& arena = batch_->arena();
  Row& row = batch_->tables()[t.slot].rows.emplace_back();
  batch_->count_row();
  row.partition = p.partition;
  row.offset = m.offset();
  rd_kafka_timestamp_type_t ts_type;
  row.timestamp_ms = m.timestamp(&ts_type);
  row.timestamp_type = ts_type == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? TimestampType::create_time
                       : ts_type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? TimestampType::log_append_time
                                                                      : TimestampType::none;
  row.key = decoder_.decode_key(m.key(), m.key_size(), m.has_key(), arena);
  if (m.has_value()) {
    row.value = decoder_.decode_value(m.value(), m.value_size(), arena);
    row.value_size_bytes = static_cast<int32_t>(m.value_size());
  } else {
    row.is_tombstone = true;
    ++t.tombstones;
  }
  HeadersJson headers(arena);
  m.for_each_header([&](std::string_view name, const void* value, size_t size) { headers.add(name, value, size); });
  row.headers = headers.finish();
  if (row.key.error.present && row.value.error.present) {
    const size_t start = arena.size();
    arena.append(row.key.error.view(arena)).append("; ").append(row.value.error.view(arena));
    row.decode_error = slice_since(arena, start);
  } else {
    row.decode_error = row.key.error.present ? row.key.error : row.value.error;
  }
  if (row.decode_error.present) ++t.decode_errors;
  ++t.messages;
  t.bytes += static_cast<int64_t>(m.key_size() + m.value_size());
}

void SyncRun::finish_partition(PartitionState& p, kafka::Reader& reader) {
  if (!p.active) return;
  p.active = false;
  p.next = p.boundary;
  p.dirty = true;
  --p.topic->active;
  --active_partitions_;
  reader.stop(p.topic->plan->topic, p.partition);
}

void SyncRun::stop_topic(TopicState& t, const std::string& error, kafka::Reader& reader) {
  if (!t.error.empty()) return;
  t.error = error;
  result_.errors.push_back(error);
  for (auto& p : t.partitions) {
    if (!p.active) continue;
    p.active = false;
    --t.active;
    --active_partitions_;
    reader.stop(t.plan->topic, p.partition);
  }
}

void SyncRun::commit() {
  std::vector<PositionUpdate> positions;
  for (auto& t : topics_)
    for (auto& p : t.partitions)
      if (p.dirty) {
        // A full resync re-reads below the stored position; storing its progress there
        // would make the next append-mode sync write those offsets again.
        positions.push_back({t.plan->topic, t.plan->topic_id, p.partition, std::max(p.next, p.floor)});
        p.dirty = false;
      }
  if (positions.empty() && batch_->row_count() == 0) return;
  writer_->submit(batch_, std::move(positions));
}

std::string SyncRun::focus() const {
  // The partition furthest from its boundary, as "topic[p] next/boundary".
  const PartitionState* worst = nullptr;
  for (const auto& t : topics_)
    for (const auto& p : t.partitions)
      if (p.active && (!worst || p.boundary - p.next > worst->boundary - worst->next)) worst = &p;
  if (!worst) return {};
  return worst->topic->plan->topic + "[" + std::to_string(worst->partition) + "] " +
         with_thousands(static_cast<uint64_t>(worst->next)) + "/" +
         with_thousands(static_cast<uint64_t>(worst->boundary));
}

std::string SyncRun::record_json(const SyncResult& r, int64_t started, int64_t finished) const {
  JsonWriter w;
  w.begin_object().field("run_id", r.run_id).field("sync_id", manifest_.name).field("status", status_name(r.status));
  w.field("started_at_ms", started).field("finished_at_ms", finished).field("duration_ms", finished - started);
  w.field("messages", r.messages).field("bytes", r.bytes).field("batches", r.batches);
  w.field("decode_errors", r.decode_errors);
  w.field("mode", options_.full_resync ? "full_resync" : "sync");
  w.field("registry_requests", schemas_ ? schemas_->registry_requests() : 0);
  w.field("lag_group", "krow-" + manifest_.name);
  if (r.lag_reporting_off.empty()) w.key("lag_reporting_off").null(); else w.field("lag_reporting_off", r.lag_reporting_off);
  w.key("tables").begin_array();
  for (const auto& t : topics_) {
    w.begin_object().field("topic", t.plan->topic).field("table", t.plan->table).field("topic_id", t.plan->topic_id);
    w.field("messages", t.messages).field("bytes", t.bytes).field("decode_errors", t.decode_errors);
    w.field("tombstones", t.tombstones);
    if (t.error.empty()) w.key("error").null(); else w.field("error", t.error);
    w.key("partitions").begin_array();
    for (const auto& p : t.plan->partitions)
      w.begin_object().field("partition", p.partition).field("from", p.start).field("boundary", p.boundary).end_object();
    w.end_array().end_object();
  }
  w.end_array();
  w.key("gaps").begin_array();
  for (const auto& t : plan_.topics)
    for (const auto& p : t.partitions)
      if (p.retention_gap())
        w.begin_object().field("topic", t.topic).field("partition", p.partition).field("from", p.stored)
            .field("to", p.earliest).field("reason", "expired by retention before it was read").end_object();
  w.end_array();
  w.key("errors").begin_array();
  for (const auto& e : r.errors) w.value(e);
  w.end_array().end_object();
  return w.str();
}

}  // namespace

SyncResult run_sync(const Manifest& manifest, const SyncOptions& options) {
  SyncRun run(manifest, options);
  return run.run();
}

}  // namespace krow
