#include "audit/reconcile.hpp"

#include <simdjson.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "audit/audit_support.hpp"
#include "kafka/cluster.hpp"
#include "registry/decoder_cache.hpp"
#include "rows/row_batch.hpp"
#include "sync/row_builder.hpp"
#include "sync/table_preparation.hpp"
#include "util/json_writer.hpp"
#include "util/text.hpp"

namespace krow::audit {

namespace {

constexpr size_t kListed = 20;            // findings listed per table (all are counted)
constexpr size_t kDecodedAtOnce = 10000;  // messages decoded into one batch while reading a topic
// The timestamp of the tombstone that deletes a gone key's rows: later than any row's, so that
// it is the newest message of its key whatever partition the rows are in (9999-12-31T23:59:59Z).
constexpr int64_t kLastMs = 253402300799000;

// A key's newest message in one partition.
struct Newest {
  Partition partition;
  Offset offset;
  int64_t timestamp_ms = 0;  // 0 without one, as the tables' rules read a NULL timestamp
  bool tombstone = false;
};

// The rule of latest_by_key (warehouse/sql_text.hpp latest_by_key_sql): within a partition the
// higher offset; across partitions the later timestamp, then the higher partition.
bool newer(const Newest& n, const Newest& t) {
  if (n.partition == t.partition) return n.offset >= t.offset;
  return n.timestamp_ms > t.timestamp_ms ||
         (n.timestamp_ms == t.timestamp_ms && n.partition > t.partition);
}

// What identifies a row: its key column, or its value's unique_key fields (each as minified
// JSON, joined by U+001F). None: the row has no key, and is appended as it is.
class Identity {
 public:
  explicit Identity(const TableSettings& settings) : fields_(settings.unique_key) {}

  std::optional<std::string> of(const std::optional<std::string_view>& key,
                                const std::optional<std::string_view>& value) {
    if (fields_.empty()) {
      if (!key) return std::nullopt;
      return std::string(*key);
    }
    if (!value) return std::nullopt;
    simdjson::dom::element doc;
    const simdjson::padded_string text(*value);
    if (parser_.parse(text).get(doc) != simdjson::SUCCESS || !doc.is_object()) return std::nullopt;
    std::string out;
    for (size_t i = 0; i < fields_.size(); ++i) {
      simdjson::dom::element field;
      if (doc[fields_[i]].get(field) != simdjson::SUCCESS || field.is_null()) return std::nullopt;
      if (i) out += '\x1f';
      out += field.is_string() ? std::string(std::string_view(field)) : simdjson::minify(field);
    }
    return out;
  }

 private:
  std::vector<std::string> fields_;
  simdjson::dom::parser parser_;
};

std::string shown(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '\x1f' ? std::string(", ") : std::string(1, c);
  if (out.size() > 60) out = out.substr(0, 57) + "...";
  return out;
}

std::string at(Partition p, Offset o) {
  return std::to_string(p.value()) + ":" + std::to_string(o.value());
}

// One table's comparison: what differs, and what `apply` writes to mend it.
struct Comparison {
  ReconcileTable result;
  std::map<Partition, std::set<int64_t>> rewrite;  // newest messages to write again, by partition
  struct Tombstone {
    std::string key;
    Partition partition;
    Offset offset;
  };
  std::vector<Tombstone> deletes;  // keys whose rows go
};

class Reconciler {
 public:
  Reconciler(const Manifest& manifest, Warehouse& warehouse, const ReconcileOptions& options)
      : manifest_(manifest), warehouse_(warehouse), options_(options), decoding_(manifest, "krow-reconcile") {}

