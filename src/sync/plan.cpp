#include "sync/plan.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "kafka/errors.hpp"
#include "sync/topic_selection.hpp"
#include "util/json_writer.hpp"
#include "util/text.hpp"

namespace krow {

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

Plan make_plan(kafka::Cluster& cluster, Warehouse& warehouse, const Manifest& manifest) {
  Plan plan;
  plan.sync_id = manifest.name;
  plan.warehouse = warehouse.describe();
  plan.schema = manifest.warehouse.schema;
  plan.decoders = manifest.registry.configured()
                      ? "avro, protobuf, json_schema (schema registry " + manifest.registry.url + "), json, string, binary"
                      : "json, string, binary (no schema registry: framed payloads are kept raw as schema_registry)";

  const auto stored = warehouse.positions(manifest.name);
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
    if (d.error) {
      if (kafka::is_topic_missing(d.error) && stored_topics.count(d.name))
        t.error = "topic " + d.name + " was deleted since the last sync; its rows stay in table " +
                  t.table + ". Remove it from the manifest's topics, or recreate it to sync the new one";
      else
        t.error = kafka::make_error(d.error, "topic " + d.name, manifest.source.username, d.name).what();
    } else if (!d.can_read) {
      t.topic_id = d.topic_id;
      t.error = "no READ permission on topic " + d.name + ". " + kafka::read_acl_fix(d.name, manifest.source.username);
    } else {
      t.topic_id = d.topic_id;
      for (const Partition p : d.partitions) {
        t.partitions.push_back(PartitionPlan{p});
        partitions.push_back({d.name, p});
      }
    }
    plan.topics.push_back(std::move(t));
  }

  const auto offsets = cluster.offsets(partitions);
  std::map<TopicPartition, const kafka::PartitionOffsets*> by_tp;
  for (const auto& o : offsets) by_tp[o.partition] = &o;
  std::map<std::pair<TopicId, Partition>, Offset> positions;
  for (const auto& s : stored) positions[{s.topic_id, s.partition}] = s.next;

  for (auto& t : plan.topics) {
    for (auto& p : t.partitions) {
      const auto* o = by_tp.at({t.topic, p.partition});
      if (o->error && t.error.empty())
        t.error = kafka::make_error(o->error, "reading offsets of " + t.topic, manifest.source.username, t.topic).what();
      p.earliest = o->earliest;
      p.boundary = o->last_stable;
      if (auto it = positions.find({t.topic_id, p.partition}); it != positions.end()) p.stored = it->second;
      p.start = p.truncated() ? p.boundary : p.stored ? std::max(*p.stored, p.earliest) : p.earliest;
    }
  }
  std::set<TopicId> live_ids;
  for (const auto& t : plan.topics) live_ids.insert(t.topic_id);
  for (const auto& s : stored)
    if (!live_ids.count(s.topic_id)) plan.older_topic_ids.push_back(s);
  return plan;
}

namespace {

std::string count(int64_t n) { return with_thousands(static_cast<uint64_t>(std::max<int64_t>(n, 0))); }

std::string format_json(const Plan& plan) {
  JsonWriter w;
  w.begin_object().field("sync_id", plan.sync_id).field("warehouse", plan.warehouse).field("schema", plan.schema);
  w.field("messages_to_read", plan.to_read());
  w.key("topics").begin_array();
  for (const auto& t : plan.topics) {
    w.begin_object().field("topic", t.topic).field("table", t.table);
    if (t.topic_id.empty()) w.key("topic_id").null(); else w.field("topic_id", t.topic_id.str());
    w.field("decoders", plan.decoders);
    w.field("messages_to_read", t.to_read());
    if (t.error.empty()) w.key("error").null(); else w.field("error", t.error);
    w.key("partitions").begin_array();
    for (const auto& p : t.partitions) {
      w.begin_object().field("partition", p.partition.value());
      if (!p.stored) w.key("stored_position").null(); else w.field("stored_position", p.stored->value());
      w.field("log_start_offset", p.earliest.value()).field("last_stable_offset", p.boundary.value());
      w.field("start_offset", p.start.value()).field("to_read", p.to_read()).field("retention_gap", p.retention_gap());
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
  out << (md ? "- " : "  ") << plan.topics.size() << " topic(s), " << count(plan.to_read())
      << " message offset(s) to read (up to each partition's last stable offset)\n";
  if (!plan.excluded_internal.empty())
    out << (md ? "- " : "  ") << plan.excluded_internal.size() << " internal topic(s) left out\n";
  out << "\n";
  if (md) {
    out << "| topic | table | topic id | partition | stored position | last stable offset | to read |\n"
        << "|---|---|---|---:|---:|---:|---:|\n";
    for (const auto& t : plan.topics) {
      if (!t.error.empty()) {
        out << "| `" << t.topic << "` | `" << t.table << "` | | | | | stopped: " << t.error << " |\n";
        continue;
      }
      for (const auto& p : t.partitions)
        out << "| `" << t.topic << "` | `" << t.table << "` | " << t.topic_id.str() << " | " << p.partition.value()
            << " | " << (p.stored ? count(p.stored->value()) : "(new)") << " | " << count(p.boundary.value()) << " | "
            << count(p.to_read()) << (p.retention_gap() ? " (gap: expired offsets)" : "")
            << (p.truncated() ? " (log truncated below the position)" : "") << " |\n";
    }
    return out.str();
  }
  for (const auto& t : plan.topics) {
    out << t.topic << "  ->  " << plan.schema << "." << t.table;
    if (!t.topic_id.empty()) out << "   (topic id " << t.topic_id.str() << ")";
    out << "\n";
    if (!t.error.empty()) {
      out << "    stopped: " << t.error << "\n";
      continue;
    }
    for (const auto& p : t.partitions) {
      out << "    partition " << p.partition.value() << ": position " << (p.stored ? count(p.stored->value()) : "new")
          << ", last stable offset " << count(p.boundary.value()) << ", to read " << count(p.to_read());
      if (p.retention_gap())
        out << "  (offsets " << p.stored->value() << ".." << p.earliest.value() - 1 << " expired before they were read)";
      if (p.truncated())
        out << "  (the log now ends at " << p.boundary.value() << ", below the position: it was truncated; reading "
            << "resumes at its end)";
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace krow
