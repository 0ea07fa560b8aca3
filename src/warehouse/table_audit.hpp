#pragma once
// What `krow audit` asks of a table (docs/audit.md): counts made by the engine, never read from
// krow's own state, from the cheapest (one aggregate per partition) to the dearest (the rows of
// one offset range, every contract column as text). The audit asks for the dearer ones only
// where the cheaper ones disagree with Kafka. Reads only; every answer is one SELECT.
//
// The SQL is written once here (table_audit.cpp) in the words DuckDB, PostgreSQL and BigQuery
// share; an adapter gives the few that differ (AuditSql) and runs the SELECT.
//
// Thread: one thread at a time per object.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contract/row_contract.hpp"
#include "util/ids.hpp"

namespace krow {

// The rows of one (topic ID, partition) of a table, against the offsets expected there.
struct PartitionTally {
  TopicId topic_id;
  Partition partition;
  int64_t rows = 0;                   // every row of the partition in the table
  int64_t rows_in_range = 0;          // rows whose offset is in the expected range
  int64_t offsets_in_range = 0;       // distinct offsets among them
  int64_t above_range = 0;            // rows at or past the range's end (the stored position)
  int64_t wrong_ids = 0;              // rows whose id is not "<topic ID>:<partition>:<offset>"
  std::optional<Offset> first, last;  // lowest and highest offset stored
};

// The rows of one bucket of offsets [bucket * width, (bucket + 1) * width) of a range.
struct BucketTally {
  int64_t bucket = 0;
  int64_t rows = 0;
  int64_t offsets = 0;     // distinct
  int64_t offset_sum = 0;  // of every row's offset: tells apart two sets of offsets of one size
  int64_t wrong_ids = 0;
};

// One offset stored in a range: how many rows hold it, and how many of them have a wrong id.
struct StoredOffset {
  Offset offset;
  int64_t copies = 0;
  int64_t wrong_ids = 0;
};

// A stored row, each contract column as text (NULL: none), in contract order: integers in
// decimal, kafka_timestamp in milliseconds since the epoch, booleans `true`/`false`, JSON as
// the engine renders it (which may reorder keys and respace).
struct StoredRow {
  std::array<std::optional<std::string>, contract::kColumnCount> cells;
};

// A row of a latest_by_key table, as snapshot reconciliation compares it with the topic.
struct StoredKey {
  std::optional<std::string> key;    // the key column
  std::optional<std::string> value;  // the value column as text, when asked for (unique_key)
  Partition partition;
  Offset offset;
  bool tombstone = false;
};

// The words in which an engine's SQL differs, for the audit's statements.
struct AuditSql {
  std::string text_type;  // CAST(x AS <text_type>): VARCHAR, TEXT, STRING
  // `expr` (a BIGINT) divided by `by`, rounded down (offsets are never negative).
  std::string (*divided)(const std::string& expr, int64_t by);
  // A JSON column as text, a TIMESTAMP column as BIGINT milliseconds since the epoch.
  std::string (*json_text)(const std::string& column);
  std::string (*millis)(const std::string& column);
  // `ranges` as a FROM item named r with columns (topic_id, kafka_partition, lo, hi).
  std::string (*ranges)(const std::vector<OffsetRange>& ranges);
  // A string literal.
  std::string (*literal)(const std::string& text);
};

class TableAudit {
 public:
  virtual ~TableAudit() = default;

  // Every (topic ID, partition) that has rows in `table`, with its counts against its range
  // in `ranges` (a partition missing there has none: all its rows count as outside). Throws
  // fatal_table when the table does not exist.
  std::vector<PartitionTally> tally_partitions(const std::string& table,
                                               const std::vector<OffsetRange>& ranges);

  // The rows of `range`, counted per bucket of `width` offsets; buckets without rows are left out.
  std::vector<BucketTally> tally_buckets(const std::string& table, const OffsetRange& range,
                                         int64_t width);

  // The offsets stored in `range`, in order.
  std::vector<StoredOffset> stored_offsets(const std::string& table, const OffsetRange& range);

  // The rows stored in `range`, by offset (copies of one offset next to each other).
  std::vector<StoredRow> stored_rows(const std::string& table, const OffsetRange& range);

  // Every row of `table` with its key, position and tombstone flag (and its value, when
  // `with_value`): what snapshot reconciliation compares with the topic's state.
  std::vector<StoredKey> stored_keys(const std::string& table, bool with_value);

 protected:
  // The row table `table` as the FROM clause names it (schema-qualified, quoted).
  virtual std::string audited_table(const std::string& table) const = 0;
  virtual const AuditSql& audit_sql() const = 0;
  // Runs a SELECT and gives every cell as text (NULL: none). Throws as the engine's reads do
  // (transient while retrying may help); `what` says what for messages.
  virtual std::vector<std::vector<std::optional<std::string>>> select_text(
      const std::string& sql, const std::string& what) = 0;
};

}  // namespace krow