  ReconcileReport run() {
    const auto t0 = std::chrono::steady_clock::now();
    client_.check_connection(std::chrono::seconds(manifest_.source.connect_timeout_s));
    kafka::Cluster cluster(client_);
    Plan plan = make_plan(cluster, warehouse_, manifest_, /*apply_bounds=*/false);
    ReconcileReport report;
    report.sync_id = manifest_.name;
    report.warehouse = warehouse_.describe();
    report.apply = options_.apply;
    const auto chosen = select_tables(plan, options_.tables, manifest_.name);
    std::set<const TopicPlan*> reconciled;
    for (const auto* t : chosen)
      if (t->settings.strategy == Strategy::latest_by_key && t->error.empty()) reconciled.insert(t);

    PreparedTables prepared;
    std::vector<PartitionClaim> claims;
    if (options_.apply && !reconciled.empty()) {
      // As a sync does before it writes: the tables made ready (typed columns planned), and
      // their partitions taken, so that the commit is fenced like any other.
      prepared = prepare_tables(plan, warehouse_,
                                {.manifest = &manifest_, .reads = [&](const TopicPlan& t) {
                                   return reconciled.count(&t) > 0;
                                 }});
      std::vector<PartitionKey> keys;
      for (const auto* t : reconciled)
        for (const auto& p : t->partitions)
          if (p.stored) keys.push_back({t->topic, t->topic_id, p.partition});
      claims = warehouse_.take(manifest_.name, keys);
      for (const auto& c : claims) {
        const auto* t =
            *std::find_if(reconciled.begin(), reconciled.end(),
                          [&](const TopicPlan* p) { return p->topic_id == c.key.topic_id; });
        const auto p =
            std::find_if(t->partitions.begin(), t->partitions.end(),
                         [&](const PartitionPlan& pp) { return pp.partition == c.key.partition; });
        if (c.position != p->stored)
          throw Error(ErrorClass::conflict,
                      "the position of " + t->topic + " partition " +
                          std::to_string(c.key.partition.value()) +
                          " moved while reconciling (another sync wrote it)",
                      Fix{"run krow reconcile again"});
      }
    }

    std::vector<Comparison> comparisons;
    std::vector<const TopicPlan*> compared;
    for (size_t i = 0; i < chosen.size(); ++i) {
      const TopicPlan& t = *chosen[i];
      Comparison c;
      c.result.topic = t.topic;
      c.result.table = t.table;
      if (t.settings.strategy != Strategy::latest_by_key) {
        c.result.skipped = std::string("strategy ") + strategy_name(t.settings.strategy) +
                           " keeps a row per message: krow audit proves it";
      } else if (!t.error.empty()) {
        c.result.error = t.error;
      } else if (options_.apply && !prepared.tables.empty() &&
                 !prepared.tables[index_of(plan, t)].error.empty()) {
        c.result.error = prepared.tables[index_of(plan, t)].error;
      } else {
        compare(t, c);
        compared.push_back(&t);
      }
      comparisons.push_back(std::move(c));
    }

    if (options_.apply && !claims.empty()) {
      mend(claims, comparisons, chosen);
      for (auto& c : comparisons) {
        if (!c.result.skipped.empty() || !c.result.error.empty()) continue;
        const TopicPlan& t = **std::find_if(chosen.begin(), chosen.end(), [&](const TopicPlan* p) {
          return p->table == c.result.table;
        });
        Comparison again;
        compare(t, again);
        c.result.applied = true;
        c.result.left_after_apply =
            again.result.gone + again.result.stale + again.result.missing + again.result.doubled;
      }
      if (prepared.staged && !prepared.staging.empty())
        warehouse_.discard_staged(manifest_.name, prepared.staging);
    }
    for (auto& c : comparisons) report.tables.push_back(std::move(c.result));
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return report;
  }

 private:
  static size_t index_of(const Plan& plan, const TopicPlan& t) {
    return static_cast<size_t>(&t - plan.topics.data());
  }

  void progress(const std::string& line) const {
    if (options_.progress) options_.progress(line);
  }

