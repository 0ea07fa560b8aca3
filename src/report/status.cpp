#include "report/status.hpp"

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <sstream>
#include <vector>

#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "kafka/group_member.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"
#include "util/text.hpp"

namespace krow {

namespace {

struct Stopped {
  std::string topic;
  std::string table;
  std::string error;
};

// Tables the most recent run stopped, read from its record.
std::vector<Stopped> stopped_tables(const std::vector<RunRecord>& runs) {
  std::vector<Stopped> out;
  if (runs.empty()) return out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(runs.front().json).get(doc)) return out;
  simdjson::dom::array tables;
  if (doc["tables"].get(tables)) return out;
  for (auto t : tables) {
    std::string_view error;
    if (t["error"].get(error)) continue;  // null: not stopped
    std::string_view topic, table;
    if (t["topic"].get(topic) || t["table"].get(table)) continue;
    out.push_back({std::string(topic), std::string(table), std::string(error)});
  }
  return out;
}

// Lag applies to the live incarnation of a topic only: the positions of a topic deleted
// (or deleted and recreated) are kept for the record but are behind nothing.
bool is_live(const ClusterView& cluster, const Position& p) {
  const auto it = cluster.live_ids.find(p.topic);
  return !cluster.reachable || (it != cluster.live_ids.end() && it->second == p.topic_id);
}

std::optional<Offset> last_stable_of(const ClusterView& cluster, const Position& p) {
  if (!is_live(cluster, p)) return std::nullopt;
  const auto it = cluster.last_stable.find({p.topic, p.partition});
  if (it == cluster.last_stable.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::optional<int64_t> total_lag(const Manifest& manifest, StateStore& warehouse,
                                 const ClusterView& cluster) {
  if (!cluster.reachable) return std::nullopt;
  int64_t lag = 0;
  for (const auto& p : warehouse.positions(manifest.name))
    if (const auto l = last_stable_of(cluster, p)) lag += distance(p.next, *l);
  return lag;
}

ClusterView view_cluster(const Manifest& manifest, StateStore& warehouse) {
  try {
    kafka::Client client(manifest.source, {});
    client.check_connection(std::chrono::seconds(std::min(manifest.source.connect_timeout_s, 10)));
    return view_cluster(manifest, warehouse, client);
  } catch (const Error& e) {
    ClusterView view;
    view.why_not = e.what();
    return view;
  }
}

ClusterView view_cluster(const Manifest& manifest, StateStore& warehouse, kafka::Client& client) {
  ClusterView view;
  try {
    // Once per partition, although a recreated topic has positions under both its IDs.
    std::set<TopicPartition> partitions;
    for (const auto& p : warehouse.positions(manifest.name))
      partitions.insert({p.topic, p.partition});
    const std::vector<TopicPartition> tps(partitions.begin(), partitions.end());
    kafka::Cluster cluster(client, std::chrono::seconds(10));
    std::set<std::string> names;
    for (const auto& tp : tps) names.insert(tp.topic);
    for (const auto& d : cluster.describe({names.begin(), names.end()}))
      if (!d.error) view.live_ids[d.name] = d.topic_id;
    for (const auto& o : cluster.offsets(tps))
      if (!o.error) view.last_stable[o.partition] = o.last_stable;
    view.reachable = true;
    try {
      for (auto& m : kafka::describe_group(client, "krow-" + manifest.name + ".workers",
                                           std::chrono::seconds(10)))
        view.group_members.push_back({m.instance_id, m.host, std::move(m.assigned)});
    } catch (const Error& e) {
      view.group_why_not = e.what();
    }
  } catch (const Error& e) {
    view.why_not = e.what();
  }
  return view;
}

std::string format_status(const Manifest& manifest, StateStore& warehouse,
                          const ClusterView& cluster, bool json) {
  auto positions = warehouse.positions(manifest.name);
  std::sort(positions.begin(), positions.end(), [](const Position& a, const Position& b) {
    return std::tie(a.topic, a.topic_id, a.partition) < std::tie(b.topic, b.topic_id, b.partition);
  });
  std::map<std::string, std::string> table_of;
  for (const auto& t : warehouse.tables())
    if (t.sync_id == manifest.name) table_of[t.topic] = t.table;
  const auto runs = warehouse.runs(manifest.name, 5);
  const auto stopped = stopped_tables(runs);
  const auto workers = warehouse.workers(manifest.name);
  auto live = [&](const Position& p) { return is_live(cluster, p); };
  auto lso = [&](const Position& p) { return last_stable_of(cluster, p); };

  if (json) {
    JsonWriter w;
    w.begin_object().field("sync_id", manifest.name).field("warehouse", warehouse.describe());
    w.field("lag_group", "krow-" + manifest.name).field("cluster_reachable", cluster.reachable);
    if (!cluster.reachable) w.field("cluster_unreachable_reason", cluster.why_not);
    w.key("positions").begin_array();
    for (const auto& p : positions) {
      w.begin_object().field("topic", p.topic).field("table", table_of[p.topic]).field("topic_id", p.topic_id.str())
          .field("partition", p.partition.value()).field("position", p.next.value()).field("live", live(p));
      if (const auto l = lso(p)) w.field("last_stable_offset", l->value()).field("lag", distance(p.next, *l));
      else w.key("last_stable_offset").null().key("lag").null();
      w.end_object();
    }
    w.end_array().key("stopped_tables").begin_array();
    for (const auto& s : stopped) w.begin_object().field("topic", s.topic).field("table", s.table).field("error", s.error).end_object();
    w.end_array().key("workers").begin_array();
    for (const auto& wk : workers) {
      w.begin_object()
          .field("worker_id", wk.worker_id)
          .field("host", wk.host)
          .field("pid", wk.pid)
          .field("partitions", wk.partitions)
          .field("heartbeat_at", utc_time(wk.heartbeat_at_ms));
      w.end_object();
    }
    w.end_array()
        .key("workers_group")
        .begin_object()
        .field("group", "krow-" + manifest.name + ".workers");
    if (!cluster.group_why_not.empty()) w.field("error", cluster.group_why_not);
    w.key("members").begin_array();
    for (const auto& m : cluster.group_members) {
      w.begin_object()
          .field("worker_id", m.worker_id)
          .field("host", m.host)
          .key("assigned")
          .begin_array();
      for (const auto& tp : m.assigned)
        w.begin_object()
            .field("topic", tp.topic)
            .field("partition", tp.partition.value())
            .end_object();
      w.end_array().end_object();
    }
    w.end_array().end_object();
    w.key("runs").begin_array();
    for (const auto& r : runs) w.raw(r.json);
    w.end_array().end_object();
    return w.str() + "\n";
  }

  std::ostringstream out;
  out << "Sync '" << manifest.name << "' in " << warehouse.describe() << " (lag group krow-" << manifest.name << ")\n";
  if (!cluster.reachable) out << "  last stable offsets and lag unknown: " << cluster.why_not << "\n";
  if (positions.empty()) out << "  no committed positions yet: run `krow sync` first\n";
  std::string last;
  for (const auto& p : positions) {
    const auto head = p.topic + " (" + p.topic_id.str() + ")";
    if (head != last) {
      out << p.topic << "  ->  " << manifest.warehouse.schema << "." << table_of[p.topic] << "   (topic id "
          << p.topic_id.str() << (live(p) ? ")" : "; an older incarnation of the topic, deleted since: no lag)") << "\n";
      last = head;
    }
    out << "    partition " << p.partition.value() << ": position " << with_thousands(static_cast<uint64_t>(p.next.value()));
    if (const auto l = lso(p))
      out << ", last stable offset " << with_thousands(static_cast<uint64_t>(l->value())) << ", lag "
          << with_thousands(static_cast<uint64_t>(distance(p.next, *l)));
    out << "\n";
  }
  if (cluster.reachable && !positions.empty()) {
    int64_t total = 0;
    for (const auto& p : positions)
      if (const auto l = lso(p)) total += distance(p.next, *l);
    out << "total lag " << with_thousands(static_cast<uint64_t>(total)) << " message(s)\n";
  }
  if (!stopped.empty()) out << "\nStopped tables (skipped until the cause is gone; re-checked by every sync):\n";
  for (const auto& s : stopped) out << "  " << s.topic << " -> " << s.table << ": stopped: " << s.error << "\n";
  if (!workers.empty() || !cluster.group_members.empty())
    out << "\nWorkers (group krow-" << manifest.name << ".workers):\n";
  for (const auto& m : cluster.group_members) {
    std::map<std::string, std::string> by_topic;
    for (const auto& tp : m.assigned) {
      auto& list = by_topic[tp.topic];
      list += (list.empty() ? "" : ",") + std::to_string(tp.partition.value());
    }
    std::string partitions;
    for (const auto& [topic, list] : by_topic) partitions += " " + topic + ":" + list;
    out << "  member " << (m.worker_id.empty() ? std::string("(no worker ID)") : m.worker_id)
        << " on " << m.host << ": " << m.assigned.size() << " partition(s)" << partitions << "\n";
  }
  if (!cluster.group_why_not.empty() && !workers.empty())
    out << "  the group could not be described: " << cluster.group_why_not << "\n";
  for (const auto& wk : workers)
    out << "  recorded " << wk.worker_id << " on " << wk.host << " (pid " << wk.pid
        << "), last seen " << utc_time(wk.heartbeat_at_ms) << ": "
        << (wk.partitions.empty() ? "no partitions" : wk.partitions) << "\n";
  if (!runs.empty()) out << "\nRecent runs:\n";
  for (const auto& r : runs)
    out << "  " << r.run_id << "  " << utc_time(r.started_at_ms) << "  " << r.status << "  "
        << (r.finished_at_ms - r.started_at_ms) << " ms\n";
  return out.str();
}

}  // namespace krow
