#include "rows/row_batch.hpp"

#include <algorithm>
#include <map>

#include "util/text.hpp"

namespace krow {

size_t RowBatch::table_slot(const std::string& table, const std::string& topic, const TopicId& topic_id,
                            std::shared_ptr<const rows::TypedLayout> typed) {
  for (size_t i = 0; i < tables_.size(); ++i)
    if (tables_[i].topic_id == topic_id) return i;
  tables_.push_back(TableRows{table, topic, topic_id, {}, nullptr, std::move(typed), {}});
  return tables_.size() - 1;
}

void RowBatch::clear() {
  arena_.clear();
  // Slots stay, with their row capacity, for the next batch; the sink skips empty ones.
  for (auto& t : tables_) {
    t.rows.clear();
    t.cells.clear();
    if (t.encoded) t.encoded->current = false;
  }
  rows_ = 0;
}

std::vector<OffsetRange> TableRows::offset_ranges() const {
  std::map<Partition, std::pair<Offset, Offset>> by_partition;
  for (const Row& row : rows) {
    auto [it, fresh] = by_partition.try_emplace(row.partition, row.offset, row.offset);
    if (!fresh) {
      it->second.first = std::min(it->second.first, row.offset);
      it->second.second = std::max(it->second.second, row.offset);
    }
  }
  std::vector<OffsetRange> out;
  for (const auto& [partition, range] : by_partition)
    out.push_back({topic_id, partition, range.first, Offset(range.second.value() + 1)});
  return out;
}

std::vector<Row> RowBatch::drop_rows(size_t table, std::optional<Partition> partition) {
  auto& t = tables_[table];
  std::vector<Row> dropped;
  const size_t width = t.typed_count();
  size_t kept = 0;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    if (!partition || t.rows[i].partition == *partition) {
      dropped.push_back(t.rows[i]);
      continue;
    }
    if (kept != i) {
      t.rows[kept] = t.rows[i];
      std::copy_n(t.cells.begin() + static_cast<std::ptrdiff_t>(i * width), width,
                  t.cells.begin() + static_cast<std::ptrdiff_t>(kept * width));
    }
    ++kept;
  }
  t.rows.resize(kept);
  t.cells.resize(kept * width);
  rows_ -= dropped.size();
  if (t.encoded) t.encoded->current = false;
  return dropped;
}

void RowBatch::replace_unstorable(size_t table, size_t row_index, contract::ColumnIndex column,
                                  Fallback how, std::string_view reason) {
  Row& row = tables_[table].rows[row_index];
  if (tables_[table].encoded) tables_[table].encoded->current = false;
  const std::string column_name(contract::kColumns[column].name);
  auto as_text = [&](Slice& json) {
    const auto text = std::string(json.view(arena_));  // the arena may move while it grows
    const size_t start = arena_.size();
    append_json_string(arena_, text);
    json = slice_since(arena_, start);
  };
  std::string note;
  switch (column) {
    case contract::kValue:
      if (how == Fallback::as_text && row.value.text.present) {
        as_text(row.value.text);
        row.value.format = Format::string;
        note = "value stored as its JSON text in a string: ";
      } else {
        row.value.text = {};
        note = "value not stored: ";
      }
      break;
    case contract::kHeaders:
      if (how == Fallback::as_text && row.headers.present) {
        as_text(row.headers);
        note = "headers stored as their JSON text in a string: ";
      } else {
        row.headers = {};
        note = "headers not stored: ";
      }
      break;
    case contract::kKey:
      row.key.text = {};
      break;
    case contract::kKeyFormat:
      row.key.format = Format::none;
      break;
    case contract::kKeySchemaId:
      row.key.schema_id.reset();
      break;
    case contract::kValueFormat:
      row.value.format = Format::none;
      break;
    case contract::kValueSchemaId:
      row.value.schema_id.reset();
      break;
    case contract::kValueBase64:
      row.value.base64 = {};
      break;
    case contract::kTimestamp:
    case contract::kTimestampType:
      row.timestamp_type = contract::TimestampType::none;
      break;
    case contract::kDecodeError:
      row.decode_error = {};
      break;
    default: return;  // NOT NULL columns
  }
  if (note.empty()) note = column_name + " not stored: ";
  note.append(reason);
  add_note(row, note);
}

void RowBatch::replace_unstorable_typed(size_t table, size_t row_index, size_t column, std::string_view reason) {
  auto& t = tables_[table];
  if (t.encoded) t.encoded->current = false;
  t.cells[row_index * t.typed_count() + column] = rows::TypedCell{};
  add_note(t.rows[row_index], "column " + t.typed->columns[column].name + " not stored: " + std::string(reason));
}

void RowBatch::add_note(Row& row, std::string_view note) {
  const size_t start = arena_.size();
  if (row.decode_error.present) {
    const auto before = std::string(row.decode_error.view(arena_));
    arena_.append(before).append("; ");
  }
  arena_.append(note);
  row.decode_error = slice_since(arena_, start);
}

}  // namespace krow
