#include "sync/sync_engine.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <optional>

#include "engines/engines.hpp"
#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "kafka/lag_group.hpp"
#include "plan/plan.hpp"
#include "plan/typed_columns.hpp"
#include "registry/decoder_cache.hpp"
#include "rows/row_batch.hpp"
#include "sync/committer.hpp"
#include "sync/partition_reader.hpp"
#include "sync/progress.hpp"
#include "sync/row_builder.hpp"
#include "sync/run_recorder.hpp"
#include "sync/session.hpp"
#include "sync/table_preparation.hpp"
#include "util/error.hpp"
#include "util/fault_injection.hpp"

namespace krow {

const char* status_name(SyncStatus s) {
  switch (s) {
    case SyncStatus::success: return "success";
    case SyncStatus::partial: return "partial";
    case SyncStatus::failed: return "failed";
    case SyncStatus::interrupted: return "interrupted";
    case SyncStatus::gate_failed: return "gate_failed";
  }
  return "unknown";
}

namespace {

int64_t ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t).count();
}

class SyncRun : Session::Listener {
 public:
  SyncRun(const Manifest& manifest, const SyncOptions& options)
      : manifest_(manifest),
        options_(options),
        schemas_(manifest.registry.configured()
                     ? std::make_unique<DecoderCache>(manifest.registry, DecodeOptions{manifest.registry.tagged_unions})
                     : nullptr),
        rows_(DecoderOptions{static_cast<size_t>(manifest.limits.max_value_bytes)}, schemas_.get()),
        recorder_(manifest, options.full_resync) {}

  SyncResult run();

 private:
  // Connects, checks the cluster, plans, and makes the tables ready (sync/table_preparation).
  void prepare(kafka::Client& client);
  // What each selected partition reads in this run, and from where.
  std::vector<Session::Assignment> assignments();
  void read_all(kafka::Client& admin, Progress& progress);
  void on_row(size_t table, const kafka::Message& m, const Row& row) override;
  void on_rows_dropped(size_t table, const std::vector<Row>& rows) override;
  void on_topic_stopped(size_t table, const std::string& error) override;
  void on_topic_replaced(size_t table, const std::string& error) override;
  void on_gap(size_t table, const Gap& gap) override;
  // Whether the run stages its batches and publishes them at the end: asked for
  // (quality.publish: staged), or needed by a table whose rows the run replaces.
  bool staged() const { return staged_; }
  // After the last commit: checks the gates, then publishes the staged rows, or drops them
  // when a gate of severity error failed.
  void check_gates_and_publish();
  // What the gates look at, per table; queries the warehouse only for what they need.
  std::vector<TableFacts> measure();
  bool resyncs(const TopicPlan& t) const;
  // False for a table a partial resync leaves out: this run does not read it.
  bool resyncs_or_syncs(const TopicPlan& t) const { return !options_.full_resync || resyncs(t); }
  // Every `resync --table` names a table of this sync (a typo must not resync nothing).
  void check_only_tables() const;
  void record();

  const Manifest& manifest_;
  SyncOptions options_;
  std::unique_ptr<Warehouse> warehouse_;
  Plan plan_;
  std::vector<TableTally> tables_;  // one per plan topic
  std::vector<size_t> slots_;       // row batch slot of each table
  std::unique_ptr<DecoderCache> schemas_;  // null without a registry
  RowBuilder rows_;
  RunRecorder recorder_;
  std::unique_ptr<RowBatch> batch_ = std::make_unique<RowBatch>();
  std::unique_ptr<kafka::LagGroup> lag_group_;  // outlives the committer that uses it
  std::unique_ptr<Committer> committer_;
  SyncResult result_;
  bool gate_blocked_ = false;
  bool staged_ = false;
  std::vector<std::string> staged_tables_;  // staged: the tables with a staging table (those not stopped before reading)
};

