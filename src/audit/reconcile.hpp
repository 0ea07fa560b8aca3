#pragma once
// `krow reconcile` (docs/audit.md#snapshot-reconciliation): compares each `latest_by_key`
// table with the state of its topic, key by key. The topic's state is what Kafka retains below
// the stored positions, the newest message of each key winning as a sync decides it (within a
// partition the highest offset; across partitions the later timestamp, then the higher
// partition). A table can drift from it in ways no sync can see: a key whose tombstone was
// compacted away before krow read it keeps its row forever, and another client may delete,
// copy or change rows.
//
// Report-only by default. With `apply`, the differences are mended in one transaction with the
// positions (fenced on them, which stay where they are), by the adapter's own latest_by_key
// write: the key's newest message written again where its row is missing, older or doubled,
// and the rows of keys that are gone from the topic deleted.
//
// Thread: the calling thread.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "manifest/manifest.hpp"
#include "util/ids.hpp"
#include "warehouse/warehouse.hpp"

namespace krow::audit {

struct ReconcileOptions {
  std::vector<std::string>
      tables;  // only these (table or topic names); empty: every latest_by_key table
  bool apply = false;
  std::function<void(const std::string&)> progress;
};

struct KeyFinding {
  enum class Kind {
    gone,     // a row whose key has no message left in the topic, or whose newest message is a
              // tombstone
    stale,    // a row that is not its key's newest message
    missing,  // a key whose newest message has no row
    doubled,  // more rows than one for a key
  };
  Kind kind;
  std::string key;     // as the table holds it (shortened)
  std::string detail;  // positions: "row at 0:12, newest message at 1:40"
};
const char* kind_name(KeyFinding::Kind k);

struct ReconcileTable {
  std::string topic;
  std::string table;
  std::string key;      // what identifies a row: "the Kafka key" or "unique_key id, region"
  std::string skipped;  // why it was not reconciled (not latest_by_key)
  std::string error;
  int64_t messages = 0;      // read from Kafka
  int64_t keys = 0;          // keys whose newest message makes a row
  int64_t rows = 0;          // rows with a key
  int64_t unkeyed_rows = 0;  // rows without one (appended as they are; not reconciled)
  int64_t matching = 0;      // keys whose one row is their newest message
  int64_t gone = 0, stale = 0, missing = 0, doubled = 0;
  int64_t not_applied = 0;           // differences `apply` cannot mend (see docs)
  std::vector<KeyFinding> findings;  // the first few
  // apply: what was written, and the differences found again afterwards (the proof).
  bool applied = false;
  int64_t rows_deleted = 0, rows_written = 0;
  int64_t left_after_apply = 0;
  bool clean() const { return error.empty() && gone + stale + missing + doubled == 0; }
};

struct ReconcileReport {
  std::string sync_id;
  std::string warehouse;
  bool apply = false;
  std::vector<ReconcileTable> tables;
  double seconds = 0;
  // Report-only: no table differs. Apply: every difference was mended (none is left).
  bool clean() const;
};

// Reconciles the latest_by_key tables of `manifest` in `warehouse`: opened read-only for a
// report, or for writing (OpenMode::write: the sync's lock is held) with `apply`.
ReconcileReport reconcile(const Manifest& manifest, Warehouse& warehouse,
                          const ReconcileOptions& options);

std::string format_text(const ReconcileReport& report);
std::string format_json(const ReconcileReport& report);

}  // namespace krow::audit