  // The topic's state (each key's newest message per partition) against the table's rows.
  void compare(const TopicPlan& t, Comparison& c) {
    auto& r = c.result;
    r.topic = t.topic;
    r.table = t.table;
    if (t.settings.unique_key.empty()) {
      r.key = "the Kafka key";
    } else {
      r.key = "unique_key";
      for (const auto& f : t.settings.unique_key) r.key += " " + f;
    }
    Identity identity(t.settings);
    std::map<std::string, std::vector<Newest>> state;
    for (const auto& p : t.partitions) {
      if (!p.stored) continue;
      progress("reading " + t.topic + " partition " + std::to_string(p.partition.value()) +
               " (offsets " + std::to_string(std::min(p.earliest, *p.stored).value()) + " to " +
               std::to_string(p.stored->value()) + ")");
      RowBatch batch;
      const size_t slot = batch.table_slot(t.table, t.topic, t.topic_id);
      auto take_in = [&] {
        const auto& arena = batch.arena();
        for (const auto& row : batch.tables()[slot].rows) {
          ++r.messages;
          auto view = [&](const Slice& s) {
            return s.present ? std::optional<std::string_view>(s.view(arena)) : std::nullopt;
          };
          const auto id = identity.of(view(row.key.text),
                                      row.is_tombstone ? std::nullopt : view(row.value.text));
          if (!id) continue;
          const Newest n{row.partition, row.offset,
                         row.timestamp_type == contract::TimestampType::none ? 0 : row.timestamp_ms,
                         row.is_tombstone};
          auto& newest = state[*id];
          if (!newest.empty() && newest.back().partition == n.partition)
            newest.back() = n;  // offset order: the later one is newer
          else
            newest.push_back(n);
        }
        batch.clear();
      };
      read_range(client_, t.topic, p.partition, std::min(p.earliest, *p.stored), *p.stored,
                 [&](const kafka::Message& m) {
                   rows_.add(m, batch, slot);
                   if (batch.row_count() >= kDecodedAtOnce) take_in();
                 });
      take_in();
    }
    // Each key's newest message over its partitions; a tombstone leaves no row unless kept.
    std::map<std::string, Newest> expected;
    for (const auto& [key, per_partition] : state) {
      Newest best = per_partition.front();
      for (const auto& n : per_partition)
        if (newer(n, best)) best = n;
      if (!best.tombstone || t.settings.keep_tombstones) expected.emplace(key, best);
    }
    r.keys = static_cast<int64_t>(expected.size());

    progress("reading the keys stored in " + t.table);
    std::map<std::string, std::vector<Newest>> stored;
    for (const auto& k : warehouse_.stored_keys(t.table, !t.settings.unique_key.empty())) {
      const auto id =
          identity.of(k.key ? std::optional<std::string_view>(*k.key) : std::nullopt,
                      k.value ? std::optional<std::string_view>(*k.value) : std::nullopt);
      if (!id) {
        ++r.unkeyed_rows;
        continue;
      }
      ++r.rows;
      stored[*id].push_back({k.partition, k.offset, 0, k.tombstone});
    }
    auto note = [&](KeyFinding::Kind kind, const std::string& key, std::string detail) {
      if (r.findings.size() < kListed) r.findings.push_back({kind, shown(key), std::move(detail)});
    };
    // Apply deletes a gone key's rows with a tombstone newer than all of them; it cannot where
    // no tombstone deletes (kept tombstones, or a unique_key, which a tombstone has no value for).
    const bool deletes = !t.settings.keep_tombstones && t.settings.unique_key.empty();
    for (const auto& [key, rows] : stored) {
      const auto it = expected.find(key);
      if (it == expected.end()) {
        r.gone += static_cast<int64_t>(rows.size());
        const auto s = state.find(key);
        note(KeyFinding::Kind::gone, key,
             "row at " + at(rows.front().partition, rows.front().offset) +
                 (s == state.end() ? ", no message of the key left in the topic"
                                   : ", the key's newest message is a tombstone"));
        if (!deletes) {
          r.not_applied += static_cast<int64_t>(rows.size());
          continue;
        }
        Newest last = rows.front();
        for (const auto& row : rows)
          if (row.partition > last.partition ||
              (row.partition == last.partition && row.offset > last.offset))
            last = row;
        c.deletes.push_back({key, last.partition, last.offset});
        continue;
      }
      const Newest& n = it->second;
      const bool has_newest = std::any_of(rows.begin(), rows.end(), [&](const Newest& s) {
        return s.partition == n.partition && s.offset == n.offset;
      });
      if (rows.size() > 1) {
        r.doubled += static_cast<int64_t>(rows.size()) - 1;
        note(KeyFinding::Kind::doubled, key, std::to_string(rows.size()) + " rows");
      }
      if (!has_newest) {
        ++r.stale;
        note(KeyFinding::Kind::stale, key,
             "row at " + at(rows.front().partition, rows.front().offset) + ", newest message at " +
                 at(n.partition, n.offset));
      } else if (rows.size() == 1) {
        ++r.matching;
      }
      if (rows.size() > 1 || !has_newest) c.rewrite[n.partition].insert(n.offset.value());
    }
    for (const auto& [key, n] : expected)
      if (!stored.count(key)) {
        ++r.missing;
        note(KeyFinding::Kind::missing, key, "newest message at " + at(n.partition, n.offset));
        c.rewrite[n.partition].insert(n.offset.value());
      }
  }