SyncResult SyncRun::run() {
  const auto t0 = std::chrono::steady_clock::now();
  result_.run_id = recorder_.run_id();
  // The warehouse opens while the Kafka client connects: each takes tens of milliseconds,
  // which is most of a sync with little to copy. A warehouse that cannot open is reported
  // first, as before any run can be recorded.
  auto opening = std::async(std::launch::async,
                            [this] { return open_warehouse(manifest_.warehouse, manifest_.name, OpenMode::write); });
  kafka::Client client(manifest_.source, kafka::ClientOptions{.verbose = options_.verbose});
  std::exception_ptr connect_error;
  try {
    client.check_connection(std::chrono::seconds(manifest_.source.connect_timeout_s));
  } catch (...) {
    connect_error = std::current_exception();
  }
  try {
    warehouse_ = opening.get();
    if (connect_error) std::rethrow_exception(connect_error);
    prepare(client);
    result_.phases.connect_plan_ms = ms_since(t0);
  } catch (const std::exception& e) {
    // Recorded like any other outcome (without a warehouse, in the artifact files only).
    result_.phases.connect_plan_ms = ms_since(t0);
    result_.status = SyncStatus::failed;
    const auto* error = dynamic_cast<const Error*>(&e);
    result_.errors.push_back(error ? e.what() : std::string("unexpected error: ") + e.what());
    result_.retriable = error && error->error_class() == ErrorClass::transient;
    result_.invalid_config = error && error->error_class() == ErrorClass::config;
    result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    record();
    return result_;
  }

  Progress progress(options_.progress, plan_.to_read(), tables_.size());
  try {
    read_all(client, progress);
  } catch (const Error& e) {
    // Whatever was committed stays committed; the next sync resumes from there.
    result_.status = SyncStatus::failed;
    result_.errors.push_back(e.what());
    result_.retriable = e.error_class() == ErrorClass::transient;
  } catch (const std::exception& e) {
    result_.status = SyncStatus::failed;
    result_.errors.push_back(std::string("unexpected error: ") + e.what());
  }
  progress.finish();
  if (lag_group_) {
    const auto lag_start = std::chrono::steady_clock::now();
    lag_group_->finish();  // the last positions, and the answers still due
    result_.phases.lag_report_ms = ms_since(lag_start);
    result_.lag_reporting_off = lag_group_->reason();
  }
  lag_group_.reset();

  for (const auto& t : tables_) {
    result_.messages += t.messages;
    result_.decode_errors += t.decode_errors;
    result_.bytes += t.bytes;
  }
  if (!staged()) result_.published = result_.rows_published > 0;
  if (result_.status != SyncStatus::failed) {
    const bool any_stopped = std::any_of(tables_.begin(), tables_.end(), [](const TableTally& t) { return !t.error.empty(); });
    if (options_.stop && options_.stop->load()) result_.status = SyncStatus::interrupted;
    else if (gate_blocked_) result_.status = SyncStatus::gate_failed;
    else if (any_stopped) result_.status = SyncStatus::partial;
  }
  result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  record();
  return result_;
}

void SyncRun::record() {
  result_.artifact = recorder_.record(warehouse_.get(), result_, tables_.empty() ? nullptr : &plan_,
                                      tables_, schemas_ ? schemas_->registry_requests() : 0);
}

void SyncRun::prepare(kafka::Client& client) {
  kafka::Cluster cluster(client, std::chrono::seconds(30), std::chrono::seconds(manifest_.source.retry_timeout_s));
  if (!manifest_.bound_cluster_id.empty()) {
    const auto id = cluster.cluster_id();
    if (id != manifest_.bound_cluster_id)
      throw Error(ErrorClass::fatal_run, "saved source '" + manifest_.saved_source + "' is bound to cluster " +
                                             manifest_.bound_cluster_id + ", but its bootstrap servers now answer as "
                                             "cluster " + id + "; refusing to mix clusters in one sync");
  }
  // A full resync re-reads every partition to its last stable offset: a bound would stop
  // it short and leave positions behind where they were.
  plan_ = make_plan(cluster, *warehouse_, manifest_, /*apply_bounds=*/!options_.full_resync);
  check_only_tables();
  const auto prepared =
      prepare_tables(plan_, *warehouse_,
                     {.manifest = &manifest_,
                      .full_resync = options_.full_resync,
                      .reads = [this](const TopicPlan& t) { return resyncs_or_syncs(t); }});
  tables_.reserve(plan_.topics.size());
  for (size_t i = 0; i < plan_.topics.size(); ++i) {
    const TopicPlan& tp = plan_.topics[i];
    TableTally& t = tables_.emplace_back();
    t.plan = &tp;
    t.created = prepared.tables[i].created;
    t.error = prepared.tables[i].error;
    if (!t.error.empty()) result_.errors.push_back(t.error);
    std::shared_ptr<const rows::TypedLayout> typed;
    if (t.created && !tp.settings.typed_columns.empty())
      typed = std::make_shared<const rows::TypedLayout>(
          rows::TypedLayout{tp.settings.typed_columns, tp.typed_sql_types});
    slots_.push_back(
        t.created ? batch_->table_slot(tp.table, tp.topic, tp.topic_id, std::move(typed)) : 0);
  }
  staged_ = result_.staged = prepared.staged;
  staged_tables_ = prepared.staging;
}

