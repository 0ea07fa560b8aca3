#include "settings/section.hpp"

#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "util/error.hpp"

namespace krow {

namespace {

size_t distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest(const std::string& key, const std::vector<std::string>& allowed) {
  std::string best;
  size_t best_d = 3;  // suggest only near misses
  for (const auto& a : allowed) {
    const auto d = distance(key, a);
    if (d < best_d) best_d = d, best = a;
  }
  return best;
}

}  // namespace

void ManifestReader::fail(const YAML::Node& at, const std::string& what) const {
  std::ostringstream msg;
  msg << file_.string();
  if (at.IsDefined() && at.Mark().line >= 0) msg << ":" << at.Mark().line + 1;
  msg << ": " << what;
  throw Error(ErrorClass::config, msg.str());
}

void ManifestReader::check_keys(const YAML::Node& map, const std::string& where,
                                const std::vector<std::string>& allowed) const {
  if (!map.IsMap()) fail(map, where + " must be a mapping of keys to values");
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) fail(kv.first, "keys in " + where + " must be plain names");
    const auto key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string msg = "unknown key '" + key + "' in " + where;
    if (auto near = closest(key, allowed); !near.empty()) msg += "; did you mean '" + near + "'?";
    msg += " (allowed: ";
    for (size_t i = 0; i < allowed.size(); ++i) msg += (i ? ", " : "") + allowed[i];
    fail(kv.first, msg + ")");
  }
}

std::string ManifestReader::text(const YAML::Node& node, const std::string& key) const {
  if (!node.IsScalar()) fail(node, "'" + key + "' must be a single value");
  return substitute(node, node.Scalar(), key);
}

bool ManifestReader::boolean(const YAML::Node& node, const std::string& key) const {
  const auto v = text(node, key);
  if (v == "true" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "no" || v == "off") return false;
  fail(node, "'" + key + "' must be true or false, not '" + v + "'");
}

int64_t ManifestReader::size(const YAML::Node& node, const std::string& key, int64_t min,
                             int64_t max) const {
  const auto v = text(node, key);
  static const std::regex re(R"(^\s*(\d+)\s*(|[KMG]i?B|[kKMG])\s*$)");
  std::smatch m;
  if (!std::regex_match(v, m, re))
    fail(node,
         "'" + key + "' must be a whole number (optionally with KiB, MiB or GiB), not '" + v + "'");
  int64_t n = 0;
  try {
    n = std::stoll(m[1]);
  } catch (...) {
    fail(node, "'" + key + "' is too large");
  }
  const std::string unit = m[2];
  int64_t scale = 1;
  if (!unit.empty()) {
    const bool binary = unit.size() == 3 || unit.size() == 1;
    const int64_t base = binary ? 1024 : 1000;
    const char u = static_cast<char>(std::toupper(unit[0]));
    scale = u == 'K' ? base : u == 'M' ? base * base : base * base * base;
  }
  if (n > max / scale || n * scale < min || n * scale > max)
    fail(node, "'" + key + "' must be between " + std::to_string(min) + " and " +
                   std::to_string(max) + ", not " + v);
  return n * scale;
}

std::vector<std::string> ManifestReader::list(const YAML::Node& node,
                                              const std::string& key) const {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(text(node, key));
    return out;
  }
  if (!node.IsSequence()) fail(node, "'" + key + "' must be a list of strings");
  for (const auto& item : node) out.push_back(text(item, key));
  return out;
}

std::string ManifestReader::one_of(const YAML::Node& node, const std::string& key,
                                   const std::vector<std::string>& choices) const {
  auto v = text(node, key);
  for (const auto& c : choices)
    if (strcasecmp(c.c_str(), v.c_str()) == 0) return c;
  std::string msg = "'" + key + "' must be one of ";
  for (size_t i = 0; i < choices.size(); ++i) msg += (i ? ", " : "") + choices[i];
  fail(node, msg + "; got '" + v + "'");
}

std::filesystem::path ManifestReader::base() const {
  return file_.has_parent_path() ? file_.parent_path() : std::filesystem::path(".");
}

std::string ManifestReader::substitute(const YAML::Node& at, const std::string& in,
                                       const std::string& key) const {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '$' || i + 1 >= in.size()) {
      out.push_back(in[i]);
      continue;
    }
    if (in[i + 1] == '$') {
      out.push_back('$');
      ++i;
      continue;
    }
    if (in[i + 1] != '{') {
      out.push_back('$');
      continue;
    }
    const auto close = in.find('}', i + 2);
    if (close == std::string::npos) fail(at, "'" + key + "' has an unclosed '${'");
    const auto name = in.substr(i + 2, close - i - 2);
    static const std::regex ok(R"(^[A-Za-z_][A-Za-z0-9_]*$)");
    if (!std::regex_match(name, ok))
      fail(at, "'" + key + "' refers to '${" + name + "}', which is not a valid variable name");
    const char* value = env_ ? env_(name.c_str()) : std::getenv(name.c_str());
    if (value == nullptr)
      fail(at, "'" + key + "' uses ${" + name + "}, but the environment variable " + name +
                   " is not set; export it before running krow");
    out += value;
    i = close;
  }
  return out;
}

std::string Section::required_text(const std::string& key, const std::string& example) const {
  if (!has(key)) fail({}, where_ + "." + key + " is required (" + example + ")");
  auto v = text(key);
  if (v.empty()) fail(key, where_ + "." + key + " is empty (" + example + ")");
  return v;
}

std::filesystem::path Section::path(const std::string& key) const {
  std::filesystem::path p = text(key);
  return p.is_relative() ? reader_.base() / p : p;
}

void Section::fail(const std::string& key, const std::string& what) const {
  const auto at = key.empty() ? node_ : node_[key];
  reader_.fail(at.IsDefined() ? at : node_, what);
}

namespace {

void collect_env_references(const YAML::Node& node, const std::string& key,
                            std::vector<EnvReference>& out) {
  if (node.IsMap()) {
    for (const auto& kv : node)
      collect_env_references(kv.second,
                             key.empty() ? kv.first.Scalar() : key + "." + kv.first.Scalar(), out);
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i)
      collect_env_references(node[i], key + "[" + std::to_string(i) + "]", out);
  } else if (node.IsScalar()) {
    static const std::regex ok(R"(^[A-Za-z_][A-Za-z0-9_]*$)");
    const auto& in = node.Scalar();
    for (size_t i = 0; i + 1 < in.size(); ++i) {
      if (in[i] != '$') continue;
      if (in[i + 1] == '$') {  // "$$": a literal "$"
        ++i;
        continue;
      }
      if (in[i + 1] != '{') continue;
      const auto close = in.find('}', i + 2);
      if (close == std::string::npos) return;
      const auto name = in.substr(i + 2, close - i - 2);
      if (std::regex_match(name, ok)) out.push_back({name, key, node.Mark().line + 1});
      i = close;
    }
  }
}

}  // namespace

std::vector<EnvReference> env_references(const std::filesystem::path& file) {
  std::vector<EnvReference> out;
  try {
    collect_env_references(YAML::LoadFile(file.string()), {}, out);
  } catch (const YAML::Exception&) {
    out.clear();
  }
  return out;
}

}  // namespace krow
