#pragma once
// How a topic's messages meet its table (the manifest's `tables:`, manifest/table_settings):
// what every layer that writes a table needs to know of it.

#include <string>
#include <vector>

namespace krow {

enum class Strategy {
  append,         // one row per message (the default)
  latest_by_key,  // one row per key: the newest message's; a tombstone deletes it
  full_refresh,   // each run re-reads the whole retained topic and replaces the table's rows at once
};
const char* strategy_name(Strategy s);

struct TableSettings {
  Strategy strategy = Strategy::append;
  std::vector<std::string> unique_key;  // latest_by_key: top-level value fields that identify a row; empty: the Kafka key
  bool keep_tombstones = false;         // latest_by_key: a tombstone stays as its key's row instead of deleting it
  // True when a run's rows replace what the table held, rather than add to it.
  bool replaces(bool full_resync) const {
    return strategy == Strategy::full_refresh || (full_resync && strategy == Strategy::latest_by_key);
  }
};

}  // namespace krow