void SyncRun::check_only_tables() const {
  for (const auto& name : options_.only_tables) {
    std::string tables, hint;
    bool found = false;
    for (const auto& t : plan_.topics) {
      found |= t.table == name;
      if (t.topic == name) hint = " ('" + name + "' is a topic: its table is '" + t.table + "')";
      tables += (tables.empty() ? "" : ", ") + t.table;
    }
    if (!found)
      throw Error(ErrorClass::config, "resync --table '" + name + "': this sync has no such table" + hint +
                                          (tables.empty() ? "; it selects no topic" : "; its tables are: " + tables));
  }
}

bool SyncRun::resyncs(const TopicPlan& t) const {
  const auto& only = options_.only_tables;
  return options_.full_resync && (only.empty() || std::find(only.begin(), only.end(), t.table) != only.end());
}

std::vector<Session::Assignment> SyncRun::assignments() {
  std::vector<Session::Assignment> out;
  for (size_t i = 0; i < tables_.size(); ++i) {
    if (!tables_[i].error.empty()) continue;
    const auto& t = *tables_[i].plan;
    for (const auto& p : t.partitions) {
      ReadStart r;
      r.topic = i;
      r.boundary = p.boundary;
      r.start = Position{t.topic, t.topic_id, p.partition, p.start};
      if (options_.full_resync) {
        // Re-read from the log start; the position ends at the boundary as usual. Tables
        // left out of a partial resync are not read at all in this run.
        r.start.next = p.earliest;
        r.read = resyncs(t) && p.boundary > p.earliest;
        r.moved = p.truncated();
      } else {
        r.read = p.to_read() > 0;
        // A stored position behind the log start moves up to it now, one beyond the log's
        // end down to it (either gap is recorded).
        r.moved = p.stored != p.start;
      }
      // Positions never move back, except down to the end of a log truncated below them.
      out.push_back(
          {std::move(r), p.stored, p.truncated() ? p.boundary : p.stored.value_or(Offset(0))});
    }
  }
  return out;
}

void SyncRun::read_all(kafka::Client& admin, Progress& progress) {
  // The committer's spare batch has the same table slots as the one being filled.
  auto spare = std::make_unique<RowBatch>();
  for (const auto& t : batch_->tables()) spare->table_slot(t.table, t.topic, t.topic_id, t.typed);
  // Positions also go to the lag group once committed, so Kafka's tools can show lag.
  lag_group_ = std::make_unique<kafka::LagGroup>(admin, "krow-" + manifest_.name,
                                                 std::chrono::seconds(manifest_.source.retry_timeout_s));
  committer_ = std::make_unique<Committer>(
      *warehouse_, *warehouse_, manifest_.name,
      options_.full_resync ? Warehouse::WriteMode::merge : Warehouse::WriteMode::append, staged(),
      std::chrono::seconds(manifest_.warehouse.retry_timeout_s), std::move(spare),
      [this](const std::vector<Position>& stored) { lag_group_->commit(stored); });
  struct Drain {  // whatever happens, committed counts are read after the committer stops
    SyncRun& run;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    std::optional<std::chrono::steady_clock::time_point> read_end;  // unset when reading ended by an error
    ~Drain() {
      run.committer_->stop();  // a batch being written when an error struck still lands
      auto& phases = run.result_.phases;
      phases.read_write_ms = read_end ? std::chrono::duration_cast<std::chrono::milliseconds>(*read_end - start).count()
                                      : ms_since(start);
      if (read_end) phases.final_drain_ms = ms_since(*read_end);
      // Rows reach the tables as batches commit or, staged, all at once when they publish.
      run.result_.rows_published =
          run.staged() && !run.result_.published ? 0 : run.committer_->committed_rows();
      run.result_.batches = run.committer_->committed_batches();
      run.result_.warehouse_retries = run.committer_->retries();
      run.committer_.reset();
    }
  } drain{*this};

  // A bounded run: every partition up to the boundary its plan captured.
  Session session(manifest_.source, manifest_.batch, rows_, *committer_, batch_, slots_,
                  Session::End::at_boundaries, options_.verbose,
                  std::chrono::seconds(manifest_.source.retry_timeout_s), *this);
  session.assign(assignments());
  while (!(options_.stop && options_.stop->load()) && session.poll()) {
    size_t topics_done = 0;
    for (size_t i = 0; i < tables_.size(); ++i) topics_done += session.active_in(i) == 0;
    progress.update(committer_->committed_rows() + static_cast<int64_t>(session.rows_in_hand()),
                    topics_done, session.furthest_behind());
  }
  drain.read_end = std::chrono::steady_clock::now();
  session.drain();
  const auto gates_start = std::chrono::steady_clock::now();
  if (!(options_.stop && options_.stop->load())) check_gates_and_publish();
  else if (staged()) committer_->discard(staged_tables_);  // interrupted: the next run starts over
  result_.phases.gates_publish_ms = ms_since(gates_start);
}

