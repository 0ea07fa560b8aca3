#include "plan/quality_gates.hpp"

#include <algorithm>
#include <cstdio>

#include "util/text.hpp"

namespace krow {

namespace {

std::string count(int64_t n) { return with_thousands(static_cast<uint64_t>(std::max<int64_t>(n, 0))); }

std::string percent(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%%", p);
  return buf;
}

// "3h 2m", "45s": an age for people.
std::string age(int64_t ms) {
  const int64_t s = std::max<int64_t>(ms, 0) / 1000;
  char buf[64];
  if (s >= 86400) std::snprintf(buf, sizeof buf, "%lldd %lldh", (long long)(s / 86400), (long long)(s % 86400 / 3600));
  else if (s >= 3600) std::snprintf(buf, sizeof buf, "%lldh %lldm", (long long)(s / 3600), (long long)(s % 3600 / 60));
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%lldm %llds", (long long)(s / 60), (long long)(s % 60));
  else std::snprintf(buf, sizeof buf, "%llds", (long long)s);
  return buf;
}

bool applies(const GateConfig& g, const TableFacts& t) {
  return g.tables.empty() || std::find_if(g.tables.begin(), g.tables.end(), [&](const std::string& n) {
                               return n == t.table || n == t.topic;
                             }) != g.tables.end();
}

// One table against one gate: whether it passes, and what was measured.
std::pair<bool, std::string> check(const GateConfig& g, const TableFacts& t, int64_t now_ms) {
  switch (g.type) {
    case GateType::row_count_reconciliation: {
      const int64_t apart = std::abs(t.messages_read - t.rows_written);
      const double pct = t.messages_read > 0 ? 100.0 * static_cast<double>(apart) / static_cast<double>(t.messages_read)
                                             : (apart > 0 ? 100.0 : 0.0);
      bool ok = apart == 0;
      std::string tolerance = "tolerance 0";
      if (g.tolerance_pct) ok = pct <= *g.tolerance_pct, tolerance = "tolerance " + percent(*g.tolerance_pct);
      if (g.tolerance_abs) ok = apart <= *g.tolerance_abs, tolerance = "tolerance " + count(*g.tolerance_abs);
      return {ok, count(t.messages_read) + " messages read, " + count(t.rows_written) + " rows written (" +
                      count(apart) + " apart, " + percent(pct) + "; " + tolerance + ")"};
    }
    case GateType::min_rows: {
      const int64_t n = g.side == RowSide::target ? t.rows_in_table : t.rows_written;
      return {n >= g.min, count(n) + (g.side == RowSide::target ? " rows in the table" : " rows written") + " (min " +
                              count(g.min) + ")"};
    }
    case GateType::max_decode_errors: {
      const double ratio =
          t.messages_read > 0 ? static_cast<double>(t.decode_errors) / static_cast<double>(t.messages_read) : 0.0;
      bool ok = true;
      std::string limits;
      if (g.max) ok &= t.decode_errors <= *g.max, limits = "max " + count(*g.max);
      if (g.max_ratio) {
        ok &= ratio <= *g.max_ratio;
        limits += (limits.empty() ? "" : ", ") + std::string("max_ratio ") + percent(*g.max_ratio * 100);
      }
      return {ok, count(t.decode_errors) + " decode errors in " + count(t.messages_read) + " messages (" +
                      percent(ratio * 100) + "; " + limits + ")"};
    }
    case GateType::max_lag_after:
      return {t.lag_after <= g.max.value_or(0), count(t.lag_after) + " offsets left behind the boundary (max " +
                                                      count(g.max.value_or(0)) + ")"};
    case GateType::freshness:
      if (!t.newest_ms) return {false, "no row with a kafka_timestamp (max_age " + g.max_age_text + ")"};
      return {now_ms - *t.newest_ms <= g.max_age_ms, "newest kafka_timestamp " + utc_time(*t.newest_ms) + ", " +
                                                         age(now_ms - *t.newest_ms) + " old (max_age " +
                                                         g.max_age_text + ")"};
  }
  return {false, "unknown gate type"};
}

}  // namespace

GateNeeds gate_needs(const QualityConfig& quality) {
  GateNeeds n;
  for (const auto& g : quality.gates) {
    n.rows_written |= g.type == GateType::row_count_reconciliation ||
                      (g.type == GateType::min_rows && g.side == RowSide::written);
    n.rows_in_table |= g.type == GateType::freshness || (g.type == GateType::min_rows && g.side == RowSide::target);
  }
  return n;
}

std::string check_gate_tables(const QualityConfig& quality, const std::vector<TableFacts>& tables) {
  for (const auto& g : quality.gates)
    for (const auto& name : g.tables)
      if (std::none_of(tables.begin(), tables.end(),
                       [&](const TableFacts& t) { return t.table == name || t.topic == name; })) {
        std::string known;
        for (const auto& t : tables) known += (known.empty() ? "" : ", ") + t.table;
        return "quality gate '" + g.id + "' names '" + name + "' in tables, which is neither a table nor a topic of "
               "this sync (" + (known.empty() ? "it selects no topic" : "its tables: " + known) + ")";
      }
  return {};
}

std::vector<GateFinding> evaluate_gates(const QualityConfig& quality, const std::vector<TableFacts>& tables,
                                        int64_t now_ms) {
  std::vector<GateFinding> out;
  for (const auto& g : quality.gates) {
    GateFinding f{g.id, g.type, g.severity, true, {}};
    std::string failing, passing;
    for (const auto& t : tables) {
      if (!applies(g, t)) continue;
      const auto [ok, what] = check(g, t, now_ms);
      auto& into = ok ? passing : failing;
      into += (into.empty() ? "" : "; ") + t.table + ": " + what;
      f.passed &= ok;
    }
    // A failing gate leads with what failed; the tables that passed follow.
    f.finding = failing.empty() ? passing : failing + (passing.empty() ? "" : "; passed: " + passing);
    if (f.finding.empty()) f.finding = "no table to check";
    out.push_back(std::move(f));
  }
  return out;
}

bool gates_block(const std::vector<GateFinding>& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const GateFinding& f) { return !f.passed && f.severity == GateSeverity::error; });
}

