#pragma once
// `krow audit` (docs/audit.md): proves the tables of a sync against Kafka, independently of
// krow's own bookkeeping. For every partition with a stored position, the offsets Kafka still
// holds below that position must each be in the table exactly once, with the id their
// (topic ID, partition, offset) makes. It counts in the table, never trusting krow's records:
//
// 1. one aggregate per partition (rows, distinct offsets, wrong ids, rows past the position);
//    a partition whose rows are exactly the offsets of its range, once each, is proven there;
// 2. elsewhere, the partition's offsets are read from Kafka (read_committed, so transaction
//    markers and aborted records are told apart from messages) and compared per bucket of
//    offsets with the table's counts;
// 3. only in the buckets that disagree, offset by offset: which are missing, doubled, not in
//    Kafka, or carry a wrong id.
// With `--deep` (every message) or `--sample N` (N messages in runs of consecutive offsets at
// random places) the messages are also read again, decoded again, and every contract column
// stored is compared with what the row contract says it must be.
//
// It reads only: nothing is written to the warehouse or to Kafka.
//
// Thread: the calling thread.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "manifest/manifest.hpp"
#include "util/ids.hpp"
#include "warehouse/warehouse.hpp"

namespace krow::audit {

struct Options {
  std::vector<std::string> tables;  // only these (table or topic names); empty: every table
  enum class Depth { counts, sample, deep };
  Depth depth = Depth::counts;
  int64_t sample = 0;  // Depth::sample: how many messages to compare
  uint64_t seed = 0;   // Depth::sample: where the runs fall (0: from the clock)
  // Called with a line of progress now and then (long audits); may be empty.
  std::function<void(const std::string&)> progress;
};

// One thing found wrong, at one offset.
struct Finding {
  enum class Kind { missing, doubled, differing, wrong_id, not_in_kafka, past_position };
  Kind kind;
  Offset offset;
  std::string detail;  // for differing: the columns that differ; never a value
};
const char* kind_name(Finding::Kind k);

struct PartitionResult {
  Partition partition;
  Offset from, to;            // the offsets audited: [from, to)
  std::string from_reason;    // why it starts there ("log start", ...)
  bool read_kafka = false;    // Kafka's offsets were read (the counts alone did not prove it)
  int64_t expected = 0;       // messages Kafka holds in [from, to)
  int64_t found = 0;          // rows stored in [from, to)
  int64_t missing = 0;        // messages with no row
  int64_t doubled = 0;        // rows more than one per offset
  int64_t differing = 0;      // rows whose columns differ from the message's (deep/sample)
  int64_t wrong_ids = 0;      // rows whose id is not their topic ID, partition and offset
  int64_t not_in_kafka = 0;   // rows at offsets in [from, to) where Kafka holds no message
  int64_t past_position = 0;  // rows at or past the stored position
  int64_t committed_meanwhile =
      0;  // rows a sync committed past it while the audit ran: not audited
  int64_t not_messages =
      0;                 // offsets in [from, to) without a message (markers, aborted, compacted)
  int64_t compared = 0;  // messages decoded again and compared (deep/sample)
  int64_t before = 0;    // rows below `from` (messages Kafka no longer holds): not audited
  std::vector<Finding> findings;  // the first few, by offset
  bool clean() const {
    return missing == 0 && doubled == 0 && differing == 0 && wrong_ids == 0 && not_in_kafka == 0 &&
           past_position == 0;
  }
};

struct TableResult {
  std::string topic;
  std::string table;
  TopicId topic_id;
  std::string strategy;
  std::string skipped;  // why the table was not audited (its strategy keeps no row per message)
  std::string error;    // why it could not be audited (then it is not clean)
  std::vector<PartitionResult> partitions;
  // Rows of partitions the sync has no position for (another topic ID, a partition never
  // committed): not audited, counted.
  int64_t other_rows = 0;
  std::vector<std::string> other_partitions;  // "<topic ID>:<partition> (N rows)"
  bool clean() const;
};

struct Report {
  std::string sync_id;
  std::string warehouse;
  std::string depth;  // counts | sample N | deep
  std::vector<TableResult> tables;
  double seconds = 0;
  bool clean() const;
};

// Audits the tables of `manifest` in `warehouse` (opened read-only) against its cluster.
// Throws Error: config for --tables naming no table of the sync, transient when Kafka or the
// warehouse is away for longer than their retries, fatal_run when they refuse.
Report run(const Manifest& manifest, Warehouse& warehouse, const Options& options);

// The report as text (a table per partition, then the findings) or JSON.
std::string format_text(const Report& report);
std::string format_json(const Report& report);

}  // namespace krow::audit
