#include "columns/column_names.hpp"

#include <cstdio>
#include <set>

#include "rows/row_contract.hpp"
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

bool is_metadata(const std::string& name) {
  const auto lower = lower_ascii(name);
  for (const auto& c : rows::kColumns)
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

}  // namespace

std::string bounded_name(const std::string& name, size_t max_bytes) {
  if (max_bytes <= kSuffixBytes || name.size() <= max_bytes) return name;
  return with_hash(name, name, max_bytes);
}

void assign_names(std::vector<ColumnSpec>& columns, const std::string& separator,
                  size_t max_bytes) {
  // A limit too small for a suffix is no limit krow can honour; engines have 63 bytes or more.
  if (max_bytes > 0 && max_bytes <= kSuffixBytes) max_bytes = 0;
  std::set<std::string> taken;  // lower-case ASCII
  for (const auto& c : rows::kColumns) taken.insert(std::string(c.name));
  for (auto& column : columns) {
    std::string base;
    if (column.path.empty()) base = "value";
    for (const auto& field : column.path) {
      if (!base.empty()) base += separator;
      base += clean(field);
    }
    if (is_metadata(base)) base = std::string(kCollisionPrefix) + base;
    std::string name =
        max_bytes && base.size() > max_bytes ? with_hash(base, base, max_bytes) : base;
    const std::string path = path_text(column.path);
    for (int salt = 1; taken.count(lower_ascii(name)); ++salt)
      name = with_hash(base, salt == 1 ? path : path + "#" + std::to_string(salt), max_bytes);
    taken.insert(lower_ascii(name));
    column.name = std::move(name);
  }
}

}  // namespace krow::columns
