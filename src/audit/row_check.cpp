#include "audit/row_check.hpp"

#include <simdjson.h>

#include <map>

#include "codec/format.hpp"

namespace krow::audit {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

std::optional<std::string> slice_text(const Slice& s, const std::string& arena) {
  if (!s.present) return std::nullopt;
  return std::string(s.view(arena));
}

std::optional<std::string> format_text(Format f) {
  if (f == Format::none) return std::nullopt;
  return std::string(format_name(f));
}

std::optional<std::string> schema_text(const std::optional<SchemaId>& id) {
  if (!id) return std::nullopt;
  return std::to_string(id->value());
}

bool same_element(element a, element b);

// An object's members by key, the last of a repeated key winning.
std::map<std::string_view, element> members(element e) {
  std::map<std::string_view, element> out;
  for (auto field : e.get_object()) out[field.key] = field.value;
  return out;
}

bool same_number(element a, element b) {
  const auto ta = a.type(), tb = b.type();
  if (ta == element_type::INT64 && tb == element_type::INT64) return int64_t(a) == int64_t(b);
  if (ta == element_type::UINT64 && tb == element_type::UINT64) return uint64_t(a) == uint64_t(b);
  if (ta == element_type::INT64 && tb == element_type::UINT64)
    return int64_t(a) >= 0 && uint64_t(int64_t(a)) == uint64_t(b);
  if (ta == element_type::UINT64 && tb == element_type::INT64) return same_number(b, a);
  double x = 0, y = 0;
  if (a.get_double().get(x) != simdjson::SUCCESS || b.get_double().get(y) != simdjson::SUCCESS)
    return false;
  return x == y;
}

bool is_number(element_type t) {
  return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}

bool same_element(element a, element b) {
  const auto ta = a.type(), tb = b.type();
  if (is_number(ta) && is_number(tb)) return same_number(a, b);
  if (ta != tb) return false;
  switch (ta) {
    case element_type::OBJECT: {
      const auto ma = members(a), mb = members(b);
      if (ma.size() != mb.size()) return false;
      for (const auto& [key, value] : ma) {
        const auto it = mb.find(key);
        if (it == mb.end() || !same_element(value, it->second)) return false;
      }
      return true;
    }
    case element_type::ARRAY: {
      auto ia = a.get_array(), ib = b.get_array();
      if (ia.size() != ib.size()) return false;
      auto x = ia.begin(), y = ib.begin();
      for (; x != ia.end(); ++x, ++y)
        if (!same_element(*x, *y)) return false;
      return true;
    }
    case element_type::STRING:
      return std::string_view(a) == std::string_view(b);
    case element_type::BOOL:
      return bool(a) == bool(b);
    case element_type::NULL_VALUE:
      return true;
    default:
      return false;
  }
}

bool same_cell(const std::optional<std::string>& a, const std::optional<std::string>& b,
               bool json) {
  if (!a || !b) return !a && !b;
  if (*a == *b) return true;
  return json && same_json(*a, *b);
}

}  // namespace

bool same_json(std::string_view a, std::string_view b) {
  if (a == b) return true;
  simdjson::dom::parser pa, pb;
  element ea, eb;
  const simdjson::padded_string sa(a), sb(b);
  if (pa.parse(sa).get(ea) != simdjson::SUCCESS || pb.parse(sb).get(eb) != simdjson::SUCCESS)
    return false;
  return same_element(ea, eb);
}

Cells expected_cells(const Row& row, const TopicId& topic_id, const std::string& arena) {
  using namespace contract;
  Cells c;
  std::string id;
  append_id(id, topic_id, row.partition, row.offset);
  c[kId] = id;
  c[kTopicId] = topic_id.str();
  c[kPartition] = std::to_string(row.partition.value());
  c[kOffset] = std::to_string(row.offset.value());
  if (row.timestamp_type != TimestampType::none) {
    c[kTimestamp] = std::to_string(row.timestamp_ms);
    c[kTimestampType] = std::string(timestamp_type_name(row.timestamp_type));
  }
  c[kKey] = slice_text(row.key.text, arena);
  c[kKeyFormat] = format_text(row.key.format);
  c[kKeySchemaId] = schema_text(row.key.schema_id);
  c[kValue] = slice_text(row.value.text, arena);
  c[kValueFormat] = format_text(row.value.format);
  c[kValueSchemaId] = schema_text(row.value.schema_id);
  c[kValueBase64] = slice_text(row.value.base64, arena);
  c[kValueSize] = std::to_string(row.value_size_bytes);
  c[kHeaders] = slice_text(row.headers, arena);
  c[kTombstone] = row.is_tombstone ? "true" : "false";
  c[kDecodeError] = slice_text(row.decode_error, arena);
  return c;
}

std::vector<std::string_view> differing_columns(const Cells& expected, const Cells& stored) {
  using namespace contract;
  // Notes the engine added after decoding's own (a value stored another way, a typed misfit).
  const auto& said = expected[kDecodeError];
  const auto& kept = stored[kDecodeError];
  bool noted = false;
  bool error_differs = false;
  if (kept &&
      (!said || (kept->size() > said->size() && kept->compare(0, said->size(), *said) == 0)))
    noted = true;
  else
    error_differs = !same_cell(said, kept, false);
  std::vector<std::string_view> out;
  for (size_t i = 0; i < kColumnCount; ++i) {
    if (i == kDecodeError) {
      if (error_differs) out.push_back(kColumns[i].name);
      continue;
    }
    if (noted && (i == kValue || i == kValueFormat || i == kHeaders || i == kKey)) continue;
    if (!same_cell(expected[i], stored[i], kColumns[i].type == ColumnType::json))
      out.push_back(kColumns[i].name);
  }
  return out;
}

}  // namespace krow::audit
