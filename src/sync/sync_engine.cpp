#include "sync/sync_engine.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "engines/engines.hpp"
#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "kafka/group_member.hpp"
#include "kafka/lag_group.hpp"
#include "plan/plan.hpp"
#include "plan/typed_columns.hpp"
#include "registry/decoder_cache.hpp"
#include "rows/row_batch.hpp"
#include "sync/committer.hpp"
#include "sync/continuous.hpp"
#include "sync/partition_reader.hpp"
#include "sync/progress.hpp"
#include "sync/row_builder.hpp"
#include "sync/run_recorder.hpp"
#include "sync/session.hpp"
#include "sync/table_preparation.hpp"
#include "util/error.hpp"
#include "util/fault_injection.hpp"
#include "util/process.hpp"
#include "util/text.hpp"

namespace krow {

const char* status_name(SyncStatus s) {
  switch (s) {
    case SyncStatus::success: return "success";
    case SyncStatus::partial: return "partial";
    case SyncStatus::failed: return "failed";
    case SyncStatus::interrupted: return "interrupted";
    case SyncStatus::gate_failed: return "gate_failed";
    case SyncStatus::running:
      return "running";
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
  // A sync without --worker-id, of an engine that takes workers: refused (transient) while
  // the workers' group has members, as their partitions are theirs.
  void refuse_beside_workers(kafka::Client& client);
  // What each selected partition reads in this run, and from where; takes them all
  // (StateStore::take), so that every commit is fenced on this run's epochs.
  std::vector<Session::Assignment> assignments();
  // A worker: what `partitions` read, from their stored positions, or the plan's start when
  // none is stored. Those the group has just given (`granted`), and those this worker does
  // not hold yet, are taken (StateStore::take, which bumps their epochs); the others go on
  // with the epoch this worker took them at, so that a worker that was paused, and is not
  // told yet that its partitions moved, never takes them back from their new owner: its
  // commits are refused instead. Partitions the plan lacks (a topic or partitions added since
  // it was made) are left out and noted in unplanned_.
  std::vector<Session::Assignment> worker_assignments(const std::vector<TopicPartition>& partitions,
                                                      bool granted);
  // A worker: its row in krow's state (contract::kWorkers). Only while the committer is idle.
  void record_worker();
  // A worker: partitions revoked or lost are neither held nor fenced any more.
  void forget(const std::vector<TopicPartition>& partitions);
  // A worker: the partitions ("topic:3,...") fenced off more than twice the group's session
  // timeout ago that the group still gives it. Had another member been given them, the group
  // would have taken them from this one by now: whoever took them is a process the group no
  // longer counts, and they are taken back (the fence keeps the two apart either way).
  std::string still_given_after_fence();
  // A worker: the planned partitions that no member of the group has had for two checks in a
  // row at least 10 s apart, when this worker has the lowest ID of the group's members (one
  // worker acts); empty otherwise. A static member killed between giving partitions back and
  // rejoining, and restarted under its ID within the session timeout, gets its own reduced
  // assignment back without a rebalance: what it gave back is then assigned to nobody until
  // the group rebalances for another reason.
  std::vector<TopicPartition> orphaned_partitions(kafka::Client& admin, const Topology& planned);
  // A worker, each turn of its loop: looks for partitions assigned to nobody (every 10 s) and,
  // when orphaned_partitions() names some, joins the group for a moment with a second member
  // so that the group rebalances and assigns them.
  void nudge_group(kafka::Client& admin, const Topology& planned);
  bool worker() const { return !options_.worker_id.empty(); }
  void read_all(kafka::Client& admin, Progress& progress);
  // The committer of a stretch of reading and the lag group its commits also go to (so that
  // Kafka's tools show lag); its spare batch has the same table slots as the one being filled.
  void start_committer(kafka::Client& admin, Warehouse::WriteMode mode, bool staged);
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

  // Continuous (options.follow): reads on, stretch after stretch, until stopped or a failure
  // that will not pass by itself.
  void follow(kafka::Client& client);
  // One stretch of reading: from the plan's positions until stopped (returns "") or until the
  // selected topics grew (returns why). Records every record_interval. Throws as a session
  // and its committer do.
  std::string read_on(kafka::Client& admin);
  // Plans and prepares the tables again (new topics and partitions join, positions are read
  // from the warehouse).
  void replan(kafka::Client& client);
  // Records the stretch since the previous record (the committer drained, or gone) and starts
  // the next one.
  void record_stretch(const std::string& reason, bool final);
  // The committer's counts since the last call into the stretch.
  void collect();
  // The readable topics of the plan, as the cluster described them then.
  Topology planned_topology() const;
  // Waits `d` unless stopped first; false when stopped.
  bool wait_unless_stopped(std::chrono::milliseconds d) const;
  bool stopping() const { return options_.stop && options_.stop->load(); }

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
  // Continuous: the stretch being counted, the committer's counts already collected, and the
  // whole process's counts (the result's at the end).
  struct Counts {
    int64_t rows = 0, batches = 0, retries = 0;
  };
  Counts stretch_, collected_;
  SyncResult totals_;
  FollowStretch follow_;
  // A worker: its membership in the workers' group (for the process's life, across stretches),
  // the epoch it holds each partition it took at, the partitions it lost to another worker by
  // the fence (since when) and reads no more until the group gives them again, and those the
  // group gave that the plan lacks.
  std::unique_ptr<kafka::GroupMember> member_;
  std::map<TopicPartition, Epoch> held_;
  std::map<TopicPartition, std::chrono::steady_clock::time_point> fenced_;
  // A worker: since when partitions have been assigned to nobody, and a member of the group
  // joined for a moment (without an instance ID) so that the group rebalances and assigns
  // them; it leaves once it has an assignment, or at nudge_until_.
  std::optional<std::chrono::steady_clock::time_point> orphans_since_;
  std::unique_ptr<kafka::GroupMember> nudge_;
  std::chrono::steady_clock::time_point nudge_until_, next_orphan_check_;
  static constexpr std::chrono::seconds kOrphanPatience{10};
  // A worker fenced by the group joins again, unless it did less than this long ago.
  static constexpr std::chrono::seconds kFencedRejoinPause{60};
  // How often a continuous sync tells its observer each partition's lag.
  static constexpr std::chrono::seconds kLagInterval{1};
  std::set<TopicPartition> unplanned_;
  bool replan_for_unplanned_ = false;
  std::vector<std::string> subscribed_;
};

SyncResult SyncRun::run() {
  const auto t0 = std::chrono::steady_clock::now();
  result_.run_id = recorder_.run_id();
  // The warehouse opens while the Kafka client connects: each takes tens of milliseconds,
  // which is most of a sync with little to copy. A warehouse that cannot open is reported
  // first, as before any run can be recorded.
  auto opening = std::async(std::launch::async, [this] {
    return open_warehouse(manifest_.warehouse, manifest_.name,
                          worker() ? OpenMode::worker : OpenMode::write, options_.worker_id);
  });
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

  if (options_.follow) {
    follow(client);
    result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
  if (options_.observer) options_.observer->on_run_end(status_name(result_.status));
  result_.artifact = recorder_.record(warehouse_.get(), result_, tables_.empty() ? nullptr : &plan_,
                                      tables_, schemas_ ? schemas_->registry_requests() : 0);
}

void SyncRun::refuse_beside_workers(kafka::Client& client) {
  if (!warehouse_capabilities(manifest_.warehouse.type).concurrent_writers) return;
  const auto group = "krow-" + manifest_.name + ".workers";
  std::vector<kafka::GroupMemberView> members;
  try {
    members = kafka::describe_group(client, group, std::chrono::seconds(10));
  } catch (const Error& e) {
    // Not allowed to describe it, or no answer: the warehouse's own lock is what is left.
    if (options_.verbose)
      std::fprintf(stderr, "krow: note: could not look for workers of this sync (%s)\n", e.what());
    return;
  }
  if (members.empty()) return;
  std::vector<std::string> names;
  for (const auto& m : members)
    names.push_back(m.instance_id.empty() ? m.member_id : m.instance_id);
  std::sort(names.begin(), names.end());
  std::string ids;
  for (const auto& name : names) ids += (ids.empty() ? "" : ", ") + name;
  throw Error(
      ErrorClass::transient,
      "workers of sync '" + manifest_.name + "' are running (consumer group " + group + ": " + ids +
          "); a sync without --worker-id runs once they have stopped (exit code 75: try again "
          "later). Run every process of a sync with --worker-id, or none");
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
  if (!worker()) refuse_beside_workers(client);
  // A worker holds the sync's lock while it plans and prepares the tables, and only then: the
  // others wait for it; their commits are kept apart by the epoch fence, not by the lock.
  struct Unlock {
    Warehouse* w;
    ~Unlock() {
      if (w) w->unlock_sync();
    }
  } unlock{worker() ? warehouse_.get() : nullptr};
  if (worker()) warehouse_->lock_sync(std::chrono::seconds(manifest_.warehouse.retry_timeout_s));
  // A full resync re-reads every partition to its last stable offset: a bound would stop
  // it short and leave positions behind where they were.
  plan_ = make_plan(cluster, *warehouse_, manifest_, /*apply_bounds=*/!options_.full_resync);
  check_only_tables();
  const auto prepared =
      prepare_tables(plan_, *warehouse_,
                     {.manifest = &manifest_,
                      .full_resync = options_.full_resync,
                      .reads = [this](const TopicPlan& t) { return resyncs_or_syncs(t); },
                      .apply_design = options_.apply_design});
  // Said as the tables are prepared, before reading (a continuous sync may run for days), and
  // once: a continuous sync that prepares them again says nothing new.
  for (const auto& note : prepared.design_notes)
    if (std::find(result_.design_unapplied.begin(), result_.design_unapplied.end(), note) ==
        result_.design_unapplied.end()) {
      std::fprintf(stderr, "krow: note: %s\n", note.c_str());
      result_.design_unapplied.push_back(note);
    }
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
          rows::TypedLayout{tp.settings.typed_columns, tp.typed_sql_types,
                            {tp.settings.contract.coerce, tp.settings.contract.empty_as_null}});
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
        // A continuous sync reads every partition: an empty one is owed what arrives.
        r.read = options_.follow || p.to_read() > 0;
        // A stored position behind the log start moves up to it now, one beyond the log's
        // end down to it (either gap is recorded).
        r.moved = p.stored != p.start;
      }
      // Positions never move back, except down to the end of a log truncated below them.
      out.push_back({std::move(r), p.stored,
                     p.truncated() ? p.boundary : p.stored.value_or(Offset(0)), Epoch(0)});
    }
  }
  // Every partition at once, in one transaction: from now on, a process of this sync that
  // took them before (one paused while this one took over its lock) writes nothing more.
  std::vector<PartitionKey> keys;
  for (const auto& a : out)
    keys.push_back({a.read.start.topic, a.read.start.topic_id, a.read.start.partition});
  const auto claims = warehouse_->take(manifest_.name, keys);
  for (size_t i = 0; i < out.size() && i < claims.size(); ++i) {
    auto& a = out[i];
    // The plan read the positions under this sync's lock: a position that moved since was
    // moved by something that does not take the lock.
    if (claims[i].position != a.stored)
      throw Error(
          ErrorClass::fatal_run,
          "the position of " + a.read.start.topic + " partition " +
              std::to_string(a.read.start.partition.value()) + " in " + warehouse_->describe() +
              " moved between planning and taking it (another krow with the same sync ID and "
              "warehouse schema, or a manual change); nothing was written. Make sure one sync "
              "at a time writes them, then run the sync again");
    a.epoch = claims[i].epoch;
  }
  return out;
}

