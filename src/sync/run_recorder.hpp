#pragma once
// The record every run leaves in the warehouse (`_krow.runs`) and as files beside its
// manifest (report/run_artifacts): counts, bytes, batches, durations (total and per phase),
// per-table results, retention gaps, errors and gates, as JSON. It never holds a secret: no
// credential of the source, the registry or the warehouse is written into it. A run that
// fails before it reads anything — the cluster refuses, the plan cannot be made — leaves one
// too, and so does one whose warehouse could not be opened (in the artifact files only).

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "manifest/manifest.hpp"
#include "plan/plan.hpp"
#include "sync/partition_reader.hpp"
#include "sync/sync_engine.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

// What a run did to one table.
struct TableTally {
  const TopicPlan* plan = nullptr;
  int64_t messages = 0;  // read within the boundary, published or not
  int64_t bytes = 0;
  int64_t decode_errors = 0;
  int64_t tombstones = 0;
  // create_table() took it before reading: the table exists, or (staged) the publish makes it.
  bool created = false;
  std::string error;  // set when the table stopped
  std::vector<Gap> gaps;  // offsets that went away while the run read them
};

// A continuous sync (`krow sync --follow`) leaves a record per stretch of its life instead of
// one per run: every record_interval, whenever it starts reading anew (after a failure that
// may pass, or when topics or partitions were added), and at exit. Each holds what happened
// since the previous one: messages, rows, bytes, batches, errors and gaps of that stretch,
// and per partition the committed position at its start ("from") and at its end.
struct FollowStretch {
  std::string process_run_id;  // the first record's run ID: the same in every record of one process
  int sequence = 1;            // 1, 2, ... within the process
  bool final = false;          // the process's last record
  std::string reason;          // why the record was written: interval, restart (and why), exit
  bool plan_gaps = true;  // the first stretch after planning: it records the gaps the plan found
  // Committed positions at the stretch's start and end, by topic ID and partition.
  std::map<std::pair<TopicId, Partition>, Offset> from, to;
};

class RunRecorder {
 public:
  // Starts the clock and names the run.
  RunRecorder(const Manifest& manifest, bool full_resync);

  const std::string& run_id() const { return run_id_; }
  int64_t started_at_ms() const { return started_ms_; }

  // Stores the record of `result` in the warehouse (null: it could not be opened, so the
  // record goes to the artifact files only) and writes its artifact files; returns the path of
  // the summary file, or "" when none was written. `plan` and `tables` may be empty (an early
  // failure). Never throws: a record that cannot be stored or written is reported on stderr
  // (one warning each), and the run's own outcome stands.
  // `follow`: the record of one stretch of a continuous sync (see FollowStretch).
  std::string record(StateStore* warehouse, const SyncResult& result, const Plan* plan,
                     const std::vector<TableTally>& tables, int registry_requests,
                     const FollowStretch* follow = nullptr) const;

  // A continuous sync's next stretch: a new run ID, its clock starting now.
  void begin_stretch();

 private:
  std::string json(const SyncResult& r, int64_t finished, const Plan* plan,
                   const std::vector<TableTally>& tables, int registry_requests,
                   const FollowStretch* follow) const;
  void store(StateStore& warehouse, const RunRecord& run) const;
  // The path of the summary file written, or "".
  std::string write_artifacts(const RunRecord& run) const;

  const Manifest& manifest_;
  bool full_resync_;
  std::string run_id_;
  int64_t started_ms_;
};

}  // namespace krow
