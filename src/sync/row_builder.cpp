#include "sync/row_builder.hpp"

#include "codec/headers_json.hpp"

namespace krow {

void RowBuilder::add_typed(TableRows& table, Row& row, std::string& arena) {
  const size_t n = table.typed->columns.size();
  table.cells.resize(table.cells.size() + n);
  rows::TypedCell* cells = table.cells.data() + table.cells.size() - n;
  // A value that is not JSON text (binary, raw schema_registry bytes, a tombstone) fills no
  // column: its cells stay NULL, and its decode_error already says why.
  if (!row.value.text.present) return;
  notes_.clear();
  typed_.extract(row.value.text.view(arena), *table.typed, cells, arena, notes_);
  if (notes_.empty()) return;
  const size_t start = arena.size();
  if (row.decode_error.present) {
    arena.append(row.decode_error.view(arena)).append("; ");
  }
  arena.append(notes_);
  row.decode_error = slice_since(arena, start);
}

const Row& RowBuilder::add(const kafka::Message& m, RowBatch& batch, size_t slot) {
  auto& arena = batch.arena();
  TableRows& table = batch.tables()[slot];
  Row& row = table.rows.emplace_back();
  batch.count_row();
  row.partition = m.partition();
  row.offset = m.offset();
  rd_kafka_timestamp_type_t ts_type;
  row.timestamp_ms = m.timestamp(&ts_type);
  row.timestamp_type =
      ts_type == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? contract::TimestampType::create_time
      : ts_type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? contract::TimestampType::log_append_time
                                                      : contract::TimestampType::none;
  row.key = decoder_.decode_key(m.key(), m.key_size(), m.has_key(), arena);
  if (m.has_value()) {
    row.value = decoder_.decode_value(m.value(), m.value_size(), arena);
    row.value_size_bytes = static_cast<int32_t>(m.value_size());
  } else {
    row.is_tombstone = true;
  }
  HeadersJson headers(arena);
  m.for_each_header([&](std::string_view name, const void* value, size_t size) { headers.add(name, value, size); });
  row.headers = headers.finish();
  if (row.key.error.present && row.value.error.present) {
    const size_t start = arena.size();
    arena.append(row.key.error.view(arena)).append("; ").append(row.value.error.view(arena));
    row.decode_error = slice_since(arena, start);
  } else {
    row.decode_error = row.key.error.present ? row.key.error : row.value.error;
  }
  if (table.typed) add_typed(table, row, arena);
  return row;
}

}  // namespace krow
