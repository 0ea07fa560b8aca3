// `krow audit`'s report, as text for people and as JSON for CI jobs (docs/audit.md).

#include <cstdio>
#include <string>
#include <vector>

#include "audit/audit.hpp"
#include "util/json_writer.hpp"
#include "util/text.hpp"

namespace krow::audit {

namespace {

// Columns of the text table, each as wide as its widest cell.
struct TextTable {
  std::vector<std::vector<std::string>> rows;
  std::string render(const std::string& indent) const {
    std::vector<size_t> width;
    for (const auto& r : rows)
      for (size_t i = 0; i < r.size(); ++i) {
        if (width.size() <= i) width.push_back(0);
        width[i] = std::max(width[i], r[i].size());
      }
    std::string out;
    for (const auto& r : rows) {
      std::string line = indent;
      for (size_t i = 0; i < r.size(); ++i) {
        // Numbers right-aligned, words left-aligned.
        const bool number = i > 0 && !r[i].empty() && (r[i][0] >= '0' && r[i][0] <= '9');
        const std::string pad(width[i] - r[i].size(), ' ');
        line += (i ? "  " : "") + (number ? pad + r[i] : r[i] + pad);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  }
};

std::string n(int64_t v) {
  return with_thousands(static_cast<uint64_t>(v < 0 ? 0 : v));
}

std::string proof(const PartitionResult& p) {
  if (!p.read_kafka) return "counts";
  return p.compared ? "Kafka, " + n(p.compared) + " compared" : "Kafka offsets";
}

}  // namespace

std::string format_text(const Report& report) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f s", report.seconds);
  std::string out = "krow audit of sync " + report.sync_id + " in " + report.warehouse + " (" +
                    report.depth + ", " + seconds + ")\n";
  int failing = 0, audited = 0, skipped = 0;
  for (const auto& t : report.tables) {
    out += "\ntable " + t.table + " (topic " + t.topic + ", " + t.strategy + ")\n";
    if (!t.error.empty()) {
      ++failing;
      out += "  not audited: " + t.error + "\n";
      continue;
    }
    if (!t.skipped.empty()) {
      ++skipped;
      out += "  skipped: " + t.skipped + "\n";
      continue;
    }
    ++audited;
    if (!t.clean()) ++failing;
    if (t.partitions.empty()) out += "  no partition has a stored position yet: nothing to prove\n";
    TextTable table;
    table.rows.push_back({"PARTITION", "FROM", "TO", "EXPECTED", "FOUND", "MISSING", "DOUBLED",
                          "DIFFERING", "WRONG ID", "NOT IN KAFKA", "PAST POSITION", "PROVEN BY"});
    for (const auto& p : t.partitions)
      table.rows.push_back({std::to_string(p.partition.value()), std::to_string(p.from.value()),
                            std::to_string(p.to.value()), n(p.expected), n(p.found), n(p.missing),
                            n(p.doubled), n(p.differing), n(p.wrong_ids), n(p.not_in_kafka),
                            n(p.past_position), proof(p)});
    if (!t.partitions.empty()) out += table.render("  ");
    for (const auto& p : t.partitions) {
      if (p.from_reason != "log start")
        out += "  partition " + std::to_string(p.partition.value()) + " audited from its " +
               p.from_reason + "\n";
      if (p.not_messages)
        out += "  partition " + std::to_string(p.partition.value()) + ": " + n(p.not_messages) +
               " offsets hold no message (transaction markers, aborted or compacted records)\n";
      if (p.committed_meanwhile)
        out += "  partition " + std::to_string(p.partition.value()) + ": " +
               n(p.committed_meanwhile) + " rows committed past offset " +
               std::to_string(p.to.value()) + " by a sync while the audit ran (not audited)\n";
      if (p.before)
        out += "  partition " + std::to_string(p.partition.value()) + ": " + n(p.before) +
               " rows below offset " + std::to_string(p.from.value()) +
               " (no longer in Kafka) not audited\n";
      for (const auto& f : p.findings)
        out += "  partition " + std::to_string(p.partition.value()) + " offset " +
               std::to_string(f.offset.value()) + ": " + kind_name(f.kind) +
               (f.detail.empty() ? "" : " (" + f.detail + ")") + "\n";
      const int64_t listed = static_cast<int64_t>(p.findings.size());
      const int64_t all =
          p.missing + p.doubled + p.differing + p.wrong_ids + p.not_in_kafka + p.past_position;
      if (all > listed && listed > 0)
        out += "  partition " + std::to_string(p.partition.value()) + ": the first " +
               std::to_string(listed) + " findings are listed (--format json has the counts)\n";
    }
    if (t.other_rows) {
      out += "  " + n(t.other_rows) +
             " rows belong to partitions without a stored position of this sync (not audited):";
      for (const auto& o : t.other_partitions) out += " " + o;
      out += "\n";
    }
  }
  out += "\n";
  if (report.tables.empty())
    out += "no table to audit\n";
  else if (failing)
    out += "NOT PROVEN: " + std::to_string(failing) + " of " +
           std::to_string(report.tables.size()) +
           " tables differ from Kafka or could not be audited\n";
  else
    out +=
        "proven: every audited table holds each message Kafka retains below its stored position "
        "exactly once (" +
        std::to_string(audited) + " audited" +
        (skipped ? ", " + std::to_string(skipped) + " skipped" : "") + ")\n";
  return out;
}

std::string format_json(const Report& report) {
  JsonWriter w;
  w.begin_object();
  w.field("sync_id", report.sync_id);
  w.field("warehouse", report.warehouse);
  w.field("depth", report.depth);
  w.field("seconds", report.seconds);
  w.field("clean", report.clean());
  w.key("tables").begin_array();
  for (const auto& t : report.tables) {
    w.begin_object();
    w.field("table", t.table);
    w.field("topic", t.topic);
    w.field("topic_id", t.topic_id.str());
    w.field("strategy", t.strategy);
    w.field("clean", t.clean());
    w.key("skipped");
    t.skipped.empty() ? w.null() : w.value(t.skipped);
    w.key("error");
    t.error.empty() ? w.null() : w.value(t.error);
    w.field("other_rows", t.other_rows);
    w.key("other_partitions").begin_array();
    for (const auto& o : t.other_partitions) w.value(o);
    w.end_array();
    w.key("partitions").begin_array();
    for (const auto& p : t.partitions) {
      w.begin_object();
      w.field("partition", static_cast<int64_t>(p.partition.value()));
      w.field("from", p.from.value());
      w.field("to", p.to.value());
      w.field("from_reason", p.from_reason);
      w.field("read_kafka", p.read_kafka);
      w.field("expected", p.expected);
      w.field("found", p.found);
      w.field("missing", p.missing);
      w.field("doubled", p.doubled);
      w.field("differing", p.differing);
      w.field("wrong_ids", p.wrong_ids);
      w.field("not_in_kafka", p.not_in_kafka);
      w.field("past_position", p.past_position);
      w.field("not_messages", p.not_messages);
      w.field("compared", p.compared);
      w.field("rows_before", p.before);
      w.field("committed_meanwhile", p.committed_meanwhile);
      w.field("clean", p.clean());
      w.key("findings").begin_array();
      for (const auto& f : p.findings) {
        w.begin_object();
        w.field("kind", kind_name(f.kind));
        w.field("offset", f.offset.value());
        w.key("detail");
        f.detail.empty() ? w.null() : w.value(f.detail);
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.str() + "\n";
}

}  // namespace krow::audit