std::vector<TableFacts> SyncRun::measure() {
  const auto needs = gate_needs(manifest_.quality);
  std::vector<TableFacts> out;
  for (const auto& t : tables_) {
    const TopicPlan& tp = *t.plan;
    TableFacts f{.table = tp.table, .topic = tp.topic, .messages_read = t.messages, .decode_errors = t.decode_errors};
    std::vector<OffsetRange> ranges;
    for (const auto& p : tp.partitions) {
      const Offset from = options_.full_resync ? p.earliest : p.start;
      const Offset reached = committer_->position(tp.topic_id, p.partition).value_or(p.start);
      f.lag_after += std::max<int64_t>(0, distance(reached, p.last_stable));
      if (reached > from) ranges.push_back({tp.topic_id, p.partition, from, reached});
    }
    // A table stopped before reading may not even exist.
    if (t.created) {
      const auto& sync = manifest_.name;
      if (needs.rows_written)
        f.rows_written = staged() ? warehouse_->count_rows(sync, tp.table, true, {}).rows
                         : ranges.empty() ? 0
                                          : warehouse_->count_rows(sync, tp.table, false, ranges).rows;
      if (needs.rows_in_table) {
        auto in_table = warehouse_->count_rows(sync, tp.table, false, {});
        if (staged()) {
          const auto more = warehouse_->count_rows(sync, tp.table, true, {});
          in_table.rows += more.rows;
          if (more.newest_ms) in_table.newest_ms = std::max(in_table.newest_ms.value_or(*more.newest_ms), *more.newest_ms);
        }
        f.rows_in_table = in_table.rows;
        f.newest_ms = in_table.newest_ms;
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

void SyncRun::check_gates_and_publish() {
  if (!manifest_.quality.gates.empty()) {
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch()).count();
    result_.gates = evaluate_gates(manifest_.quality, measure(), now);
  }
  gate_blocked_ = gates_block(result_.gates);
  for (const auto& g : result_.gates) {
    if (g.passed || g.severity != GateSeverity::error) continue;
    result_.errors.push_back(
        "quality gate '" + g.id + "' (" + gate_type_name(g.type) + ") failed: " + g.finding +
        (staged() ? ". Nothing of this run was published: the tables and positions are as they were before it"
                  : ". This run's batches were committed as they were written (quality.publish: per_batch) and stay; "
                    "use quality.publish: staged for gates that block before the tables change"));
  }
  if (!staged()) return;
  // A table whose rows the run replaces must have been read whole: one that stopped would be
  // replaced by part of its topic.
  for (const auto& t : tables_)
    if (!t.error.empty() && t.plan->settings.replaces(options_.full_resync)) {
      result_.errors.push_back("table " + t.plan->table + " (" + strategy_name(t.plan->settings.strategy) +
                               ") stopped before its topic was read to the end, so nothing of this run was "
                               "published: its rows would have replaced the table with part of the topic");
      committer_->discard(staged_tables_);
      return;
    }
  if (gate_blocked_) {
    committer_->discard(staged_tables_);
    return;
  }
  // Between staging and publishing: a test can kill -9 the process exactly here.
  fault::stop_here_if_asked(fault::StopPoint::before_publish);
  committer_->publish(staged_tables_);
  result_.published = true;
}

void SyncRun::on_row(size_t table, const kafka::Message& m, const Row& row) {
  TableTally& t = tables_[table];
  ++t.messages;
  t.bytes += static_cast<int64_t>(m.key_size() + m.value_size());
  t.decode_errors += row.decode_error.present;
  t.tombstones += row.is_tombstone;
}

void SyncRun::on_rows_dropped(size_t table, const std::vector<Row>& rows) {
  TableTally& t = tables_[table];
  for (const Row& row : rows) {
    --t.messages;
    t.decode_errors -= row.decode_error.present;
    t.tombstones -= row.is_tombstone;
  }
}

void SyncRun::on_topic_stopped(size_t table, const std::string& error) {
  TableTally& t = tables_[table];
  if (!t.error.empty()) return;
  t.error = error;
  result_.errors.push_back(error);
}

void SyncRun::on_topic_replaced(size_t table, const std::string& error) {
  // This reason supersedes an earlier one (the fetch's "unknown topic ID").
  TableTally& t = tables_[table];
  if (!t.error.empty()) std::erase(result_.errors, t.error);
  t.error.clear();
  on_topic_stopped(table, error);
}

void SyncRun::on_gap(size_t table, const Gap& gap) {
  tables_[table].gaps.push_back(gap);
}

}  // namespace

SyncResult run_sync(const Manifest& manifest, const SyncOptions& options) {
  SyncRun run(manifest, options);
  return run.run();
}

}  // namespace krow
