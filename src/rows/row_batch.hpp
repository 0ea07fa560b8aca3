#pragma once
// A batch of rows on its way to the warehouse: the unit that is committed, together with
// the partition positions it advances, in one warehouse transaction.
//
// Text of all rows lives in one arena per batch, so filling a batch costs no per-message
// allocation once the arena and row vectors have grown to their working size.

#include <cstdint>
#include <string>
#include <vector>

#include "codec/decoded.hpp"

namespace krow {

enum class TimestampType : uint8_t { none, create_time, log_append_time };

struct Row {
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp_ms = 0;
  TimestampType timestamp_type = TimestampType::none;
  Decoded key;
  Decoded value;
  int32_t value_size_bytes = 0;
  bool is_tombstone = false;
  Slice headers;
  Slice decode_error;  // key and value problems joined, NULL when there were none
};

// The rows of one table (one topic ID) within a batch.
struct TableRows {
  std::string table;     // warehouse table name
  std::string topic;     // Kafka topic name
  std::string topic_id;  // Kafka topic ID, base64 text form
  std::vector<Row> rows;
};

// Where a partition's reading stands once a batch commits: the next offset to read
// (last processed offset + 1, or the boundary when the partition is complete).
struct PositionUpdate {
  std::string topic;
  std::string topic_id;
  int32_t partition = 0;
  int64_t next_offset = 0;
};

class RowBatch {
 public:
  // Index of the table slot for a topic ID; creates it on first use.
  size_t table_slot(const std::string& table, const std::string& topic, const std::string& topic_id);

  std::string& arena() { return arena_; }
  const std::string& arena() const { return arena_; }
  std::vector<TableRows>& tables() { return tables_; }
  const std::vector<TableRows>& tables() const { return tables_; }

  size_t row_count() const { return rows_; }
  // Row data held: the text of keys, values, headers and errors (what `batch.max_bytes`
  // bounds); the fixed-size part of each row is bounded by the message count.
  size_t byte_size() const { return arena_.size(); }
  void count_row() { ++rows_; }

  // Empties the batch but keeps its memory for the next one.
  void clear();

 private:
  std::string arena_;
  std::vector<TableRows> tables_;
  size_t rows_ = 0;
};

}  // namespace krow
