#include "report/run_summary.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string_view>
#include <utility>

#include "util/json_writer.hpp"
#include "util/text.hpp"

namespace krow {

namespace {

using simdjson::dom::element;

std::string text_of(element e, const char* key, const char* otherwise = "") {
  std::string_view v;
  return e[key].get(v) ? std::string(otherwise) : std::string(v);
}

int64_t int_of(element e, const char* key) {
  int64_t v = 0;
  return e[key].get(v) ? 0 : v;
}

bool has_value(element e, const char* key) {
  element v;
  return !e[key].get(v) && !v.is_null();
}

std::string count(int64_t v) { return with_thousands(static_cast<uint64_t>(v < 0 ? 0 : v)); }

// "1.234 s" below a minute, "3 min 4 s" above: durations people compare at a glance.
std::string duration(int64_t ms) {
  char buf[48];
  if (ms < 60'000) std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ms) / 1000);
  else std::snprintf(buf, sizeof buf, "%lld min %lld s", static_cast<long long>(ms / 60'000),
                     static_cast<long long>(ms % 60'000 / 1000));
  return buf;
}

// Error and reason texts are single sentences; a line break would end the Markdown item.
std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

void render_phases(std::ostringstream& out, element record) {
  simdjson::dom::object phases;
  if (record["phases"].get(phases)) return;
  // Every phase the record holds, in its order: a phase added to the record shows here too.
  static constexpr std::pair<std::string_view, std::string_view> kLabels[] = {
      {"connect_plan_ms", "connect and plan"}, {"read_write_ms", "read and write"},
      {"final_drain_ms", "final drain"},       {"gates_publish_ms", "gates and publish"},
      {"lag_report_ms", "lag report"},
  };
  std::string line;
  for (const auto field : phases) {
    int64_t ms = 0;
    if (field.value.get(ms)) continue;  // null: the run did not reach it
    std::string label(field.key);
    for (const auto& [key, known] : kLabels)
      if (key == field.key) label = known;
    if (label == field.key) {
      if (label.size() > 3 && label.ends_with("_ms")) label.resize(label.size() - 3);
      std::replace(label.begin(), label.end(), '_', ' ');
    }
    line += (line.empty() ? "" : ", ") + label + " " + duration(ms);
  }
  if (!line.empty()) out << "- Phases: " << line << "\n";
}

}  // namespace


std::string render_run_summary(std::string_view record_json) {
  simdjson::dom::parser parser;
  element r;
  if (parser.parse(record_json.data(), record_json.size()).get(r) || !r.is_object())
    return "# krow run\n\nThe run record could not be read as JSON; see the `.json` file beside this one.\n";

  std::ostringstream out;
  out << "# krow run " << text_of(r, "run_id", "?") << ": " << text_of(r, "status", "unknown") << "\n\n";
  out << "- Sync ID: `" << text_of(r, "sync_id") << "` (warehouse schema `" << text_of(r, "warehouse_schema") << "`)\n";
  out << "- Mode: " << text_of(r, "mode") << "\n";
  out << "- Started " << utc_time(int_of(r, "started_at_ms")) << ", finished " << utc_time(int_of(r, "finished_at_ms"))
      << ", took " << duration(int_of(r, "duration_ms")) << "\n";
  render_phases(out, r);
  // Records written before rows_published was counted say nothing of it.
  out << "- Messages read: " << count(int_of(r, "messages"))
      << (has_value(r, "rows_published") ? ", rows published: " + count(int_of(r, "rows_published"))
                                         : "")
      << ", bytes: " << count(int_of(r, "bytes")) << ", batches: " << count(int_of(r, "batches"))
      << ", decode errors: " << count(int_of(r, "decode_errors")) << "\n";
  bool retry_later = false;
  if (!r["retry_later"].get(retry_later) && retry_later)
    out << "- The failure may pass by itself (exit code 75): run again later\n";
  // A run that never reached the lag report (it failed first) says nothing about it.
  element lag_report_ms;
  if (has_value(r, "lag_reporting_off"))
    out << "- Lag reporting was off: " << one_line(text_of(r, "lag_reporting_off")) << "\n";
  else if (!r.at_pointer("/phases/lag_report_ms").get(lag_report_ms) && !lag_report_ms.is_null())
    out << "- Lag reporting: positions went to consumer group `" << text_of(r, "lag_group") << "`\n";

  simdjson::dom::array tables;
  out << "\n## Tables\n\n";
  if (r["tables"].get(tables) || tables.size() == 0) out << "None: the run stopped before planning any.\n";
  else
    for (element t : tables) {
      out << "- `" << text_of(t, "topic") << "` -> table `" << text_of(t, "table")
          << "`: " << count(int_of(t, "messages")) << " messages read, "
          << count(int_of(t, "decode_errors")) << " decode errors\n";
      if (has_value(t, "error")) out << "  - Stopped: " << one_line(text_of(t, "error")) << "\n";
      simdjson::dom::array partitions;
      if (t["partitions"].get(partitions)) continue;
      for (element p : partitions)
        out << "  - partition " << int_of(p, "partition") << ": " << int_of(p, "from") << " -> "
            << int_of(p, "boundary") << " (" << text_of(p, "bounded_by") << ")\n";
    }

  simdjson::dom::array gaps;
  out << "\n## Gaps\n\n";
  if (r["gaps"].get(gaps) || gaps.size() == 0) out << "None.\n";
  else
    for (element g : gaps)
      out << "- `" << text_of(g, "topic") << "` partition " << int_of(g, "partition") << ", offsets "
          << int_of(g, "from") << " to " << int_of(g, "to") << ": " << one_line(text_of(g, "reason")) << "\n";

  simdjson::dom::array errors;
  out << "\n## Errors\n\n";
  if (r["errors"].get(errors) || errors.size() == 0) out << "None.\n";
  else
    for (element e : errors) {
      std::string_view s;
      if (!e.get(s)) out << "- " << one_line(std::string(s)) << "\n";
    }

  simdjson::dom::array gates;
  out << "\n## Quality gates\n\n";
  if (has_value(r, "publish_note")) out << "Publish: " << one_line(text_of(r, "publish_note")) << ".\n\n";
  if (r["gates"].get(gates) || gates.size() == 0) out << "None ran.\n";
  else
    for (element g : gates) {
      bool passed = false;
      if (g["passed"].get(passed)) passed = false;
      out << "- " << (passed ? "passed" : "**failed**") << ": `" << text_of(g, "id") << "` (" << text_of(g, "type")
          << ", " << text_of(g, "severity") << "): " << one_line(text_of(g, "finding")) << "\n";
    }
  return out.str();
}

bool parse_run_listing(std::string_view record_json, RunListing& out) {
  simdjson::dom::parser parser;
  element r;
  if (parser.parse(record_json.data(), record_json.size()).get(r) || !r.is_object()) return false;
  std::string_view run_id;
  if (r["run_id"].get(run_id)) return false;
  out.run_id = std::string(run_id);
  out.sync_id = text_of(r, "sync_id");
  out.started_at_ms = int_of(r, "started_at_ms");
  out.status = text_of(r, "status", "unknown");
  out.mode = text_of(r, "mode");
  out.messages = int_of(r, "messages");
  if (has_value(r, "rows_published")) out.rows_published = int_of(r, "rows_published");
  out.duration_ms = int_of(r, "duration_ms");
  simdjson::dom::array errors;
  out.errors = r["errors"].get(errors) ? 0 : static_cast<int64_t>(errors.size());
  return true;
}

std::string format_run_listings(const std::vector<RunListing>& runs, bool json) {
  if (json) {
    JsonWriter w;
    w.begin_array();
    for (const auto& r : runs) {
      w.begin_object()
          .field("run_id", r.run_id)
          .field("sync_id", r.sync_id)
          .field("started_at", utc_time(r.started_at_ms))
          .field("started_at_ms", r.started_at_ms)
          .field("status", r.status)
          .field("mode", r.mode)
          .field("messages", r.messages);
      if (r.rows_published)
        w.field("rows_published", *r.rows_published);
      else
        w.key("rows_published").null();
      w.field("duration_ms", r.duration_ms)
          .field("errors", r.errors)
          .field("file", r.file)
          .end_object();
    }
    w.end_array();
    return w.str() + "\n";
  }
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-24s %-20s %-20s %-11s %-11s %12s %12s %12s %6s\n", "RUN ID",
                "SYNC ID", "STARTED (UTC)", "STATUS", "MODE", "MESSAGES", "PUBLISHED", "DURATION",
                "ERRORS");
  out += line;
  for (const auto& r : runs) {
    std::snprintf(line, sizeof line, "%-24s %-20s %-20s %-11s %-11s %12s %12s %12s %6lld\n",
                  r.run_id.c_str(), r.sync_id.c_str(), utc_time(r.started_at_ms).c_str(),
                  r.status.c_str(), r.mode.c_str(), count(r.messages).c_str(),
                  r.rows_published ? count(*r.rows_published).c_str() : "-",
                  duration(r.duration_ms).c_str(), static_cast<long long>(r.errors));
    out += line;
  }
  return out;
}

}  // namespace krow
