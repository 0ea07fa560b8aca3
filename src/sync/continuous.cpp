#include "sync/continuous.hpp"

#include <algorithm>

#include "plan/topic_selection.hpp"

namespace krow {

std::string continuous_refusal(const Manifest& m) {
  if (m.bounds.limits_reading())
    return "--follow cannot be combined with bounds (max_messages, max_messages_per_partition, "
           "until_offset, until, in the manifest's bounds: or as flags): a continuous sync never "
           "reaches an end to stop at. Remove them, or run a bounded `krow sync` without --follow "
           "(bounds.start_from is fine)";
  if (m.quality.publish == PublishMode::staged)
    return "--follow cannot be combined with quality.publish: staged: staged rows are published "
           "only when a run ends, so nothing would be queryable while the sync runs. Use "
           "quality.publish: per_batch (the default), or run `krow sync` without --follow";
  if (!m.quality.gates.empty())
    return "--follow cannot be combined with quality gates: a gate judges a finished run, and a "
           "continuous sync does not finish. Remove quality.gates, or check them with scheduled "
           "`krow sync` runs without --follow";
  for (const auto& rule : m.tables)
    if (rule.settings.strategy == Strategy::full_refresh)
      return "--follow cannot sync table rule '" + rule.pattern +
             "' (strategy full_refresh): each run of it re-reads the whole topic and replaces the "
             "table at the end, which a continuous sync never reaches. Give it strategy append or "
             "latest_by_key, or sync it with `krow sync` without --follow";
  return {};
}

std::string daily_quota_note(const Manifest& m, const WarehouseCapabilities& caps) {
  if (caps.daily_table_batches <= 0) return {};
  const auto& t = m.topics;
  const auto tables = std::max<size_t>(1, t.names.size() + t.prefixes.size() + t.globs.size());
  const int64_t ms = m.batch.max_wait_ms;
  const auto per_day = static_cast<int64_t>(tables) * 86'400'000 / std::max<int64_t>(ms, 1);
  if (per_day * 2 < caps.daily_table_batches) return {};
  // A tenth of the quota: tables * 86,400 s / (quota / 10), rounded up to whole seconds.
  const auto enough_s = (static_cast<int64_t>(tables) * 864'000 + caps.daily_table_batches - 1) /
                        caps.daily_table_batches;
  const auto max_wait = ms % 1000 ? std::to_string(ms) + "ms" : std::to_string(ms / 1000) + "s";
  return "on " + caps.engine + " each table's batch costs " + caps.daily_table_batch_cost +
         ", and a project may run " + std::to_string(caps.daily_table_batches) +
         " a day: with batch.max_wait " + max_wait + ", " + std::to_string(tables) +
         " table(s) that keep receiving messages take up to " + std::to_string(per_day) +
         " a day. Raise batch.max_wait to " + std::to_string(enough_s) +
         "s or more to keep them to a tenth of it";
}

bool topology_grew(const Topology& before, const Topology& now) {
  for (const auto& [name, shape] : now) {
    const auto it = before.find(name);
    if (it == before.end() || it->second.topic_id != shape.topic_id ||
        shape.partitions > it->second.partitions)
      return true;
  }
  return false;
}

Topology selected_topology(kafka::Cluster& cluster, const TopicSelection& selection) {
  std::vector<std::string> wanted;
  for (auto& name : cluster.topic_names())
    if (!is_internal_topic(name) && is_selected(selection, name)) wanted.push_back(std::move(name));
  Topology out;
  if (wanted.empty()) return out;
  for (const auto& d : cluster.describe(wanted))
    if (!d.error && !d.internal && d.can_read)
      out[d.name] = TopicShape{d.topic_id, d.partitions.size()};
  return out;
}

std::chrono::milliseconds retry_backoff(int attempt) {
  const int doublings = std::clamp(attempt - 1, 0, 6);
  return std::min(std::chrono::milliseconds(1000 << doublings), std::chrono::milliseconds(60'000));
}

}  // namespace krow
