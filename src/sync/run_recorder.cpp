#include "sync/run_recorder.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <thread>

#include "plan/quality_gates.hpp"
#include "report/run_artifacts.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"

namespace krow {

namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
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

}  // namespace

RunRecorder::RunRecorder(const Manifest& manifest, bool full_resync)
    : manifest_(manifest), full_resync_(full_resync), run_id_(new_run_id()), started_ms_(now_ms()) {}

void RunRecorder::begin_stretch() {
  run_id_ = new_run_id();
  started_ms_ = now_ms();
}

std::string RunRecorder::record(StateStore* warehouse, const SyncResult& result, const Plan* plan,
                                const std::vector<TableTally>& tables, int registry_requests,
                                const FollowStretch* follow) const {
  const auto finished = now_ms();
  const RunRecord run{run_id_,
                      manifest_.name,
                      started_ms_,
                      finished,
                      status_name(result.status),
                      json(result, finished, plan, tables, registry_requests, follow)};
  if (warehouse) store(*warehouse, run);
  return write_artifacts(run);
}

std::string RunRecorder::write_artifacts(const RunRecord& run) const {
  // A manifest that never was a file (built in memory) has no folder to write beside.
  if (manifest_.file.empty()) return {};
  try {
    const auto root = runs_root(manifest_.file);
    write_run_artifacts(root, run.sync_id, run.run_id, run.json);
    return (root / run.sync_id / (run.run_id + ".md")).string();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "krow: warning: %s\n", e.what());
    return {};
  }
}

void RunRecorder::store(StateStore& warehouse, const RunRecord& run) const {
  // A warehouse that is restarting gets a few seconds; the record is not worth more.
  for (int attempt = 1;; ++attempt) {
    try {
      warehouse.record_run(run);
      return;
    } catch (const Error& e) {
      if (e.error_class() == ErrorClass::transient && attempt < 5) {
        std::this_thread::sleep_for(std::chrono::seconds(attempt));
        continue;
      }
      std::fprintf(stderr, "krow: warning: could not store the run record: %s\n", e.what());
      return;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "krow: warning: could not store the run record: %s\n", e.what());
      return;
    }
  }
}

