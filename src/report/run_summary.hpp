#pragma once
// What people read about a run: the short Markdown summary written beside each run's JSON
// record (`.krow/runs/<sync id>/<run id>.md`), and the one-line-per-run listing of
// `krow runs`. Pure functions of the record's JSON text (sync/run_recorder), so that the
// summary can never say something the record does not, and so that they are testable
// without a broker or a warehouse. Any thread may call them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace krow {

// The Markdown summary of one run record: status, sync ID, mode, times, counts, per table
// its topic, rows, error and each partition's from -> boundary, gaps, errors, gates and
// whether lag reporting was off. A record that does not parse gives a summary that says so
// (never an exception: the summary must not cost the run its artifact).
std::string render_run_summary(std::string_view record_json);

// The fields of a run record that `krow runs` lists.
struct RunListing {
  std::string run_id;
  std::string sync_id;
  int64_t started_at_ms = 0;
  std::string status;  // success | partial | failed | interrupted | gate_failed
  std::string mode;    // sync | full_resync
  int64_t messages = 0;                   // read
  std::optional<int64_t> rows_published;  // none in records written before it was counted
  int64_t duration_ms = 0;
  int64_t errors = 0;  // how many errors the record holds
  std::string file;    // the JSON record it was read from
};

// Reads the listed fields from a record; false when the text is not a run record.
bool parse_run_listing(std::string_view record_json, RunListing& out);

// `runs` as an aligned text table (newest first, as given) or as a JSON array.
std::string format_run_listings(const std::vector<RunListing>& runs, bool json);

}  // namespace krow
