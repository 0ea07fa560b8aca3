#include "plan/plan.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "engines/engines.hpp"
#include "kafka/client.hpp"
#include "kafka/errors.hpp"
#include "plan/quality_gates.hpp"
#include "plan/topic_selection.hpp"
#include "util/error.hpp"
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

Plan make_plan(kafka::Cluster& cluster, StateStore& warehouse, const Manifest& manifest,
               bool bounded) {
  Plan plan;
  if (bounded) plan.bounds = manifest.bounds;
  plan.sync_id = manifest.name;
  plan.quality = manifest.quality;
  plan.warehouse = warehouse.describe();
  plan.schema = manifest.warehouse.schema;
  plan.names = warehouse_capabilities(manifest.warehouse.type).names;
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
  const auto tables = table_names(manifest.name, names, warehouse.tables(), plan.names);

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

Plan connect_and_plan(StateStore& warehouse, const Manifest& manifest) {
  kafka::Client client(manifest.source, {});
  client.check_connection(std::chrono::seconds(manifest.source.connect_timeout_s));
  kafka::Cluster cluster(client);
  return make_plan(cluster, warehouse, manifest);
}

}  // namespace krow