std::vector<Session::Assignment> SyncRun::worker_assignments(
    const std::vector<TopicPartition>& partitions, bool granted) {
  std::vector<Session::Assignment> out;
  std::vector<const PartitionPlan*> plans;
  for (const auto& tp : partitions) {
    const PartitionPlan* found = nullptr;
    size_t table = 0;
    for (size_t i = 0; i < tables_.size() && !found; ++i) {
      const auto& t = *tables_[i].plan;
      if (t.topic != tp.topic) continue;
      if (!tables_[i].error.empty()) break;  // a stopped table: nobody reads it
      for (const auto& p : t.partitions)
        if (p.partition == tp.partition) {
          found = &p;
          table = i;
        }
      if (!found && unplanned_.insert(tp).second) replan_for_unplanned_ = true;
    }
    if (!found) {
      if (!std::any_of(tables_.begin(), tables_.end(),
                       [&](const TableTally& t) { return t.plan->topic == tp.topic; }) &&
          unplanned_.insert(tp).second)
        replan_for_unplanned_ = true;
      continue;
    }
    const auto& t = *tables_[table].plan;
    ReadStart r;
    r.topic = table;
    r.boundary = found->boundary;
    r.start = Position{t.topic, t.topic_id, found->partition, found->start};
    r.read = true;
    out.push_back({std::move(r), std::nullopt, Offset(0), Epoch(0)});
    plans.push_back(found);
  }
  if (out.empty()) return out;
  auto held = [&](const Session::Assignment& a) {
    return held_.find({a.read.start.topic, a.read.start.partition});
  };
  std::vector<PartitionKey> keys;
  std::vector<size_t> to_take;
  bool resumed = false;
  for (size_t i = 0; i < out.size(); ++i) {
    const auto& a = out[i];
    if (!granted && held(a) != held_.end()) {
      resumed = true;
      continue;
    }
    keys.push_back({a.read.start.topic, a.read.start.topic_id, a.read.start.partition});
    to_take.push_back(i);
  }
  std::vector<PartitionClaim> claims;
  if (!keys.empty()) claims = warehouse_->take(manifest_.name, keys);
  if (claims.size() != keys.size())
    throw std::logic_error("the warehouse answered a take of " + std::to_string(keys.size()) +
                           " partitions with " + std::to_string(claims.size()) + " claims");
  std::vector<Position> stored;
  if (resumed) stored = warehouse_->positions(manifest_.name);
  auto stored_of = [&](const Session::Assignment& a) -> std::optional<Offset> {
    for (const auto& p : stored)
      if (p.topic_id == a.read.start.topic_id && p.partition == a.read.start.partition)
        return p.next;
    return std::nullopt;
  };
  size_t next_claim = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    auto& a = out[i];
    std::optional<Offset> position;
    if (next_claim < to_take.size() && to_take[next_claim] == i) {
      position = claims[next_claim].position;
      a.epoch = claims[next_claim].epoch;
      held_[{a.read.start.topic, a.read.start.partition}] = a.epoch;
      ++next_claim;
    } else {
      position = stored_of(a);
      a.epoch = held(a)->second;
    }
    // Where the last owner left it; a partition never committed starts where the plan says
    // (bounds.start_from, or the log start) and stores that position with its first batch.
    a.stored = position;
    a.read.start.next = position.value_or(plans[i]->start);
    a.read.moved = !position.has_value();
    a.floor = position.value_or(Offset(0));
  }
  return out;
}

