#pragma once
// Run artifacts: every run's record also lives in files beside its manifest, where CI jobs
// and people read it without opening the warehouse:
//
//   <manifest dir>/.krow/runs/<sync id>/<run id>.json   the full record, as in `_krow.runs`
//   <manifest dir>/.krow/runs/<sync id>/<run id>.md     a short summary (report/run_summary)
//
// Each file appears whole or not at all (written to a temporary file, then renamed), the
// summary before the record, so a listed record always has its summary. The record holds
// no secret (sync/run_recorder writes none), so the files need no special permissions.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "report/run_summary.hpp"

namespace krow {

// `<dir of manifest_file>/.krow/runs`, where the runs of every sync of that folder go.
std::filesystem::path runs_root(const std::filesystem::path& manifest_file);

// Writes the two files of a run under `root/<sync_id>/`. Throws Error(fatal_run) naming the
// folder and the fix when it cannot; the caller decides what that costs (a sync only warns:
// an artifact never changes a run's outcome).
void write_run_artifacts(const std::filesystem::path& root, const std::string& sync_id, const std::string& run_id,
                         const std::string& record_json);

// The runs recorded under `root`, newest first: those of `sync_id`, or of every sync when it
// is empty. Files that are not run records (a partial copy made by hand, say) are skipped.
std::vector<RunListing> list_runs(const std::filesystem::path& root, const std::string& sync_id);

// The JSON record file of `run_id` under `root` (in `sync_id`'s folder, or in any sync's
// when it is empty); nullopt when there is none.
std::optional<std::filesystem::path> find_run(const std::filesystem::path& root, const std::string& sync_id,
                                              const std::string& run_id);

// The whole content of a file; throws Error(fatal_run) naming it when it cannot be read.
std::string read_text_file(const std::filesystem::path& file);

}  // namespace krow
