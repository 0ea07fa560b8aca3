#include "columns/column_names.hpp"

#include <simdjson.h>

#include <cstdio>
#include <map>
#include <set>

#include "contract/row_contract.hpp"
#include "util/text.hpp"

namespace krow::columns {

namespace {

constexpr size_t kSuffixBytes = 9;  // "_" and 8 hex digits
constexpr std::string_view kCollisionPrefix = "value__";

std::string clean(const std::string& field) {
  if (field.empty()) return "_";
  std::string out = field;
  for (auto& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '_';
  return out;
}

// Rule 2: a metadata column's name, or one in the variant columns' namespace.
bool reserved(const std::string& name) {
  const auto lower = lower_ascii(name);
  if (lower.rfind(kVariantPrefix, 0) == 0) return true;
  for (const auto& c : contract::kColumns)
    if (lower == c.name) return true;
  return false;
}

// The first `max` bytes of `text` or fewer, never splitting a UTF-8 character.
std::string utf8_prefix(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n);
}

std::string with_hash(const std::string& base, const std::string& hashed, size_t max) {
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "_%08x", fnv1a(hashed));
  return (max ? utf8_prefix(base, max - kSuffixBytes) : base) + suffix;
}

// A limit too small for a suffix is no limit krow can honour; engines have 63 bytes or more.
size_t usable_limit(size_t max_bytes) {
  return max_bytes > 0 && max_bytes <= kSuffixBytes ? 0 : max_bytes;
}

// Rules 1 and 2: the name a path asks for, before any limit or collision.
std::string base_name(const std::vector<std::string>& path, const std::string& separator) {
  std::string base;
  if (path.empty()) base = "value";
  for (const auto& field : path) {
    if (!base.empty()) base += separator;
    base += clean(field);
  }
  if (reserved(base)) base = std::string(kCollisionPrefix) + base;
  return base;
}

// Rule 3 applied to `base`.
std::string plain_name(const std::string& base, size_t max_bytes) {
  return max_bytes && base.size() > max_bytes ? with_hash(base, base, max_bytes) : base;
}

// Rule 4: `name`, or when `taken` (lower-case ASCII) has it, a hashed name that it has not.
std::string free_name(std::string name, const std::string& base,
                      const std::vector<std::string>& path, const std::set<std::string>& taken,
                      size_t max_bytes) {
  const std::string text = path_text(path);
  for (int salt = 1; taken.count(lower_ascii(name)); ++salt)
    name = with_hash(base, salt == 1 ? text : text + "#" + std::to_string(salt), max_bytes);
  return name;
}

std::set<std::string> metadata_names() {
  std::set<std::string> out;
  for (const auto& c : contract::kColumns) out.insert(std::string(c.name));
  return out;
}

}  // namespace

std::string bounded_name(const std::string& name, size_t max_bytes) {
  if (max_bytes <= kSuffixBytes || name.size() <= max_bytes) return name;
  return with_hash(name, name, max_bytes);
}

void assign_names(std::vector<ColumnSpec>& columns, const std::string& separator,
                  size_t max_bytes) {
  max_bytes = usable_limit(max_bytes);
  auto taken = metadata_names();  // lower-case ASCII
  for (auto& column : columns) {
    const auto base = base_name(column.path, separator);
    column.name = free_name(plain_name(base, max_bytes), base, column.path, taken, max_bytes);
    taken.insert(lower_ascii(column.name));
  }
}

void bind_names(std::vector<ColumnSpec>& columns, const std::vector<ColumnBinding>& bindings,
                const std::vector<std::string>& table_columns, const std::string& separator,
                size_t max_bytes) {
  max_bytes = usable_limit(max_bytes);
  std::map<std::vector<std::string>, std::string> bound;
  auto taken = metadata_names();  // lower-case ASCII: every name the table has or has given away
  for (const auto& b : bindings) {
    bound.emplace(b.path, b.column);
    taken.insert(lower_ascii(b.column));
  }
  std::set<std::string> unbound;  // the table's columns no field is bound to (exact names)
  for (const auto& c : table_columns) {
    if (!taken.count(lower_ascii(c)) && lower_ascii(c).rfind(kVariantPrefix, 0) != 0)
      unbound.insert(c);
    taken.insert(lower_ascii(c));
  }
  for (auto& column : columns) {
    column.wanted.clear();
    if (const auto it = bound.find(column.path); it != bound.end()) column.name = it->second;
  }
  for (auto& column : columns) {
    if (bound.count(column.path)) continue;
    const auto base = base_name(column.path, separator);
    auto name = plain_name(base, max_bytes);
    if (unbound.erase(name)) {
      column.name = std::move(name);  // taken already, by this very column
      continue;
    }
    if (taken.count(lower_ascii(name))) column.wanted = name;
    column.name = free_name(std::move(name), base, column.path, taken, max_bytes);
    taken.insert(lower_ascii(column.name));
  }
}

std::vector<ColumnBinding> bindings_of(const std::vector<ColumnSpec>& columns) {
  std::vector<ColumnBinding> out;
  for (const auto& c : columns)
    if (!c.retired && c.name.rfind(kVariantPrefix, 0) != 0) out.push_back({c.path, c.name});
  return out;
}

std::string path_key(const std::vector<std::string>& path) {
  std::string out = "[";
  for (size_t i = 0; i < path.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, path[i]);
  }
  return out + "]";
}

std::optional<std::vector<std::string>> path_of_key(const std::string& key) {
  simdjson::dom::parser parser;
  simdjson::dom::array items;
  if (parser.parse(key).get(items) != simdjson::SUCCESS) return std::nullopt;
  std::vector<std::string> out;
  for (auto item : items) {
    std::string_view field;
    if (item.get(field) != simdjson::SUCCESS) return std::nullopt;
    out.emplace_back(field);
  }
  return out;
}

}  // namespace krow::columns