void write_findings_json(JsonWriter& w, const std::vector<GateFinding>& findings) {
  w.begin_array();
  for (const auto& f : findings)
    w.begin_object()
        .field("id", f.id)
        .field("type", gate_type_name(f.type))
        .field("severity", f.severity == GateSeverity::error ? "error" : "warn")
        .field("passed", f.passed)
        .field("finding", f.finding)
        .end_object();
  w.end_array();
}

std::string describe_gate(const GateConfig& g) {
  std::string out = g.id + ": " + gate_type_name(g.type);
  switch (g.type) {
    case GateType::row_count_reconciliation:
      out += g.tolerance_pct ? ", tolerance " + percent(*g.tolerance_pct)
             : g.tolerance_abs ? ", tolerance " + count(*g.tolerance_abs) + " rows"
                               : ", exact";
      break;
    case GateType::min_rows:
      out += std::string(g.side == RowSide::target ? ", rows in the table" : ", rows written") + " >= " + count(g.min);
      break;
    case GateType::max_decode_errors:
      if (g.max) out += ", at most " + count(*g.max);
      if (g.max_ratio) out += ", at most " + percent(*g.max_ratio * 100) + " of the messages";
      break;
    case GateType::max_lag_after: out += ", at most " + count(g.max.value_or(0)) + " offsets left behind"; break;
    case GateType::freshness: out += ", newest kafka_timestamp at most " + g.max_age_text + " old"; break;
  }
  if (!g.tables.empty()) {
    out += ", tables ";
    for (size_t i = 0; i < g.tables.size(); ++i) out += (i ? ", " : "") + g.tables[i];
  }
  return out + (g.severity == GateSeverity::error ? " (error: fails the run)" : " (warn: reported only)");
}

}  // namespace krow