void SyncRun::forget(const std::vector<TopicPartition>& partitions) {
  for (const auto& tp : partitions) {
    held_.erase(tp);
    fenced_.erase(tp);
  }
}

std::vector<TopicPartition> SyncRun::orphaned_partitions(kafka::Client& admin,
                                                         const Topology& planned) {
  std::vector<kafka::GroupMemberView> members;
  try {
    members = kafka::describe_group(admin, member_->group_id(), std::chrono::seconds(5));
  } catch (const Error&) {
    return {};  // asked again at the next check
  }
  std::set<TopicPartition> owned;
  std::string lowest;
  for (const auto& m : members) {
    owned.insert(m.assigned.begin(), m.assigned.end());
    if (!m.instance_id.empty() && (lowest.empty() || m.instance_id < lowest))
      lowest = m.instance_id;
  }
  std::vector<TopicPartition> orphans;
  if (!members.empty())
    for (const auto& [topic, shape] : planned)
      for (size_t p = 0; p < shape.partitions; ++p)
        if (!owned.count({topic, Partition(static_cast<int32_t>(p))}))
          orphans.push_back({topic, Partition(static_cast<int32_t>(p))});
  const auto now = std::chrono::steady_clock::now();
  if (orphans.empty()) {
    orphans_since_.reset();
    return {};
  }
  if (!orphans_since_) orphans_since_ = now;
  if (now - *orphans_since_ < kOrphanPatience || lowest != options_.worker_id) return {};
  orphans_since_.reset();
  return orphans;
}