std::string RunRecorder::json(const SyncResult& r, int64_t finished, const Plan* plan,
                              const std::vector<TableTally>& tables, int registry_requests,
                              const FollowStretch* follow) const {
  JsonWriter w;
  w.begin_object().field("run_id", run_id_).field("sync_id", manifest_.name).field("status", status_name(r.status));
  w.field("warehouse_schema", manifest_.warehouse.schema);
  w.field("started_at_ms", started_ms_).field("finished_at_ms", finished).field("duration_ms", finished - started_ms_);
  w.key("phases").begin_object();
  auto phase = [&](const char* name, int64_t ms) {
    if (ms < 0) w.key(name).null(); else w.field(name, ms);
  };
  phase("connect_plan_ms", r.phases.connect_plan_ms);
  phase("read_write_ms", r.phases.read_write_ms);
  phase("final_drain_ms", r.phases.final_drain_ms);
  phase("gates_publish_ms", r.phases.gates_publish_ms);
  phase("lag_report_ms", r.phases.lag_report_ms);
  w.end_object();
  w.field("messages", r.messages).field("rows_published", r.rows_published);
  w.field("bytes", r.bytes).field("batches", r.batches);
  w.field("decode_errors", r.decode_errors).field("warehouse_retries", r.warehouse_retries);
  w.field("mode", follow ? "follow" : full_resync_ ? "full_resync" : "sync");
  if (follow) {
    w.key("follow").begin_object().field("process_run_id", follow->process_run_id);
    w.field("sequence", static_cast<int64_t>(follow->sequence)).field("final", follow->final);
    w.field("reason", follow->reason).end_object();
  }
  w.field("retry_later", r.status == SyncStatus::failed && r.retriable);  // exit code 75
  w.field("registry_requests", registry_requests);
  w.field("lag_group", "krow-" + manifest_.name);
  if (r.lag_reporting_off.empty()) w.key("lag_reporting_off").null(); else w.field("lag_reporting_off", r.lag_reporting_off);
  // The bounds that applied, so that a short run reads as intended rather than as a failure.
  w.key("bounds");
  if (plan) write_bounds_json(w, plan->bounds); else w.null();
  w.key("tables").begin_array();
  for (const auto& t : tables) {
    w.begin_object().field("topic", t.plan->topic).field("table", t.plan->table).field("topic_id", t.plan->topic_id.str());
    w.field("messages", t.messages).field("bytes", t.bytes).field("decode_errors", t.decode_errors);
    w.field("tombstones", t.tombstones);
    if (t.error.empty()) w.key("error").null(); else w.field("error", t.error);
    // The typed column changes this run made (a variant column names the column it isolates).
    w.key("column_changes");
    write_column_changes_json(w, t.created ? t.plan->settings.changes : std::vector<columns::ColumnChange>{});
    // Its physical design's changes: made by this run (--apply-design), or left for one that is
    // asked.
    const bool applied = t.created && t.plan->settings.apply_design;
    w.key("design_applied").begin_array();
    for (const auto& c : t.plan->design.changes)
      if (applied) w.value(c.what);
    w.end_array().key("design_unapplied").begin_array();
    for (const auto& c : t.plan->design.changes)
      if (!applied) w.value(c.what);
    w.end_array();
    w.key("partitions").begin_array();
    for (const auto& p : t.plan->partitions) {
      if (follow) {
        // A continuous stretch reads from the committed position at its start to the one at
        // its end: it has no boundary of its own.
        const std::pair key{t.plan->topic_id, p.partition};
        const auto from = follow->from.count(key) ? follow->from.at(key) : p.start;
        const auto to = follow->to.count(key) ? follow->to.at(key) : from;
        w.begin_object()
            .field("partition", p.partition.value())
            .field("from", from.value())
            .field("boundary", to.value())
            .field("started_by", start_name(p.started_by))
            .field("bounded_by", "continuous")
            .end_object();
        continue;
      }
      w.begin_object()
          .field("partition", p.partition.value())
          .field("from", p.start.value())
          .field("boundary", p.boundary.value())
          .field("started_by", start_name(p.started_by))
          .field("bounded_by", bound_name(p.bounded_by))
          .field("last_stable_offset", p.last_stable.value())
          .end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
  w.key("gaps").begin_array();
  auto gap = [&](const std::string& topic, const Gap& g) {
    w.begin_object()
        .field("topic", topic)
        .field("partition", g.partition.value())
        .field("from", g.from.value())
        .field("to", g.to.value())
        .field("reason", g.reason)
        .end_object();
  };
  // Gaps the plan found are recorded once, by the first stretch that read after planning.
  if (plan && (!follow || follow->plan_gaps)) {
    for (const auto& t : plan->topics)
      for (const auto& p : t.partitions)
        if (t.settings.strategy == Strategy::full_refresh) continue;  // re-read whole: nothing is skipped
        else
        if (p.retention_gap())
          gap(t.topic, Gap{p.partition, *p.stored, p.earliest, "expired by retention before it was read"});
        else if (p.truncated())
          gap(t.topic, Gap{p.partition, p.boundary, *p.stored,
                           "log truncated below the stored position (unclean leader election?): messages at these "
                           "offsets were copied before; new ones written there are copied too"});
  }
  for (const auto& t : tables)
    for (const auto& g : t.gaps) gap(t.plan->topic, g);
  w.end_array();
  w.key("errors").begin_array();
  for (const auto& e : r.errors) w.value(e);
  w.end_array();
  w.field("publish", publish_mode_name(manifest_.quality.publish));
  w.field("published", r.published);
  // What the run did: a per_batch manifest's run stages too when a table's rows are replaced.
  w.field("publish_note",
          r.staged ? (r.published ? "staged: the run's rows and positions reached the tables "
                                    "together, after the gates"
                                  : "staged: nothing of this run reached the tables; they and the "
                                    "positions are as before it")
                   : "per_batch: each batch was queryable once committed; the gates ran after the "
                     "last one and cannot undo them");
  w.key("gates");
  write_findings_json(w, r.gates);
  w.end_object();
  return w.str();
}

}  // namespace krow