  // Writes every table's mends in one transaction with the positions, which stay where they are.
  void mend(const std::vector<PartitionClaim>& claims, std::vector<Comparison>& comparisons,
            const std::vector<const TopicPlan*>& chosen) {
    RowBatch batch;
    for (size_t i = 0; i < chosen.size(); ++i) {
      auto& c = comparisons[i];
      if (!c.result.skipped.empty() || !c.result.error.empty()) continue;
      const TopicPlan& t = *chosen[i];
      std::shared_ptr<const rows::TypedLayout> typed;
      if (!t.settings.typed_columns.empty())
        typed = std::make_shared<const rows::TypedLayout>(
            rows::TypedLayout{t.settings.typed_columns, t.typed_sql_types,
                            {t.settings.contract.coerce, t.settings.contract.empty_as_null}});
      const size_t slot = batch.table_slot(t.table, t.topic, t.topic_id, typed);
      for (const auto& [partition, offsets] : c.rewrite) {
        if (offsets.empty()) continue;
        read_range(client_, t.topic, partition, Offset(*offsets.begin()),
                   Offset(*offsets.rbegin() + 1), [&](const kafka::Message& m) {
                     if (offsets.count(m.offset().value())) rows_.add(m, batch, slot);
                   });
      }
      c.result.rows_written = static_cast<int64_t>(batch.tables()[slot].rows.size());
      auto& table = batch.tables()[slot];
      for (const auto& d : c.deletes) {
        auto& arena = batch.arena();
        Row& row = table.rows.emplace_back();
        batch.count_row();
        row.partition = d.partition;
        row.offset = d.offset;
        row.timestamp_ms = kLastMs;
        row.timestamp_type = contract::TimestampType::create_time;
        row.is_tombstone = true;
        const size_t start = arena.size();
        arena += d.key;
        row.key.format = Format::string;
        row.key.text = slice_since(arena, start);
        table.cells.resize(table.cells.size() + table.typed_count());
        ++c.result.rows_deleted;
      }
    }
    std::vector<PositionMove> moves;
    for (const auto& claim : claims)
      moves.push_back(
          {Position{claim.key.topic, claim.key.topic_id, claim.key.partition, *claim.position},
           claim.position, claim.epoch});
    progress("writing the mends in one transaction");
    warehouse_.commit(manifest_.name, batch, moves, BatchWriter::WriteMode::append);
  }

