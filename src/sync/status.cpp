#include "sync/status.hpp"

#include <algorithm>
#include <ctime>
#include <map>
#include <sstream>

#include "util/json_writer.hpp"
#include "util/text.hpp"

namespace krow {

namespace {

std::string iso_time(int64_t ms) {
  const std::time_t t = ms / 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string format_status(const Manifest& manifest, Warehouse& warehouse, bool json) {
  auto positions = warehouse.positions(manifest.name);
  std::sort(positions.begin(), positions.end(), [](const StoredPosition& a, const StoredPosition& b) {
    return std::tie(a.topic, a.topic_id, a.partition) < std::tie(b.topic, b.topic_id, b.partition);
  });
  std::map<std::string, std::string> table_of;
  for (const auto& t : warehouse.tables())
    if (t.sync_id == manifest.name) table_of[t.topic] = t.table;
  const auto runs = warehouse.runs(manifest.name, 5);

  if (json) {
    JsonWriter w;
    w.begin_object().field("sync_id", manifest.name).field("warehouse", warehouse.describe());
    w.key("positions").begin_array();
    for (const auto& p : positions)
      w.begin_object().field("topic", p.topic).field("table", table_of[p.topic]).field("topic_id", p.topic_id)
          .field("partition", p.partition).field("position", p.next_offset).end_object();
    w.end_array().key("runs").begin_array();
    for (const auto& r : runs) w.raw(r.json);
    w.end_array().end_object();
    return w.str() + "\n";
  }
  std::ostringstream out;
  out << "Sync '" << manifest.name << "' in " << warehouse.describe() << "\n";
  if (positions.empty()) out << "  no committed positions yet: run `krow sync` first\n";
  std::string last;
  for (const auto& p : positions) {
    const auto head = p.topic + " (" + p.topic_id + ")";
    if (head != last) {
      out << p.topic << "  ->  " << manifest.warehouse.schema << "." << table_of[p.topic] << "   (topic id "
          << p.topic_id << ")\n";
      last = head;
    }
    out << "    partition " << p.partition << ": position " << with_thousands(static_cast<uint64_t>(p.next_offset))
        << "\n";
  }
  if (!runs.empty()) out << "\nRecent runs:\n";
  for (const auto& r : runs)
    out << "  " << r.run_id << "  " << iso_time(r.started_at_ms) << "  " << r.status << "  "
        << (r.finished_at_ms - r.started_at_ms) << " ms\n";
  return out.str();
}

}  // namespace krow