void SyncRun::nudge_group(kafka::Client& admin, const Topology& planned) {
  // A member that takes nothing: it never reads, and gives back whatever it is assigned.
  struct Bystander : kafka::GroupMember::Handler {
    std::map<TopicPartition, Offset> on_assigned(const std::vector<TopicPartition>&) override {
      return {};
    }
    void on_revoked(const std::vector<TopicPartition>&) override {}
    void on_lost(const std::vector<TopicPartition>&) override {}
  } bystander;
  const auto now = std::chrono::steady_clock::now();
  if (nudge_) {
    nudge_->poll(bystander, 0);
    // Leaving (a member without an instance ID leaves the group on close) rebalances again.
    if (!nudge_->assignment().empty() || now >= nudge_until_) {
      nudge_->close(bystander);
      nudge_.reset();
    }
    return;
  }
  if (now < next_orphan_check_) return;
  next_orphan_check_ = now + kOrphanPatience;
  const auto orphans = orphaned_partitions(admin, planned);
  if (orphans.empty()) return;
  std::string list;
  for (const auto& tp : orphans)
    list += (list.empty() ? "" : ",") + tp.topic + ":" + std::to_string(tp.partition.value());
  std::fprintf(
      stderr,
      "krow: note: worker '%s': %s assigned to no worker for %lld s or more (a worker stopped "
      "while the group moved them); making the group rebalance\n",
      options_.worker_id.c_str(), list.c_str(),
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::seconds>(kOrphanPatience).count()));
  try {
    nudge_ = std::make_unique<kafka::GroupMember>(manifest_.source, member_->group_id(), "",
                                                  options_.verbose);
    nudge_->subscribe(subscribed_);
    nudge_until_ = now + 3 * kOrphanPatience;
  } catch (const Error& e) {
    nudge_.reset();
    std::fprintf(stderr, "krow: note: the group could not be made to rebalance: %s\n", e.what());
  }
}

