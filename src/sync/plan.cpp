#include "sync/plan.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "kafka/errors.hpp"
#include "util/error.hpp"
#include "sync/quality_gates.hpp"
#include "sync/topic_selection.hpp"
#include "util/json_writer.hpp"
#include "util/text.hpp"

namespace krow {

void TopicPlan::stop(const Error& e) {
  error = e.what();
  error_said = e.fix().empty() ? std::string() : e.said();
  error_fix = e.fix();
}

int64_t TopicPlan::to_read() const {
  int64_t n = 0;
  for (const auto& p : partitions) n += p.to_read();
  return n;
}

int64_t Plan::to_read() const {
  int64_t n = 0;
  for (const auto& t : topics) n += t.to_read();
  return n;
}

const char* bound_name(BoundedBy b) {
  switch (b) {
    case BoundedBy::last_stable_offset: return "last_stable_offset";
    case BoundedBy::until_offset: return "until_offset";
    case BoundedBy::until: return "until";
    case BoundedBy::max_messages_per_partition: return "max_messages_per_partition";
    case BoundedBy::max_messages: return "max_messages";
  }
  return "?";
}

const char* start_name(StartedBy s) {
  switch (s) {
    case StartedBy::stored_position: return "stored_position";
    case StartedBy::log_start: return "log_start";
    case StartedBy::log_truncated: return "log_truncated";
    case StartedBy::start_from_latest: return "start_from_latest";
    case StartedBy::start_from_time: return "start_from_time";
    case StartedBy::full_refresh: return "full_refresh";
  }
  return "?";
}

void apply_bounds(std::vector<TopicPlan>& topics, const BoundsConfig& bounds,
                  const std::map<TopicPartition, Offset>& until_offsets) {
  std::vector<PartitionPlan*> open;  // partitions of tables that will be read, in plan order
  for (auto& t : topics) {
    for (auto& p : t.partitions) {
      // Ties go to the earlier candidate: a bound that cuts nothing off is not named.
      Offset cap = p.last_stable;
      BoundedBy by = BoundedBy::last_stable_offset;
      auto lower = [&](Offset o, BoundedBy b) {
        if (o < cap) cap = o, by = b;
      };
      if (bounds.until_offset) lower(*bounds.until_offset, BoundedBy::until_offset);
      if (bounds.until_ms)
        if (auto it = until_offsets.find({t.topic, p.partition}); it != until_offsets.end())
          lower(it->second, BoundedBy::until);
      if (bounds.max_messages_per_partition)
        lower(Offset(p.start.value() + *bounds.max_messages_per_partition), BoundedBy::max_messages_per_partition);
      // A bound already behind the start reads nothing; positions never move back.
      p.boundary = std::max(cap, p.start);
      p.bounded_by = by;
      if (t.error.empty()) open.push_back(&p);
    }
  }
  if (!bounds.max_messages) return;
  std::vector<int64_t> available;
  for (const auto* p : open) available.push_back(p->to_read());
  const auto shares = share_out(*bounds.max_messages, available);
  for (size_t i = 0; i < open.size(); ++i) {
    if (shares[i] >= available[i]) continue;
    open[i]->boundary = Offset(open[i]->start.value() + shares[i]);
    open[i]->bounded_by = BoundedBy::max_messages;
  }
}

void write_column_changes_json(JsonWriter& w, const std::vector<columns::ColumnChange>& changes) {
  w.begin_array();
  for (const auto& c : changes) {
    w.begin_object().field("kind", columns::change_kind_name(c.kind)).field("column", c.column.name).field("of", c.of);
    if (c.from_type.empty()) w.key("from").null(); else w.field("from", c.from_type);
    if (c.to_type.empty()) w.key("to").null(); else w.field("to", c.to_type);
    if (c.kind == columns::ChangeKind::add) {
      w.key("field").begin_array();
      for (const auto& f : c.column.path) w.value(f);
      w.end_array();
      // The name the field asked for, when another field's column has it.
      if (c.column.wanted.empty())
        w.key("wanted").null();
      else
        w.field("wanted", c.column.wanted);
    }
    w.field("ddl", c.ddl).end_object();
  }
  w.end_array();
}

void write_bounds_json(JsonWriter& w, const BoundsConfig& b) {
  w.begin_object();
  if (b.max_messages) w.field("max_messages", *b.max_messages); else w.key("max_messages").null();
  if (b.max_messages_per_partition) w.field("max_messages_per_partition", *b.max_messages_per_partition);
  else w.key("max_messages_per_partition").null();
  if (b.until_offset) w.field("until_offset", b.until_offset->value()); else w.key("until_offset").null();
  if (b.until_ms) w.field("until", b.until_text); else w.key("until").null();
  if (b.until_ms) w.field("until_ms", *b.until_ms); else w.key("until_ms").null();
  w.field("start_from", b.start_from.text);
  w.end_object();
}

Plan make_plan(kafka::Cluster& cluster, Warehouse& warehouse, const Manifest& manifest, bool bounded) {
  Plan plan;
  if (bounded) plan.bounds = manifest.bounds;
  plan.sync_id = manifest.name;
  plan.quality = manifest.quality;
  plan.warehouse = warehouse.describe();
  plan.schema = manifest.warehouse.schema;
  plan.decoders = manifest.registry.configured()
                      ? "avro, protobuf, json_schema (schema registry " + manifest.registry.url + "), json, string, binary"
                      : "json, string, binary (no schema registry: framed payloads are kept raw as schema_registry)";

  const auto stored = warehouse.positions(manifest.name);
  for (const auto& run : warehouse.runs(manifest.name, 1))
    plan.last_run = run.run_id + ": " + run.status + ", finished " + utc_time(run.finished_at_ms);
  std::set<std::string> stored_topics;
  for (const auto& s : stored) stored_topics.insert(s.topic);

  // Names the key can describe, narrowed by the selection; explicit names are kept even
  // when not listed, so that a missing ACL or a typo is reported instead of ignored.
  std::vector<std::string> wanted;
  for (const auto& name : cluster.topic_names()) {
    if (is_internal_topic(name)) {
      plan.excluded_internal.push_back(name);
      continue;
    }
    if (is_selected(manifest.topics, name)) wanted.push_back(name);
  }
  for (const auto& name : manifest.topics.names)
    if (!is_internal_topic(name) && std::find(wanted.begin(), wanted.end(), name) == wanted.end())
      wanted.push_back(name);
  for (const auto& name : stored_topics)  // synced before: report it if it has gone
    if (is_selected(manifest.topics, name) && std::find(wanted.begin(), wanted.end(), name) == wanted.end())
      wanted.push_back(name);
  std::sort(wanted.begin(), wanted.end());

  const auto descriptions = cluster.describe(wanted);
  std::vector<std::string> names;
  for (const auto& d : descriptions)
    if (!d.internal) names.push_back(d.name);
  const auto tables = table_names(manifest.name, names, warehouse.tables(), warehouse.name_rules());

  std::vector<TopicPartition> partitions;
  for (const auto& d : descriptions) {
    if (d.internal) {
      plan.excluded_internal.push_back(d.name);
      continue;
    }
    TopicPlan t;
    t.topic = d.name;
    t.table = tables.at(d.name);
    t.settings = settings_for(manifest.tables, d.name);
    if (t.settings.strategy == Strategy::full_refresh && plan.bounds.limits_reading())
      throw Error(ErrorClass::config,
                  "table " + t.table + " (topic " + d.name + ") is full_refresh: every run re-reads the whole retained "
                  "topic and replaces the table, so bounds cannot stop it early. Remove the bounds (or their flags), or "
                  "give the topic another strategy in the manifest's tables:");
    if (d.error) {
      if (kafka::is_topic_missing(d.error) && stored_topics.count(d.name))
        t.stop(
            Error(ErrorClass::fatal_table,
                  "topic " + d.name + " was deleted since the last sync; its rows stay in table " +
                      t.table,
                  Fix{"Remove it from the manifest's topics, or recreate it to sync the new one"}));
      else
        t.stop(kafka::make_error(d.error, "topic " + d.name, manifest.source.username, d.name));
    } else if (!d.can_read) {
      t.topic_id = d.topic_id;
      t.stop(Error(ErrorClass::fatal_table, "no READ permission on topic " + d.name,
                   Fix{kafka::read_acl_fix(d.name, manifest.source.username)}));
    } else {
      t.topic_id = d.topic_id;
      for (const Partition p : d.partitions) {
        t.partitions.push_back(PartitionPlan{p});
        partitions.push_back({d.name, p});
      }
    }
    plan.topics.push_back(std::move(t));
  }

  // Every command that plans refuses a gate that names no table of the sync (a typo must not
  // pass a gate by checking nothing): plan and doctor as sync does, before anything is read.
  std::vector<TableFacts> planned;
  for (const auto& t : plan.topics) planned.push_back({.table = t.table, .topic = t.topic});
  if (const auto problem = check_gate_tables(manifest.quality, planned); !problem.empty())
    throw Error(ErrorClass::config, problem);

  const auto offsets = cluster.offsets(partitions);
  std::map<TopicPartition, const kafka::PartitionOffsets*> by_tp;
  for (const auto& o : offsets) by_tp[o.partition] = &o;
  std::map<std::pair<TopicId, Partition>, Offset> positions;
  std::set<TopicId> synced;  // topics this sync has stored a position for
  for (const auto& s : stored) positions[{s.topic_id, s.partition}] = s.next, synced.insert(s.topic_id);

  // Offsets-for-times answers, asked only when a bound needs them.
  const auto& bounds = plan.bounds;
  auto at_time = [&](int64_t time_ms, const char* what) {
    std::map<TopicPartition, Offset> found;
    if (partitions.empty()) return found;
    const auto answers = cluster.offsets_for_time(partitions, time_ms);
    for (size_t i = 0; i < partitions.size(); ++i) {
      const auto& tp = partitions[i];
      if (answers[i].error) {
        for (auto& t : plan.topics)
          if (t.topic == tp.topic && t.error.empty())
            t.stop(kafka::make_error(
                answers[i].error, std::string("finding the offset of ") + what + " in " + t.topic,
                manifest.source.username, t.topic));
      } else if (answers[i].offset) {
        found[tp] = *answers[i].offset;
      }
    }
    return found;
  };
  const bool start_at_time = bounds.start_from.kind == StartFrom::Kind::time;
  using Found = std::map<TopicPartition, Offset>;
  const Found start_offsets = start_at_time ? at_time(bounds.start_from.time_ms, "start_from") : Found{};
  const Found until_offsets = bounds.until_ms ? at_time(*bounds.until_ms, "until") : Found{};

  for (auto& t : plan.topics) {
    for (auto& p : t.partitions) {
      const auto* o = by_tp.at({t.topic, p.partition});
      if (o->error && t.error.empty())
        t.stop(kafka::make_error(o->error, "reading offsets of " + t.topic,
                                 manifest.source.username, t.topic));
      p.earliest = o->earliest;
      p.last_stable = o->last_stable;
      if (auto it = positions.find({t.topic_id, p.partition}); it != positions.end()) p.stored = it->second;
      if (t.settings.strategy == Strategy::full_refresh) {
        p.start = p.earliest, p.started_by = StartedBy::full_refresh;
      } else if (p.truncated()) {
        p.start = p.last_stable, p.started_by = StartedBy::log_truncated;
      } else if (p.stored) {
        p.start = std::max(*p.stored, p.earliest), p.started_by = StartedBy::stored_position;
      } else if (synced.count(t.topic_id)) {
        // A partition added to a topic already synced: every message in it is new to this
        // sync, so start_from (meant for a topic's first sync) must not skip any of them.
        p.start = p.earliest, p.started_by = StartedBy::log_start;
      } else if (bounds.start_from.kind == StartFrom::Kind::latest) {
        p.start = p.last_stable, p.started_by = StartedBy::start_from_latest;
      } else if (start_at_time) {
        // No message stamped that late yet: start at the end, like `latest`.
        const auto it = start_offsets.find({t.topic, p.partition});
        p.start = it == start_offsets.end() ? p.last_stable : std::min(std::max(it->second, p.earliest), p.last_stable);
        p.started_by = StartedBy::start_from_time;
      } else {
        p.start = p.earliest, p.started_by = StartedBy::log_start;
      }
    }
  }
  apply_bounds(plan.topics, bounds, until_offsets);
  std::set<TopicId> live_ids;
  for (const auto& t : plan.topics) live_ids.insert(t.topic_id);
  for (const auto& s : stored)
    if (!live_ids.count(s.topic_id)) plan.older_topic_ids.push_back(s);
  return plan;
}

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
  std::string out = t.settings.columns == TypedColumns::infer ? "columns infer" : "columns from_schema";
  if (t.settings.nested == NestedColumns::json) out += " (nested values as JSON)";
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
  w.field("from", t.settings.columns == TypedColumns::infer ? "infer" : "schema").field("nested", t.settings.nested == NestedColumns::json ? "json" : "flatten");
  w.field("source", t.typed_source);
  w.key("columns").begin_array();
  for (size_t i = 0; i < t.settings.typed_columns.size(); ++i) {
    const auto& c = t.settings.typed_columns[i];
    w.begin_object().field("name", c.name);
    w.field("type", i < t.typed_sql_types.size() ? t.typed_sql_types[i] : std::string());
    w.field("column_type", column_type_name(c.type)).field("nullable", c.nullable);
    w.field("retired", c.retired);
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

// A typed column's path for people, or why a kept column is NULL from now on.
std::string column_source(const columns::ColumnSpec& c) {
  return c.retired ? "no longer filled: NULL in new rows" : columns::path_text(c.path);
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