  const Manifest& manifest_;
  Warehouse& warehouse_;
  const ReconcileOptions& options_;
  Decoding decoding_;
  kafka::Client& client_ = decoding_.client;
  RowBuilder& rows_ = decoding_.rows;
};

}  // namespace

const char* kind_name(KeyFinding::Kind k) {
  switch (k) {
    case KeyFinding::Kind::gone:
      return "gone";
    case KeyFinding::Kind::stale:
      return "stale";
    case KeyFinding::Kind::missing:
      return "missing";
    case KeyFinding::Kind::doubled:
      return "doubled";
  }
  return "?";
}

bool ReconcileReport::clean() const {
  for (const auto& t : tables) {
    if (!t.skipped.empty()) continue;
    if (!t.error.empty()) return false;
    if (apply ? t.left_after_apply > t.not_applied : !t.clean()) return false;
  }
  return true;
}

ReconcileReport reconcile(const Manifest& manifest, Warehouse& warehouse,
                          const ReconcileOptions& options) {
  return Reconciler(manifest, warehouse, options).run();
}

std::string format_text(const ReconcileReport& report) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f s", report.seconds);
  std::string out = "krow reconcile of sync " + report.sync_id + " in " + report.warehouse + " (" +
                    (report.apply ? "apply" : "report only") + ", " + seconds + ")\n";
  for (const auto& t : report.tables) {
    out += "\ntable " + t.table + " (topic " + t.topic + ")\n";
    if (!t.skipped.empty()) {
      out += "  skipped: " + t.skipped + "\n";
      continue;
    }
    if (!t.error.empty()) {
      out += "  not reconciled: " + t.error + "\n";
      continue;
    }
    out += "  " + with_thousands(t.messages) + " messages read; " + with_thousands(t.keys) +
           " keys in the topic's state (by " + t.key + "); " + with_thousands(t.rows) +
           " rows with a key, " + with_thousands(t.matching) + " matching\n";
    out += "  gone " + with_thousands(t.gone) + ", stale " + with_thousands(t.stale) +
           ", missing " + with_thousands(t.missing) + ", doubled " + with_thousands(t.doubled) +
           "\n";
    if (t.unkeyed_rows)
      out += "  " + with_thousands(t.unkeyed_rows) + " rows without a key are not reconciled\n";
    for (const auto& f : t.findings)
      out += "  " + std::string(kind_name(f.kind)) + ": key " + f.key + " (" + f.detail + ")\n";
    if (t.not_applied)
      out += "  " + with_thousands(t.not_applied) +
             " gone rows cannot be deleted by krow here (kept tombstones, or a unique_key): delete "
             "them by hand\n";
    if (t.applied)
      out += "  applied: " + with_thousands(t.rows_written) + " rows written, " +
             with_thousands(t.rows_deleted) +
             " keys deleted, in one transaction; differences left: " +
             with_thousands(t.left_after_apply) + "\n";
  }
  out += "\n";
  if (report.clean())
    out += report.apply ? "reconciled: every table now matches its topic's state\n"
                        : "matching: every table holds its topic's state, key by key\n";
  else
    out += report.apply ? "NOT RECONCILED: differences are left (see above)\n"
                        : "DIFFERENT: run krow reconcile --apply to mend the tables above\n";
  return out;
}

std::string format_json(const ReconcileReport& report) {
  JsonWriter w;
  w.begin_object();
  w.field("sync_id", report.sync_id);
  w.field("warehouse", report.warehouse);
  w.field("apply", report.apply);
  w.field("seconds", report.seconds);
  w.field("clean", report.clean());
  w.key("tables").begin_array();
  for (const auto& t : report.tables) {
    w.begin_object();
    w.field("table", t.table);
    w.field("topic", t.topic);
    w.field("key", t.key);
    w.key("skipped");
    t.skipped.empty() ? w.null() : w.value(t.skipped);
    w.key("error");
    t.error.empty() ? w.null() : w.value(t.error);
    w.field("messages", t.messages);
    w.field("keys", t.keys);
    w.field("rows", t.rows);
    w.field("unkeyed_rows", t.unkeyed_rows);
    w.field("matching", t.matching);
    w.field("gone", t.gone);
    w.field("stale", t.stale);
    w.field("missing", t.missing);
    w.field("doubled", t.doubled);
    w.field("not_applied", t.not_applied);
    w.field("applied", t.applied);
    w.field("rows_written", t.rows_written);
    w.field("rows_deleted", t.rows_deleted);
    w.field("left_after_apply", t.left_after_apply);
    w.key("findings").begin_array();
    for (const auto& f : t.findings) {
      w.begin_object();
      w.field("kind", kind_name(f.kind));
      w.field("key", f.key);
      w.field("detail", f.detail);
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