std::string SyncRun::still_given_after_fence() {
  const auto now = std::chrono::steady_clock::now();
  std::string kept;
  for (auto it = fenced_.begin(); it != fenced_.end();) {
    if (now - it->second < 2 * kafka::kWorkerSessionTimeout ||
        !member_->assignment().count(it->first)) {
      ++it;
      continue;
    }
    kept += (kept.empty() ? "" : ",") + it->first.topic + ":" +
            std::to_string(it->first.partition.value());
    it = fenced_.erase(it);
  }
  return kept;
}

void SyncRun::record_worker() {
  if (!member_) return;
  std::map<std::string, std::string> by_topic;
  for (const auto& tp : member_->assignment()) {
    if (fenced_.count(tp)) continue;
    auto& list = by_topic[tp.topic];
    list += (list.empty() ? "" : ",") + std::to_string(tp.partition.value());
  }
  std::string partitions;
  for (const auto& [topic, list] : by_topic)
    partitions += (partitions.empty() ? "" : " ") + topic + ":" + list;
  try {
    warehouse_->record_worker({.sync_id = manifest_.name,
                               .worker_id = options_.worker_id,
                               .host = this_host(),
                               .pid = static_cast<int64_t>(getpid()),
                               .partitions = partitions});
  } catch (const std::exception& e) {
    // Only status reads it: the next record tries again.
    if (options_.verbose)
      std::fprintf(stderr, "krow: note: recording this worker failed: %s\n", e.what());
  }
}

