#include "report/plan_report.hpp"

#include <algorithm>
#include <sstream>

#include "plan/quality_gates.hpp"
#include "util/json_writer.hpp"
#include "util/text.hpp"

namespace krow {

namespace {

std::string count(int64_t n) { return with_thousands(static_cast<uint64_t>(std::max<int64_t>(n, 0))); }

// "max_messages 1,000, until 2026-03-01T00:00:00Z, start_from latest": the bounds set.
std::string describe_bounds(const BoundsConfig& b) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  if (b.max_messages) add("max_messages " + count(*b.max_messages) + " (this run, shared over the partitions)");
  if (b.max_messages_per_partition) add("max_messages_per_partition " + count(*b.max_messages_per_partition));
  if (b.until_offset) add("until_offset " + std::to_string(b.until_offset->value()));
  if (b.until_ms) add("until " + b.until_text);
  add("start_from " + b.start_from.text + " (for partitions with no stored position)");
  return out;
}

// What the publish mode means for the tables, in one sentence.
std::string describe_publish(const QualityConfig& q) {
  if (q.publish == PublishMode::staged)
    return "staged: batches go to staging tables; rows and positions reach the tables in one transaction once every "
           "gate of severity error passed, and a failing one leaves tables and positions as they were";
  return std::string("per_batch: each batch is queryable once committed") +
         (q.gates.empty() ? "" : "; the gates run after the last batch and a failing one cannot undo the batches "
                                 "(use publish: staged for gates that block)");
}

// "latest_by_key (unique_key customer_id, tombstones keep)": a table's strategy for people.
std::string describe_strategy(const TableSettings& s) {
  std::string out = strategy_name(s.strategy);
  if (s.strategy != Strategy::latest_by_key) return out;
  out += " (key: ";
  if (s.unique_key.empty()) out += "the Kafka key";
  for (size_t i = 0; i < s.unique_key.size(); ++i) out += (i ? ", " : "value field ") + s.unique_key[i];
  return out + (s.keep_tombstones ? "; tombstones kept)" : "; a tombstone deletes its key's row)");
}

// A table's typed columns for people: "none (the value as JSON)" or where they come from.
std::string describe_columns(const TopicPlan& t) {
  if (t.settings.columns == TypedColumns::none) return "";
  std::string out = t.settings.columns == TypedColumns::infer      ? "columns infer"
                    : t.settings.columns == TypedColumns::contract ? "columns from the contract"
                                                                   : "columns from_schema";
  if (t.settings.nested == NestedColumns::json) out += " (nested values as JSON)";
  if (t.settings.contract.given)
    out += std::string("; contract: enforce ") + (t.settings.contract.coerce ? "coerce" : "strict") +
           ", empty strings " + (t.settings.contract.empty_as_null ? "NULL" : "kept");
  if (!t.typed_source.empty())
    out += ": " + t.typed_source + ", " + std::to_string(t.settings.typed_columns.size()) + " typed column(s)";
  else if (t.error.empty()) out += ": not planned yet";
  return out;
}

void write_typed_json(JsonWriter& w, const TopicPlan& t) {
  if (t.settings.columns == TypedColumns::none) {
    w.key("typed_columns").null();
    return;
  }
  w.key("typed_columns").begin_object();
  w.field("from", t.settings.columns == TypedColumns::infer      ? "infer"
                  : t.settings.columns == TypedColumns::contract ? "contract"
                                                                 : "schema").field("nested", t.settings.nested == NestedColumns::json ? "json" : "flatten");
  w.field("source", t.typed_source);
  w.key("contract");
  if (!t.settings.contract.given) {
    w.null();
  } else {
    w.begin_object();
    w.field("enforce", t.settings.contract.coerce ? "coerce" : "strict");
    w.field("empty_strings", t.settings.contract.empty_as_null ? "null" : "keep");
    w.end_object();
  }
  w.key("columns").begin_array();
  for (size_t i = 0; i < t.settings.typed_columns.size(); ++i) {
    const auto& c = t.settings.typed_columns[i];
    w.begin_object().field("name", c.name);
    w.field("type", i < t.typed_sql_types.size() ? t.typed_sql_types[i] : std::string());
    w.field("column_type", column_type_name(c.type)).field("nullable", c.nullable);
    w.field("retired", c.retired);
    w.field("source", c.source);
    w.key("path").begin_array();
    for (const auto& p : c.path) w.value(p);
    w.end_array().end_object();
  }
  w.end_array();
  w.key("changes");
  write_column_changes_json(w, t.settings.changes);
  w.key("ddl").begin_array();
  for (const auto& sql : t.evolution_sql) w.value(sql);
  w.end_array().end_object();
}

void write_design_json(JsonWriter& w, const DesignPlan& d) {
  w.key("design").begin_object().key("ddl").begin_array();
  for (const auto& sql : d.ddl) w.value(sql);
  w.end_array().field("exists", d.exists);
  if (d.exists)
    w.field("current", d.current);
  else
    w.key("current").null();
  w.key("changes").begin_array();
  for (const auto& c : d.changes)
    w.begin_object().field("what", c.what).field("ddl", c.ddl).field("cost", c.cost).end_object();
  w.end_array().end_object();
}

// "create index ... (builds it over every row ...)": a design change for people.
std::string describe_design_change(const DesignChange& c) {
  return c.what + (c.cost.empty() ? "" : " (" + c.cost + ")");
}

// A typed column's path for people, or why a kept column is NULL from now on.
// A column the contract declares says so, and what the schema or inference would have made it.
std::string column_source(const columns::ColumnSpec& c) {
  if (c.retired) return "no longer filled: NULL in new rows";
  const bool declared = c.source.rfind("contract", 0) == 0;
  return columns::path_text(c.path) + (declared ? "; " + c.source : "");
}

// A typed column change for people.
std::string describe_change(const columns::ColumnChange& c) {
  using columns::ChangeKind;
  switch (c.kind) {
    case ChangeKind::add:
      return "add column " + c.column.name + " " + c.to_type + " (field " +
             columns::path_text(c.column.path) +
             (c.column.wanted.empty() ? ")"
                                      : "; not " + c.column.wanted +
                                            ", which is another field's column: a field keeps "
                                            "its column for the table's life)");
    case ChangeKind::widen: return "widen column " + c.column.name + " " + c.from_type + " -> " + c.to_type;
    case ChangeKind::variant:
      return "breaking change isolated: field " + columns::path_text(c.column.path) + " is " + c.to_type +
             " in the schema, column " + c.of + " is " + c.from_type + "; its values go to " + c.column.name +
             " (JSON)" + (c.ddl ? ", added" : "");
    case ChangeKind::retire: return "column " + c.of + " (" + c.from_type + ") is no longer in the schema: kept, NULL in new rows";
  }
  return "";
}

std::string format_json(const Plan& plan) {
  JsonWriter w;
  w.begin_object().field("sync_id", plan.sync_id).field("warehouse", plan.warehouse).field("schema", plan.schema);
  w.field("messages_to_read", plan.to_read());
  w.key("bounds");
  write_bounds_json(w, plan.bounds);
  w.field("publish", publish_mode_name(plan.quality.publish)).field("publish_note", describe_publish(plan.quality));
  w.key("gates").begin_array();
  for (const auto& g : plan.quality.gates)
    w.begin_object()
        .field("id", g.id)
        .field("type", gate_type_name(g.type))
        .field("severity", g.severity == GateSeverity::error ? "error" : "warn")
        .field("description", describe_gate(g))
        .end_object();
  w.end_array();
  if (plan.last_run.empty()) w.key("last_run").null(); else w.field("last_run", plan.last_run);
  w.key("topics").begin_array();
  for (const auto& t : plan.topics) {
    w.begin_object().field("topic", t.topic).field("table", t.table);
    w.field("strategy", strategy_name(t.settings.strategy));
    write_typed_json(w, t);
    write_design_json(w, t.design);
    if (t.topic_id.empty()) w.key("topic_id").null(); else w.field("topic_id", t.topic_id.str());
    w.field("decoders", plan.decoders);
    w.field("messages_to_read", t.to_read());
    if (t.error.empty()) w.key("error").null(); else w.field("error", t.error);
    w.key("partitions").begin_array();
    for (const auto& p : t.partitions) {
      w.begin_object().field("partition", p.partition.value());
      if (!p.stored) w.key("stored_position").null(); else w.field("stored_position", p.stored->value());
      w.field("log_start_offset", p.earliest.value()).field("last_stable_offset", p.last_stable.value());
      w.field("start_offset", p.start.value()).field("started_by", start_name(p.started_by));
      w.field("boundary", p.boundary.value()).field("bounded_by", bound_name(p.bounded_by));
      w.field("to_read", p.to_read()).field("retention_gap", p.retention_gap());
      w.field("log_truncated", p.truncated());
      w.end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
  w.key("excluded_internal_topics").begin_array();
  for (const auto& n : plan.excluded_internal) w.value(n);
  w.end_array().end_object();
  return w.str() + "\n";
}

}  // namespace

std::string format_plan(const Plan& plan, PlanFormat format) {
  if (format == PlanFormat::json) return format_json(plan);
  std::ostringstream out;
  const bool md = format == PlanFormat::md;
  if (md) out << "# Plan for sync `" << plan.sync_id << "`\n\n";
  else out << "Plan for sync '" << plan.sync_id << "'\n";
  out << (md ? "- warehouse: " : "  warehouse: ") << plan.warehouse << ", schema " << plan.schema << "\n";
  out << (md ? "- decoders: " : "  decoders: ") << plan.decoders << "\n";
  const bool bounded = plan.bounds.limits_reading() || plan.bounds.start_from.kind != StartFrom::Kind::earliest;
  out << (md ? "- " : "  ") << plan.topics.size() << " topic(s), " << count(plan.to_read())
      << " message offset(s) to read (up to each partition's "
      << (bounded ? "boundary: the smallest of its bounds and its last stable offset" : "last stable offset") << ")\n";
  if (bounded) out << (md ? "- bounds: " : "  bounds: ") << describe_bounds(plan.bounds) << "\n";
  if (!plan.excluded_internal.empty())
    out << (md ? "- " : "  ") << plan.excluded_internal.size() << " internal topic(s) left out\n";
  if (md) {
    out << "\n## Boundary\n\n"
        << "| topic | table | topic id | partition | stored position | start | boundary | bounded by | "
           "last stable offset | to read |\n"
        << "|---|---|---|---:|---:|---:|---:|---|---:|---:|\n";
    for (const auto& t : plan.topics) {
      if (!t.error.empty()) {
        out << "| `" << t.topic << "` | `" << t.table << "` | | | | | | | | stopped: " << t.error << " |\n";
        continue;
      }
      for (const auto& p : t.partitions)
        out << "| `" << t.topic << "` | `" << t.table << "` | " << t.topic_id.str() << " | " << p.partition.value()
            << " | " << (p.stored ? count(p.stored->value()) : "(new)") << " | " << count(p.start.value()) << " ("
            << start_name(p.started_by) << ") | " << count(p.boundary.value()) << " | " << bound_name(p.bounded_by)
            << " | " << count(p.last_stable.value()) << " | "
            << count(p.to_read()) << (p.retention_gap() ? " (gap: expired offsets)" : "")
            << (p.truncated() ? " (log truncated below the position)" : "") << " |\n";
    }
    out << "\n## Tables\n\n";
    for (const auto& t : plan.topics) {
      out << "- `" << t.table << "` (topic `" << t.topic << "`): " << describe_strategy(t.settings);
      if (const auto c = describe_columns(t); !c.empty()) out << "; " << c;
      out << "\n";
      for (size_t i = 0; i < t.settings.typed_columns.size(); ++i)
        out << "  - `" << t.settings.typed_columns[i].name << "` "
            << (i < t.typed_sql_types.size() ? t.typed_sql_types[i] : std::string()) << " (`"
            << column_source(t.settings.typed_columns[i]) << "`)\n";
      for (const auto& c : t.settings.changes) out << "  - " << describe_change(c) << "\n";
      for (const auto& sql : t.evolution_sql) out << "  - DDL: `" << sql << "`\n";
      for (const auto& sql : t.design.ddl) out << "  - physical design: `" << sql << "`\n";
      if (t.design.exists)
        out << "  - physical design in the warehouse: " << t.design.current << "\n";
      for (const auto& c : t.design.changes)
        out << "  - physical design change, made only by `krow sync --apply-design`: "
            << describe_design_change(c) << "; DDL: `" << c.ddl << "`\n";
    }
    out << "\n## Quality gates\n\n- publish: " << describe_publish(plan.quality) << "\n";
    if (plan.quality.gates.empty()) out << "- no gates (`quality.gates` in the manifest)\n";
    for (const auto& g : plan.quality.gates) out << "- " << describe_gate(g) << "\n";
    out << "\n## State\n\n";
    size_t stored = 0, partitions = 0;
    for (const auto& t : plan.topics)
      for (const auto& p : t.partitions) ++partitions, stored += p.stored.has_value();
    out << "- positions stored for " << stored << " of " << partitions << " partition(s); they move only with the "
        << "rows they cover\n";
    out << "- last run: " << (plan.last_run.empty() ? "none yet" : plan.last_run) << "\n";
    if (!plan.older_topic_ids.empty())
      out << "- " << plan.older_topic_ids.size() << " position(s) of topics since deleted or recreated are kept\n";
    return out.str();
  }
  if (plan.quality.publish == PublishMode::staged || !plan.quality.gates.empty())
    out << "  publish: " << describe_publish(plan.quality) << "\n";
  for (const auto& g : plan.quality.gates) out << "  gate " << describe_gate(g) << "\n";
  out << "\n";
  for (const auto& t : plan.topics) {
    out << t.topic << "  ->  " << plan.schema << "." << t.table;
    if (!t.topic_id.empty()) out << "   (topic id " << t.topic_id.str() << ")";
    out << "\n";
    if (t.settings.strategy != Strategy::append) out << "    strategy " << describe_strategy(t.settings) << "\n";
    if (const auto c = describe_columns(t); !c.empty()) {
      out << "    " << c << "\n";
      for (size_t i = 0; i < t.settings.typed_columns.size(); ++i)
        out << "      " << t.settings.typed_columns[i].name << " "
            << (i < t.typed_sql_types.size() ? t.typed_sql_types[i] : std::string()) << "  ("
            << column_source(t.settings.typed_columns[i]) << ")\n";
      for (const auto& c : t.settings.changes) out << "    " << describe_change(c) << "\n";
      for (const auto& sql : t.evolution_sql) out << "    DDL: " << sql << "\n";
    }
    for (const auto& sql : t.design.ddl) out << "    design: " << sql << "\n";
    if (t.design.exists && !t.design.changes.empty()) {
      out << "    design in the warehouse: " << t.design.current << "\n";
      for (const auto& c : t.design.changes)
        out << "    design change, made only by `krow sync --apply-design`: "
            << describe_design_change(c) << "\n"
            << "      DDL: " << c.ddl << "\n";
    }
    if (!t.error.empty()) {
      out << "    stopped: " << t.error << "\n";
      continue;
    }
    for (const auto& p : t.partitions) {
      out << "    partition " << p.partition.value() << ": position " << (p.stored ? count(p.stored->value()) : "new");
      if (p.started_by == StartedBy::start_from_latest || p.started_by == StartedBy::start_from_time)
        out << ", start " << count(p.start.value()) << " (start_from " << plan.bounds.start_from.text << ")";
      if (p.bounded_by != BoundedBy::last_stable_offset)
        out << ", boundary " << count(p.boundary.value()) << " (" << bound_name(p.bounded_by) << ")";
      out << ", last stable offset " << count(p.last_stable.value()) << ", to read " << count(p.to_read());
      if (p.retention_gap())
        out << "  (offsets " << p.stored->value() << ".." << p.earliest.value() - 1 << " expired before they were read)";
      if (p.truncated())
        out << "  (the log now ends at " << p.last_stable.value() << ", below the position: it was truncated; reading "
            << "resumes at its end)";
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace krow
