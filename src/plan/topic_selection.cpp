#include "plan/topic_selection.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "util/text.hpp"

namespace krow {

bool is_internal_topic(const std::string& name) { return !name.empty() && name[0] == '_'; }

bool is_selected(const TopicSelection& s, const std::string& name) {
  for (const auto& g : s.exclude)
    if (fnmatch(g.c_str(), name.c_str(), 0) == 0) return false;
  if (s.selects_all()) return true;
  if (std::find(s.names.begin(), s.names.end(), name) != s.names.end()) return true;
  for (const auto& p : s.prefixes)
    if (name.rfind(p, 0) == 0) return true;
  for (const auto& g : s.globs)
    if (fnmatch(g.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

namespace {

std::string sanitize(const std::string& topic) {
  std::string out;
  for (unsigned char c : topic) {
    if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
    out.push_back((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? static_cast<char>(c) : '_');
  }
  return out;
}

constexpr size_t kSuffixBytes = 9;  // "_" and 8 hex digits

// `base`, cut to leave room for the suffix when `max` requires, with a suffix from a hash
// of the topic's exact name.
std::string with_hash(const std::string& base, const std::string& topic, size_t max) {
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "_%08x", fnv1a(topic));
  const size_t keep = max ? std::min(base.size(), max - kSuffixBytes) : base.size();
  return base.substr(0, keep) + suffix;
}

}  // namespace

std::map<std::string, std::string> table_names(const std::string& sync_id, const std::vector<std::string>& topics,
                                               const std::vector<TableMapping>& recorded, const NameRules& rules) {
  const size_t max = rules.max_identifier_bytes;
  std::map<std::string, std::string> out;
  std::set<std::string> taken;
  for (const auto& m : recorded) taken.insert(m.table);
  for (const auto& m : recorded)
    if (m.sync_id == sync_id) out[m.topic] = m.table;

  std::vector<std::string> fresh;
  for (const auto& t : topics)
    if (!out.count(t)) fresh.push_back(t);
  // Topics whose sanitized name is their own name claim it first, then byte order.
  std::sort(fresh.begin(), fresh.end(), [](const std::string& a, const std::string& b) {
    const bool ea = sanitize(a) == a, eb = sanitize(b) == b;
    return ea != eb ? ea : a < b;
  });
  for (const auto& t : fresh) {
    const std::string base = sanitize(t);
    std::string name = max && base.size() > max ? with_hash(base, t, max) : base;
    // A suffixed name can itself be taken (a topic may be called like one): salt until free.
    for (int salt = 1; taken.count(name); ++salt)
      name = with_hash(base, salt == 1 ? t : t + "#" + std::to_string(salt), max);
    taken.insert(name);
    out[t] = name;
  }
  return out;
}

}  // namespace krow