void SyncRun::read_all(kafka::Client& admin, Progress& progress) {
  // Taken before the committer starts: from then on, only its thread uses the warehouse.
  auto assigned = assignments();
  start_committer(admin, options_.full_resync ? Warehouse::WriteMode::merge : Warehouse::WriteMode::append,
                  staged());
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
  session.assign(std::move(assigned));
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

void SyncRun::follow(kafka::Client& client) {
  follow_.process_run_id = result_.run_id;
  auto join_group = [&] {
    member_ = std::make_unique<kafka::GroupMember>(manifest_.source,
                                                   "krow-" + manifest_.name + ".workers",
                                                   options_.worker_id, options_.verbose);
    subscribed_.clear();
  };
  if (worker()) join_group();
  std::optional<std::chrono::steady_clock::time_point> fenced_rejoin;  // the last one
  for (const auto& t : plan_.topics)
    for (const auto& p : t.partitions) follow_.from[{t.topic_id, p.partition}] = p.start;
  int failures = 0;  // in a row: the backoff grows with them
  bool failed = false;
  auto fail = [&](const std::string& error) {
    result_.status = SyncStatus::failed;
    result_.errors.push_back(error);
    failed = true;
  };
  while (!failed && !stopping()) {
    std::string why;
    try {
      why = read_on(client);
      failures = 0;
    } catch (const Error& e) {
      if (worker() && e.error_class() == ErrorClass::conflict && e.source().partition &&
          !e.source().topic.empty()) {
        // Another worker took the partition (this one was paused, or the group moved it
        // before this one heard): drop it, and go on with the others from their stored
        // positions. The group will revoke it; if it gives it back, it is taken anew.
        const TopicPartition tp{e.source().topic, *e.source().partition};
        held_.erase(tp);
        if (options_.observer) options_.observer->on_fence_conflict();
        if (fenced_.emplace(tp, std::chrono::steady_clock::now()).second)
          std::fprintf(stderr, "krow: note: worker '%s': %s\n", options_.worker_id.c_str(),
                       e.what());
        why = "after losing a partition to another worker";
        if (stopping()) break;
        record_stretch("restart " + why, false);
        continue;  // the plan stands: nothing to prepare again
      }
      if (member_ && e.source().system == "kafka" && e.source().code == "FENCED_INSTANCE_ID" &&
          (!fenced_rejoin ||
           std::chrono::steady_clock::now() - *fenced_rejoin > kFencedRejoinPause)) {
        // The group fenced this worker's membership. Around a broker restart librdkafka may
        // join again under a new member ID while a request under the old one is on its way:
        // this worker fences itself. Joining once more is safe (the epochs fence whatever it
        // read); a second fence soon after means another live worker uses the same ID, and
        // then this one stops.
        fenced_rejoin = std::chrono::steady_clock::now();
        std::fprintf(stderr, "krow: note: worker '%s': %s; joining the group again\n",
                     options_.worker_id.c_str(), e.what());
        join_group();
        why = "after the group fenced this worker's membership";
        if (stopping()) break;
        record_stretch("restart " + why, false);
        continue;  // the plan stands: partitions come back through the group
      }
      if (e.error_class() != ErrorClass::transient) {
        fail(e.what());
        break;
      }
      // An outage outlasting the retries of the moment: whatever was committed stays, and
      // reading starts again from there once the backoff has passed.
      result_.errors.push_back(e.what());
      why = "after a failure that may pass by itself";
      ++failures;
    } catch (const std::exception& e) {
      fail(std::string("unexpected error: ") + e.what());
      break;
    }
    if (stopping()) break;
    record_stretch("restart " + why, false);
    for (;;) {
      if (failures > 0 && !wait_unless_stopped(retry_backoff(failures))) break;
      try {
        replan(client);
        break;
      } catch (const Error& e) {
        if (e.error_class() != ErrorClass::transient) {
          fail(e.what());
          break;
        }
        result_.errors.push_back(e.what());
        ++failures;
      } catch (const std::exception& e) {
        fail(std::string("unexpected error: ") + e.what());
        break;
      }
    }
  }
  if (!failed) {
    const bool any_stopped = std::any_of(tables_.begin(), tables_.end(),
                                         [](const TableTally& t) { return !t.error.empty(); });
    result_.status = any_stopped ? SyncStatus::partial : SyncStatus::success;
  }
  result_.retriable =
      false;  // what could pass was retried; what ended the run will not pass by itself
  record_stretch("exit", true);
  // The result counts the whole process; its errors are those of the last stretch (each
  // stretch's were printed as it was recorded).
  result_.run_id = follow_.process_run_id;
  result_.messages = totals_.messages;
  result_.rows_published = totals_.rows_published;
  result_.bytes = totals_.bytes;
  result_.batches = totals_.batches;
  result_.decode_errors = totals_.decode_errors;
  result_.warehouse_retries = totals_.warehouse_retries;
  result_.published = result_.rows_published > 0;
}

void SyncRun::start_committer(kafka::Client& admin, Warehouse::WriteMode mode, bool staged) {
  auto spare = std::make_unique<RowBatch>();
  for (const auto& t : batch_->tables()) spare->table_slot(t.table, t.topic, t.topic_id, t.typed);
  lag_group_ = std::make_unique<kafka::LagGroup>(admin, "krow-" + manifest_.name,
                                                 std::chrono::seconds(manifest_.source.retry_timeout_s));
  committer_ = std::make_unique<Committer>(*warehouse_, *warehouse_, manifest_.name, mode, staged,
                                           std::chrono::seconds(manifest_.warehouse.retry_timeout_s),
                                           std::move(spare),
                                           [this](const std::vector<Position>& stored) { lag_group_->commit(stored); });
  committer_->observe(options_.observer);
}

std::string SyncRun::read_on(kafka::Client& admin) {
  // Rows an earlier stretch read but never handed over (it ended on an error, such as a
  // partition taken by another worker): committed now, they would go without the fence of
  // their partition, which this stretch may not read. Each partition is read again from its
  // stored position.
  batch_->clear();
  start_committer(admin, Warehouse::WriteMode::append, /*staged=*/false);
  committer_->release_between_batches();
  struct End {  // whatever happens, the committer stops first, and its counts are kept
    SyncRun& run;
    ~End() {
      run.committer_->stop();
      run.collect();
      run.committer_.reset();
      run.collected_ = {};
      run.lag_group_->finish();
      if (run.result_.lag_reporting_off.empty())
        run.result_.lag_reporting_off = run.lag_group_->reason();
      run.lag_group_.reset();
    }
  } end{*this};

  Session session(manifest_.source, manifest_.batch, rows_, *committer_, batch_, slots_,
                  Session::End::never, options_.verbose,
                  std::chrono::seconds(manifest_.source.retry_timeout_s), *this);
  // A worker reads what the group gives it, each partition taken as it comes; the others
  // read every partition, all taken at once.
  struct Worker : kafka::GroupMember::Handler {
    SyncRun& run;
    Session& session;
    Worker(SyncRun& r, Session& s) : run(r), session(s) {}
    static std::string list(const std::vector<TopicPartition>& p) {
      std::string out;
      for (const auto& tp : p)
        out += (out.empty() ? "" : ",") + tp.topic + ":" + std::to_string(tp.partition.value());
      return out;
    }
    void note(const std::string& what, const std::vector<TopicPartition>& p) const {
      std::fprintf(stderr, "krow: worker '%s': %s %s\n", run.options_.worker_id.c_str(),
                   what.c_str(), list(p).c_str());
      if (auto* observer = run.options_.observer) {
        observer->on_rebalance(what, p.size());
        if (what != "assigned")
          for (const auto& tp : p) observer->on_partition_gone(tp.topic, tp.partition);
      }
    }
    std::map<TopicPartition, Offset> on_assigned(const std::vector<TopicPartition>& p) override {
      note("assigned", p);
      for (const auto& tp : p) run.fenced_.erase(tp);
      session.drain();  // the committer idle: the warehouse is this thread's for the take
      auto taken = run.worker_assignments(p, /*granted=*/true);
      std::map<TopicPartition, Offset> offsets;
      for (const auto& a : taken)
        offsets[{a.read.start.topic, a.read.start.partition}] = a.read.start.next;
      session.assign(std::move(taken));
      return offsets;
    }
    void on_revoked(const std::vector<TopicPartition>& p) override {
      note("revoked", p);
      session.revoke(p);  // drains: what was read of them is committed
      run.forget(p);
    }
    void on_lost(const std::vector<TopicPartition>& p) override {
      note("lost", p);
      session.lose(p);
      run.forget(p);
    }
  } worker_handler(*this, session);
  if (worker()) {
    std::vector<std::string> topics;
    for (const auto& t : planned_topology()) topics.push_back(t.first);
    if (topics != subscribed_) {
      member_->subscribe(topics);
      subscribed_ = topics;
    }
    // Partitions owned since an earlier stretch are taken again (not those fenced off).
    std::vector<TopicPartition> owned;
    for (const auto& tp : member_->assignment())
      if (!fenced_.count(tp)) owned.push_back(tp);
    session.assign(worker_assignments(owned, /*granted=*/false));
    record_worker();
  } else {
    session.assign(assignments());
  }
  const auto planned = planned_topology();
  const std::chrono::milliseconds max_wait(manifest_.batch.max_wait_ms);
  auto next_record = std::chrono::steady_clock::now() + options_.record_interval;
  auto next_refresh = std::chrono::steady_clock::now() + options_.refresh_interval;
  auto seen_submit = session.last_submit();
  auto next_lag = std::chrono::steady_clock::now();
  bool idle = false;
  while (!stopping()) {
    session.poll();  // waits ~100 ms for messages: no busy loop while nothing arrives
    if (options_.observer && std::chrono::steady_clock::now() >= next_lag) {
      next_lag = std::chrono::steady_clock::now() + kLagInterval;
      for (const auto& l : session.lags())
        options_.observer->on_lag(l.topic, l.partition, l.messages);
    }
    if (member_) {
      const auto before = member_->assignment();
      member_->poll(worker_handler, 0);
      if (member_->assignment() != before) {
        session.drain();  // the warehouse is this thread's while the committer is idle
        record_worker();
      }
      if (replan_for_unplanned_) {
        replan_for_unplanned_ = false;
        session.drain();
        return "as the group gave this worker partitions it had not planned";
      }
      if (const auto kept = still_given_after_fence(); !kept.empty()) {
        session.drain();
        return "as the group still gives this worker " + kept + " long after another took it";
      }
      nudge_group(admin, planned);
    }
    const auto now = std::chrono::steady_clock::now();
    if (session.last_submit() != seen_submit) {
      seen_submit = session.last_submit();
      idle = false;
    }
    if (now >= next_record) {
      session.drain();  // the record counts committed batches only
      record_worker();
      record_stretch("interval", false);
      next_record = now + options_.record_interval;
      seen_submit = session.last_submit();
      idle = false;
    }
    if (now >= next_refresh) {
      next_refresh = now + options_.refresh_interval;
      try {
        // Short budgets: the refresh is tried again at the next interval, and a stop must not
        // wait for an outage to end.
        kafka::Cluster cluster(admin, std::chrono::seconds(10), std::chrono::seconds(10));
        if (topology_grew(planned, selected_topology(cluster, manifest_.topics))) {
          session.drain();
          return "as topics or partitions were added";
        }
      } catch (const Error& e) {
        if (options_.verbose)
          std::fprintf(stderr, "krow: note: looking for new topics failed: %s\n", e.what());
      }
    }
    // Caught up and quiet for max_wait: the last batch has landed, and the warehouse may let
    // others in (a DuckDB file is closed until the next batch).
    if (!idle && session.rows_in_hand() == 0 && now - session.last_submit() >= max_wait) {
      session.drain();
      warehouse_->idle();
      idle = true;
      seen_submit = session.last_submit();
    }
  }
  session.drain();  // SIGTERM or SIGINT: what was read is committed
  if (member_)
    member_->close(worker_handler);  // static: its partitions move after the session timeout
  return {};
}

void SyncRun::replan(kafka::Client& client) {
  plan_ = Plan{};
  tables_.clear();
  slots_.clear();
  batch_ = std::make_unique<RowBatch>();
  prepare(client);
  follow_.plan_gaps = true;
}

void SyncRun::collect() {
  if (!committer_) return;
  const Counts now{committer_->committed_rows(), committer_->committed_batches(),
                   committer_->retries()};
  stretch_.rows += now.rows - collected_.rows;
  stretch_.batches += now.batches - collected_.batches;
  stretch_.retries += now.retries - collected_.retries;
  collected_ = now;
}

void SyncRun::record_stretch(const std::string& reason, bool final) {
  collect();
  SyncResult r;
  r.run_id = recorder_.run_id();
  r.status = final ? result_.status : SyncStatus::running;
  for (const auto& t : tables_) {
    r.messages += t.messages;
    r.decode_errors += t.decode_errors;
    r.bytes += t.bytes;
  }
  r.rows_published = stretch_.rows;
  r.published = stretch_.rows > 0;
  r.batches = stretch_.batches;
  r.warehouse_retries = stretch_.retries;
  r.errors = result_.errors;
  r.lag_reporting_off = result_.lag_reporting_off;
  follow_.reason = reason;
  follow_.final = final;
  follow_.to.clear();
  try {
    for (const auto& p : warehouse_->positions(manifest_.name))
      follow_.to[{p.topic_id, p.partition}] = p.next;
  } catch (const std::exception& e) {
    // The warehouse is away (the stretch ends because of it): the record says where the
    // stretch began only.
    follow_.to = follow_.from;
  }
  if (final && options_.observer) options_.observer->on_run_end(status_name(r.status));
  r.artifact = recorder_.record(warehouse_.get(), r, tables_.empty() ? nullptr : &plan_, tables_,
                                schemas_ ? schemas_->registry_requests() : 0, &follow_);
  std::printf("follow '%s' %s: %s messages read, %s rows published in %s batches, run %s\n",
              manifest_.name.c_str(), reason.c_str(), with_thousands(r.messages).c_str(),
              with_thousands(r.rows_published).c_str(), with_thousands(r.batches).c_str(),
              r.run_id.c_str());
  std::fflush(stdout);
  if (!final)
    for (const auto& e : r.errors) std::fprintf(stderr, "krow: error: %s\n", e.c_str());

  totals_.messages += r.messages;
  totals_.rows_published += r.rows_published;
  totals_.bytes += r.bytes;
  totals_.batches += r.batches;
  totals_.decode_errors += r.decode_errors;
  totals_.warehouse_retries += r.warehouse_retries;
  if (final) return;
  // The next stretch counts from zero; a stopped table stays stopped (its error is in each record).
  for (auto& t : tables_) {
    t.messages = t.bytes = t.decode_errors = t.tombstones = 0;
    t.gaps.clear();
  }
  result_.errors.clear();
  stretch_ = {};
  follow_.from = follow_.to;
  ++follow_.sequence;
  follow_.plan_gaps = false;
  recorder_.begin_stretch();
}

Topology SyncRun::planned_topology() const {
  Topology out;
  for (const auto& t : plan_.topics)
    if (t.error.empty() && !t.topic_id.empty())
      out[t.topic] = TopicShape{t.topic_id, t.partitions.size()};
  return out;
}

bool SyncRun::wait_unless_stopped(std::chrono::milliseconds d) const {
  const auto until = std::chrono::steady_clock::now() + d;
  while (!stopping() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return !stopping();
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
  if (options_.observer)
    options_.observer->on_message(t.plan->topic, row.decode_error.present,
                                  m.key_size() + m.value_size());
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
