#pragma once
// Runs one sync: plans the boundary (stored positions → last stable offsets, plan/plan),
// reads every selected partition up to its boundary (sync/partition_reader), turns messages
// into rows (sync/row_builder), commits each batch with the positions it advances in one
// fenced warehouse transaction (sync/committer), and records the run (sync/run_recorder).
//
// Positions move only after the write they describe is committed, so an interruption at
// any point (even kill -9) resumes from the last committed batch without loss or
// duplicates.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "manifest/manifest.hpp"
#include "plan/quality_gates.hpp"
#include "sync/sync_observer.hpp"

namespace krow {

struct SyncOptions {
  bool progress = true;                    // progress line on stderr when it is a terminal
  bool verbose = false;                    // librdkafka warnings and per-batch notes
  const std::atomic<bool>* stop = nullptr; // set (e.g. by SIGINT) to stop after the current batch
  // Full resync: re-read every selected partition from the log start (as far as Kafka still
  // retains) and re-decode, replacing rows with the same id; never removes rows.
  bool full_resync = false;
  std::vector<std::string> only_tables;    // full resync of these tables only (empty: all)
  // `--apply-design`: an existing table whose physical design differs from the manifest's
  // (docs/physical-design.md) is changed to it; without it the table keeps its own and the run
  // says so once (SyncResult::design_unapplied).
  bool apply_design = false;
  // Continuous (`krow sync --follow`, docs/continuous-sync.md): read on after catching up,
  // committing at the batch limits or batch.max_wait, until `stop` is set; the caller has
  // checked continuous_refusal() (sync/continuous.hpp). Failures that may pass are retried
  // with backoff for as long as they last; a definitive one ends the run.
  bool follow = false;
  std::chrono::milliseconds record_interval{std::chrono::minutes(5)};  // a run record this often
  std::chrono::milliseconds refresh_interval{
      std::chrono::seconds(30)};  // look for new topics and partitions
  // A worker of a continuous sync (docs/workers.md): non-empty, the sync's partitions are
  // shared with the other workers through consumer group `krow-<sync id>.workers` (this is the
  // member's static ID); the warehouse is opened as OpenMode::worker, its lock held only while
  // tables are prepared. Needs `follow` and an engine with concurrent_writers (the caller
  // checked both).
  std::string worker_id;
  // Told what the sync does as it goes (metrics); may be null. Must outlive the run.
  SyncObserver* observer = nullptr;
};

enum class SyncStatus {
  success,
  partial,  // some tables stopped; the others were synced
  failed,
  interrupted,
  gate_failed,  // a quality gate of severity error failed (exit code 4)
  running,      // a continuous sync's record of a stretch while it goes on
};

// Wall time of each phase of a run, in milliseconds; -1 for a phase the run did not reach.
struct PhaseTimes {
  int64_t connect_plan_ms = -1;  // open the warehouse, connect, check the cluster, plan, create tables
  int64_t read_write_ms = -1;    // read up to the boundaries, committing full batches on the way
  int64_t final_drain_ms = -1;   // commit the last batch and wait for every commit to land
  int64_t gates_publish_ms = -1;  // measure and check the quality gates; publish or drop the staged rows
  int64_t lag_report_ms = -1;    // the last positions to the lag group, and its answers
};

struct SyncResult {
  SyncStatus status = SyncStatus::success;
  std::string run_id;
  // Messages read within the boundaries (one row each), whether or not they reached the
  // tables; rows_published: those that did (committed batches, or a staged run's publish).
  int64_t messages = 0;
  int64_t rows_published = 0;
  int64_t bytes = 0;    // key + value bytes read
  int64_t batches = 0;  // batches written: committed, or staged
  int64_t decode_errors = 0;
  int64_t warehouse_retries = 0;  // commits tried again after a retriable warehouse failure
  double seconds = 0;
  std::vector<std::string> errors;  // what stopped tables or the run, each naming its fix
  bool retriable = false;  // failed for a reason that may pass by itself (an outage outlasting the retries)
  bool invalid_config = false;      // failed on the manifest or the arguments (exit code 3)
  std::string lag_reporting_off;    // empty when positions reached the lag group
  // Tables whose physical design differs from the manifest's, left as they are (no
  // --apply-design): one sentence each, naming the changes and the flag; the run says each on
  // stderr once, as it prepares the tables.
  std::vector<std::string> design_unapplied;
  PhaseTimes phases;
  std::vector<GateFinding> gates;   // in manifest order; empty when the run ended before they ran
  // Whether the run staged its batches (quality.publish: staged, or a table whose rows it
  // replaces), and whether its rows and positions reached the tables (per batch: any did).
  bool staged = false;
  bool published = false;
  // The run's summary file beside the manifest (report/run_artifacts); empty when it could not
  // be written (a warning said why).
  std::string artifact;
};

// A continuous run (options.follow) ends only when `options.stop` is set (success, or partial
// when tables stopped) or on a definitive failure; its records are one per stretch
// (sync/run_recorder FollowStretch) and the result counts the whole process.
// Once the run has its ID every outcome is in the result, recorded: problems found before
// anything is read (the warehouse cannot open or another sync holds it, credentials, the
// plan) as a failed run too, with its artifact files beside the manifest and, when the
// warehouse opened, its record there. Throws only for what stops a run before it has an ID.
SyncResult run_sync(const Manifest& manifest, const SyncOptions& options);

const char* status_name(SyncStatus s);

}  // namespace krow
