#include "manifest/quality.hpp"

#include <cmath>
#include <regex>
#include <set>

namespace krow {

const char* gate_type_name(GateType t) {
  switch (t) {
    case GateType::row_count_reconciliation: return "row_count_reconciliation";
    case GateType::min_rows: return "min_rows";
    case GateType::max_decode_errors: return "max_decode_errors";
    case GateType::max_lag_after: return "max_lag_after";
    case GateType::freshness: return "freshness";
  }
  return "unknown";
}

const char* publish_mode_name(PublishMode m) { return m == PublishMode::staged ? "staged" : "per_batch"; }

std::optional<int64_t> parse_duration_ms(const std::string& text) {
  static const std::regex re(R"(^\s*(\d{1,9})\s*(ms|s|m|h|d|)\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  const int64_t n = std::stoll(m[1]);
  const std::string unit = m[2];
  if (unit == "ms") return n;
  const int64_t scale = unit == "m" ? 60 : unit == "h" ? 3600 : unit == "d" ? 86400 : 1;
  return n * scale * 1000;
}

namespace {

double number(const ManifestReader& r, const YAML::Node& node, const std::string& key, double min, double max) {
  const auto v = r.text(node, key);
  try {
    size_t used = 0;
    const double d = std::stod(v, &used);
    if (used == v.size() && std::isfinite(d) && d >= min && d <= max) return d;
  } catch (...) {
  }
  r.fail(node, "'" + key + "' must be a number from " + std::to_string(min) + " to " + std::to_string(max) +
                   ", not '" + v + "'");
}

// The keys each gate type takes besides id, type, severity and tables.
std::vector<std::string> gate_keys(GateType t) {
  std::vector<std::string> keys{"id", "type", "severity", "tables"};
  switch (t) {
    case GateType::row_count_reconciliation: keys.push_back("tolerance"); break;
    case GateType::min_rows: keys.insert(keys.end(), {"side", "min"}); break;
    case GateType::max_decode_errors: keys.insert(keys.end(), {"max", "max_ratio"}); break;
    case GateType::max_lag_after: keys.push_back("max"); break;
    case GateType::freshness: keys.push_back("max_age"); break;
  }
  return keys;
}

GateConfig read_gate(const ManifestReader& r, const YAML::Node& node, size_t index) {
  const std::string where = "quality.gates[" + std::to_string(index) + "]";
  if (!node.IsMap()) r.fail(node, where + " must be a mapping with id, type and the type's settings");
  GateConfig g;
  if (!node["type"])
    r.fail(node, where + " needs a type: row_count_reconciliation, min_rows, max_decode_errors, max_lag_after or "
                         "freshness");
  const auto type = r.one_of(node["type"], "type",
                             {"row_count_reconciliation", "min_rows", "max_decode_errors", "max_lag_after", "freshness"});
  for (auto t : {GateType::row_count_reconciliation, GateType::min_rows, GateType::max_decode_errors,
                 GateType::max_lag_after, GateType::freshness})
    if (type == gate_type_name(t)) g.type = t;
  r.check_keys(node, where + " (" + type + ")", gate_keys(g.type));
  if (!node["id"]) r.fail(node, where + " needs an id: a short name that findings and run records use");
  g.id = r.text(node["id"], "id");
  static const std::regex id_ok(R"(^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$)");
  if (!std::regex_match(g.id, id_ok))
    r.fail(node["id"], "gate id must be 1-64 letters, digits, '.', '_' or '-', not '" + g.id + "'");
  if (auto n = node["severity"]) g.severity = r.one_of(n, "severity", {"error", "warn"}) == "warn" ? GateSeverity::warn
                                                                                                    : GateSeverity::error;
  if (auto n = node["tables"]) g.tables = r.list(n, "tables");
  switch (g.type) {
    case GateType::row_count_reconciliation:
      if (auto n = node["tolerance"]) {
        r.check_keys(n, where + ".tolerance", {"pct", "abs"});
        if (n["pct"] && n["abs"]) r.fail(n, where + ".tolerance takes pct or abs, not both");
        if (auto v = n["pct"]) g.tolerance_pct = number(r, v, "pct", 0, 100);
        else if (auto v = n["abs"]) g.tolerance_abs = r.size(v, "abs", 0, int64_t(1) << 62);
        else r.fail(n, where + ".tolerance needs pct (a percentage, e.g. 0.1) or abs (a row count)");
      }
      break;
    case GateType::min_rows:
      if (auto n = node["side"]) g.side = r.one_of(n, "side", {"written", "target"}) == "target" ? RowSide::target
                                                                                                  : RowSide::written;
      if (auto n = node["min"]) g.min = r.size(n, "min", 0, int64_t(1) << 62);
      break;
    case GateType::max_decode_errors:
      if (auto n = node["max"]) g.max = r.size(n, "max", 0, int64_t(1) << 62);
      if (auto n = node["max_ratio"]) g.max_ratio = number(r, n, "max_ratio", 0, 1);
      if (!g.max && !g.max_ratio) g.max = 0;
      break;
    case GateType::max_lag_after:
      g.max = node["max"] ? r.size(node["max"], "max", 0, int64_t(1) << 62) : 0;
      break;
    case GateType::freshness: {
      if (!node["max_age"]) r.fail(node, where + " (freshness) needs max_age, e.g. 15m, 2h or 1d");
      g.max_age_text = r.text(node["max_age"], "max_age");
      const auto ms = parse_duration_ms(g.max_age_text);
      if (!ms || *ms == 0)
        r.fail(node["max_age"], "max_age must be a duration such as 90s, 15m, 2h or 1d, not '" + g.max_age_text + "'");
      g.max_age_ms = *ms;
      break;
    }
  }
  return g;
}

}  // namespace

QualityConfig read_quality(const ManifestReader& r, const YAML::Node& node) {
  r.check_keys(node, "quality", {"publish", "gates"});
  QualityConfig q;
  if (auto n = node["publish"])
    q.publish = r.one_of(n, "publish", {"per_batch", "staged"}) == "staged" ? PublishMode::staged : PublishMode::per_batch;
  if (auto n = node["gates"]; n && !n.IsNull()) {  // `gates:` with nothing after it: none
    if (!n.IsSequence()) r.fail(n, "quality.gates must be a list of gates, each with id, type and its settings");
    std::set<std::string> ids;
    for (size_t i = 0; i < n.size(); ++i) {
      auto g = read_gate(r, n[i], i);
      if (!ids.insert(g.id).second) r.fail(n[i]["id"], "gate id '" + g.id + "' is used twice; each gate needs its own");
      q.gates.push_back(std::move(g));
    }
  }
  return q;
}

}  // namespace krow
