#pragma once
// A batch of rows on its way to the warehouse: the unit that is committed, together with
// the partition positions it advances, in one warehouse transaction.
//
// Text of all rows lives in one arena per batch, so filling a batch costs no per-message
// allocation once the arena and row vectors have grown to their working size.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codec/decoded.hpp"
#include "contract/row_contract.hpp"
#include "rows/typed_values.hpp"
#include "util/ids.hpp"

namespace krow {

// When a batch is full (the manifest's `batch:`): each batch and the positions it advances
// commit in one warehouse transaction.
struct BatchConfig {
  // 40,960: whole row groups in the DuckDB files krow writes (see the DuckDB adapter), and
  // within the contract's "at most 50,000 messages".
  int64_t max_messages = 40960;
  int64_t max_bytes = 16ll << 20;
  // A continuous sync (`krow sync --follow`) also hands a batch over once this long has
  // passed since its first message, so that a quiet topic's rows land within it.
  int64_t max_wait_ms = 1000;
};

struct Row {
  Partition partition;
  Offset offset;
  int64_t timestamp_ms = 0;
  contract::TimestampType timestamp_type = contract::TimestampType::none;
  Decoded key;
  Decoded value;
  int32_t value_size_bytes = 0;
  bool is_tombstone = false;
  Slice headers;
  Slice decode_error;  // key and value problems joined, NULL when there were none
};

// A warehouse adapter's own form of a table's rows (its engine's column vectors, say),
// built on the reading thread by Warehouse::encode so that the writing thread only writes.
// `current` is false whenever the rows changed after it was built (a new batch, a replaced
// value), and the adapter then builds it again.
struct EncodedRows {
  virtual ~EncodedRows() = default;
  bool current = false;
};

// The rows of one table (one topic ID) within a batch.
struct TableRows {
  std::string table;  // warehouse table name
  std::string topic;  // Kafka topic name
  TopicId topic_id;
  std::vector<Row> rows;
  std::unique_ptr<EncodedRows> encoded;  // set by the adapter; see EncodedRows
  // The table's typed columns (`columns: from_schema`); null when it has none.
  std::shared_ptr<const rows::TypedLayout> typed;
  // With typed columns: typed->columns.size() cells per row, row after row (rows[i]'s are
  // cells[i * columns .. (i + 1) * columns)); text cells refer to the batch's arena.
  std::vector<rows::TypedCell> cells;
  size_t typed_count() const { return typed ? typed->columns.size() : 0; }
  const rows::TypedCell* cells_of(size_t row) const { return cells.data() + row * typed_count(); }
  // Per partition, the offsets from the first row to one past the last (by partition).
  std::vector<OffsetRange> offset_ranges() const;
};

class RowBatch {
 public:
  // Index of the table slot for a topic ID; creates it on first use, with the table's typed
  // columns (null: none).
  size_t table_slot(const std::string& table, const std::string& topic, const TopicId& topic_id,
                    std::shared_ptr<const rows::TypedLayout> typed = nullptr);

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

  // Removes the rows of one table slot, or only those of `partition` (their text stays in
  // the arena until clear()). Returns the rows removed.
  std::vector<Row> drop_rows(size_t table, std::optional<Partition> partition = std::nullopt);

  // How a column value the warehouse cannot store is stored instead.
  enum class Fallback {
    as_text,  // a JSON column keeps its text, as a JSON string (value_format becomes string)
    as_null,  // the column is NULL
  };
  // Replaces one column of a row that the warehouse refused (`reason` says why; it is added
  // to the row's decode_error), so that the row is stored and its batch commits. Only JSON
  // columns have `as_text`; other columns always become NULL. NOT NULL columns (id, topic ID,
  // partition, offset, tombstone flag) hold what every engine stores and are left alone.
  void replace_unstorable(size_t table, size_t row, contract::ColumnIndex column, Fallback how,
                          std::string_view reason);
  // The same for a typed column (its index in the table's layout): the cell becomes NULL.
  void replace_unstorable_typed(size_t table, size_t row, size_t column, std::string_view reason);

 private:
  // Appends `note` to a row's decode_error.
  void add_note(Row& row, std::string_view note);

  std::string arena_;
  std::vector<TableRows> tables_;
  size_t rows_ = 0;
};

}  // namespace krow
