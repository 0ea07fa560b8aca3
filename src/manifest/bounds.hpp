#pragma once
// Bounded runs: how far one sync may read, and where a partition with no stored position
// starts. Declared once here (key, flag, description), read from the manifest's `bounds:`
// section and from the `sync`/`plan` flags, which override the manifest key by key.
//
// Every bound is an offset per partition computed at plan time (plan/plan): the run reads
// up to, not including, the smallest of them, and never past the last stable offset.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/ids.hpp"

namespace krow {

// Where the partitions of a topic new to the sync (no stored position for any of its
// partitions) start reading. A partition added later to a topic already synced starts at its
// log start whatever this says: all of it is new to the sync.
struct StartFrom {
  enum class Kind { earliest, latest, time };
  Kind kind = Kind::earliest;
  int64_t time_ms = 0;  // Kind::time: the first offset whose timestamp is >= this
  std::string text = "earliest";  // as written, for plans and run records
};

struct BoundsConfig {
  std::optional<int64_t> max_messages;                // per run, shared out over the partitions
  std::optional<int64_t> max_messages_per_partition;  // per partition
  std::optional<Offset> until_offset;                 // read each partition up to, not including, it
  std::optional<int64_t> until_ms;                    // stop at the first message stamped at or after it
  std::string until_text;                             // `until` as written
  StartFrom start_from;
  // True when some bound stops reading before the last stable offset may be reached.
  bool limits_reading() const {
    return max_messages || max_messages_per_partition || until_offset || until_ms;
  }
};

// One bound as the manifest key and the command-line flag name it.
struct BoundSetting {
  const char* key;          // manifest key in `bounds:`
  const char* flag;         // `krow sync` / `krow plan` flag
  const char* value_name;   // for --help
  const char* description;  // for --help and the JSON Schema
};

// Every bound, in the order plans list them.
const std::vector<BoundSetting>& bound_settings();

// Sets `key` of `bounds` from its text. Returns an empty string when done, else what is
// wrong with the value and how to write it (the caller adds where it came from).
std::string set_bound(BoundsConfig& bounds, const std::string& key, const std::string& value);

// An ISO 8601 time (2026-03-01T12:00:00Z, with optional fractional seconds and a Z or
// ±HH:MM offset; a date alone is midnight UTC) as milliseconds since the epoch, or none
// when it is not one.
std::optional<int64_t> parse_iso_time_ms(const std::string& text);

// Shares `total` offsets out over partitions that have `available[i]` offsets to read:
// evenly, a partition with fewer takes all it has and the rest is shared among the others,
// and the remainder of an uneven split goes to the first partitions in the given (plan)
// order. The result never exceeds `available[i]` and sums to min(total, sum(available)).
std::vector<int64_t> share_out(int64_t total, const std::vector<int64_t>& available);

}  // namespace krow
