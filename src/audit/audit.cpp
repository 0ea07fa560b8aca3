#include "audit/audit.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "audit/audit_support.hpp"
#include "audit/row_check.hpp"
#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "kafka/errors.hpp"
#include "kafka/reader.hpp"
#include "plan/plan.hpp"
#include "registry/decoder_cache.hpp"
#include "rows/row_batch.hpp"
#include "sync/row_builder.hpp"
#include "util/error.hpp"

namespace krow::audit {

namespace {

// Offsets per bucket when a partition's counts disagree: the table's rows are then counted per
// bucket, and only the buckets that disagree with Kafka are read offset by offset.
constexpr int64_t kBucket = 16384;
// Findings listed per partition (all are counted).
constexpr size_t kFindingsListed = 20;
// Messages compared per round trip to the warehouse (--deep), and per run of consecutive
// offsets (--sample).
constexpr int64_t kChunk = 5000;
constexpr int64_t kRun = 100;
void note(PartitionResult& r, Finding::Kind kind, Offset offset, std::string detail = {}) {
  if (r.findings.size() < kFindingsListed) r.findings.push_back({kind, offset, std::move(detail)});
}

std::string partition_name(const TopicPlan& t, const PartitionResult& r) {
  return t.table + " partition " + std::to_string(r.partition.value());
}

// A run of offsets of one partition to compare message by message.
struct Window {
  size_t table = 0, partition = 0;  // indexes into the report
  Offset from, to;
};

class Auditor {
 public:
  Auditor(const Manifest& manifest, Warehouse& warehouse, const Options& options)
      : manifest_(manifest), warehouse_(warehouse), options_(options), decoding_(manifest, "krow-audit") {}

  Report run() {
    const auto t0 = std::chrono::steady_clock::now();
    client_.check_connection(std::chrono::seconds(manifest_.source.connect_timeout_s));
    kafka::Cluster cluster(client_);
    const Plan plan = make_plan(cluster, warehouse_, manifest_, /*apply_bounds=*/false);
    Report report;
    report.sync_id = manifest_.name;
    report.warehouse = warehouse_.describe();
    report.depth = options_.depth == Options::Depth::deep ? "deep"
                   : options_.depth == Options::Depth::sample
                       ? "sample " + std::to_string(options_.sample)
                       : "counts";
    for (const auto* t : select_tables(plan, options_.tables, manifest_.name)) {
      plans_.push_back(t);
      report.tables.push_back(audit_table(*t));
    }
    if (options_.depth == Options::Depth::sample) sample(report);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return report;
  }

 private:
  void progress(const std::string& line) const {
    if (options_.progress) options_.progress(line);
  }

  TableResult audit_table(const TopicPlan& t) {
    TableResult out;
    out.topic = t.topic;
    out.table = t.table;
    out.topic_id = t.topic_id;
    out.strategy = strategy_name(t.settings.strategy);
    if (!t.error.empty()) {
      out.error = t.error;
      return out;
    }
    if (t.settings.strategy == Strategy::latest_by_key) {
      out.skipped =
          "latest_by_key keeps one row per key, not one per message; snapshot reconciliation "
          "compares it "
          "with the topic's state (docs/audit.md)";
      return out;
    }
    std::vector<OffsetRange> ranges;
    for (const auto& p : t.partitions)
      if (p.stored)
        ranges.push_back({t.topic_id, p.partition, std::min(p.earliest, *p.stored), *p.stored});
    std::vector<PartitionTally> tallies;
    try {
      progress("counting the rows of " + t.table);
      tallies = warehouse_.tally_partitions(t.table, ranges);
    } catch (const Error& e) {
      if (e.error_class() == ErrorClass::transient) throw;
      out.error = e.what();
      return out;
    }
    std::map<std::pair<std::string, int32_t>, const PartitionTally*> by_partition;
    for (const auto& tally : tallies)
      by_partition[{tally.topic_id.str(), tally.partition.value()}] = &tally;
    for (const auto& range : ranges) {
      const auto it = by_partition.find({range.topic_id.str(), range.partition.value()});
      const PartitionTally none{};
      const PartitionTally& tally = it == by_partition.end() ? none : *it->second;
      if (it != by_partition.end()) by_partition.erase(it);
      out.partitions.push_back(audit_partition(t, range, tally));
    }
    for (const auto& [key, tally] : by_partition) {
      out.other_rows += tally->rows;
      out.other_partitions.push_back(key.first + ":" + std::to_string(key.second) + " (" +
                                     std::to_string(tally->rows) + " rows)");
    }
    if (options_.depth == Options::Depth::deep)
      for (auto& r : out.partitions)
        for (Offset at = r.from; at < r.to;
             at = Offset(std::min(at.value() + kChunk, r.to.value())))
          compare(t, r, at, Offset(std::min(at.value() + kChunk, r.to.value())));
    return out;
  }

  PartitionResult audit_partition(const TopicPlan& t, const OffsetRange& range,
                                  const PartitionTally& tally) {
    PartitionResult r;
    r.partition = range.partition;
    r.from = range.from;
    r.to = range.to;
    r.from_reason = "log start";
    // A first sync that started later than the log start (bounds.start_from) copied nothing
    // before its first row: the audit starts there.
    if (manifest_.bounds.start_from.kind != StartFrom::Kind::earliest && tally.first &&
        *tally.first > r.from && *tally.first < r.to) {
      r.from = *tally.first;
      r.from_reason = "first row (bounds.start_from: " + manifest_.bounds.start_from.text + ")";
    }
    r.found = tally.rows_in_range;
    r.wrong_ids = tally.wrong_ids;
    r.before = tally.rows - tally.rows_in_range - tally.above_range;
    if (tally.above_range > 0) {
      // A sync running beside the audit may have committed past the position the plan read:
      // rows below its position now are its, not findings.
      const Offset now = std::max(r.to, stored_now(t, r.partition).value_or(r.to));
      const Offset end(tally.last ? tally.last->value() + 1 : r.to.value());
      for (const auto& s :
           warehouse_.stored_offsets(t.table, {t.topic_id, r.partition, now, std::max(now, end)})) {
        r.past_position += s.copies;
        note(r, Finding::Kind::past_position, s.offset,
             "stored position " + std::to_string(now.value()));
      }
      r.committed_meanwhile = tally.above_range - r.past_position;
    }
    const int64_t span = distance(r.from, r.to);
    // Every offset of the range once, and nothing else: proven by the counts alone.
    const bool counted = tally.rows_in_range == span && tally.offsets_in_range == span &&
                         tally.wrong_ids == 0 && r.past_position == 0;
    if (counted && options_.depth != Options::Depth::deep) {
      r.expected = span;
      return r;
    }
    offsets(t, r);
    return r;
  }

  // The position stored for a partition now (re-read: a sync may be running beside the audit).
  std::optional<Offset> stored_now(const TopicPlan& t, Partition partition) {
    if (!positions_now_) positions_now_ = warehouse_.positions(manifest_.name);
    for (const auto& p : *positions_now_)
      if (p.topic_id == t.topic_id && p.partition == partition) return p.next;
    return std::nullopt;
  }

  // Kafka's offsets of the partition's range against the table's, bucket by bucket, then
  // offset by offset where a bucket disagrees.
  void offsets(const TopicPlan& t, PartitionResult& r) {
    progress("reading the offsets of " + partition_name(t, r) + " from Kafka (" +
             std::to_string(r.from.value()) + " to " + std::to_string(r.to.value()) + ")");
    std::vector<int64_t> kafka;
    read_range(client_, t.topic, r.partition, r.from, r.to,
               [&](const kafka::Message& m) { kafka.push_back(m.offset().value()); });
    r.read_kafka = true;
    r.expected = static_cast<int64_t>(kafka.size());
    r.not_messages = distance(r.from, r.to) - r.expected;
    struct Counts {
      int64_t messages = 0, sum = 0;
    };
    std::map<int64_t, Counts> in_kafka;
    for (const auto o : kafka) {
      auto& c = in_kafka[o / kBucket];
      ++c.messages;
      c.sum += o;
    }
    const OffsetRange range{t.topic_id, r.partition, r.from, r.to};
    std::set<int64_t> disagree;
    std::set<int64_t> seen;
    for (const auto& b : warehouse_.tally_buckets(t.table, range, kBucket)) {
      seen.insert(b.bucket);
      const auto it = in_kafka.find(b.bucket);
      const Counts k = it == in_kafka.end() ? Counts{} : it->second;
      if (b.rows != k.messages || b.offsets != k.messages || b.offset_sum != k.sum || b.wrong_ids)
        disagree.insert(b.bucket);
    }
    for (const auto& [bucket, c] : in_kafka)
      if (!seen.count(bucket)) disagree.insert(bucket);
    for (const auto bucket : disagree) {
      const Offset lo(std::max(bucket * kBucket, r.from.value())),
          hi(std::min((bucket + 1) * kBucket, r.to.value()));
      const auto stored = warehouse_.stored_offsets(t.table, {t.topic_id, r.partition, lo, hi});
      auto k = std::lower_bound(kafka.begin(), kafka.end(), lo.value());
      const auto k_end = std::lower_bound(kafka.begin(), kafka.end(), hi.value());
      auto s = stored.begin();
      while (k != k_end || s != stored.end()) {
        if (s == stored.end() || (k != k_end && *k < s->offset.value())) {
          ++r.missing;
          note(r, Finding::Kind::missing, Offset(*k++));
          continue;
        }
        const bool message = k != k_end && *k == s->offset.value();
        if (!message) {
          r.not_in_kafka += s->copies;
          note(r, Finding::Kind::not_in_kafka, s->offset);
        } else if (s->copies > 1) {
          r.doubled += s->copies - 1;
          note(r, Finding::Kind::doubled, s->offset, std::to_string(s->copies) + " rows");
        }
        if (s->wrong_ids) note(r, Finding::Kind::wrong_id, s->offset);
        if (message) ++k;
        ++s;
      }
    }
    std::sort(r.findings.begin(), r.findings.end(),
              [](const Finding& a, const Finding& b) { return a.offset < b.offset; });
  }

  // Re-reads [from, to) of a partition, decodes it again, and compares the rows stored there.
  void compare(const TopicPlan& t, PartitionResult& r, Offset from, Offset to) {
    if (from >= to) return;
    progress("comparing " + partition_name(t, r) + " offsets " + std::to_string(from.value()) +
             " to " + std::to_string(to.value()));
    batch_.clear();
    const size_t slot = batch_.table_slot(t.table, t.topic, t.topic_id);
    read_range(client_, t.topic, r.partition, from, to,
               [&](const kafka::Message& m) { rows_.add(m, batch_, slot); });
    const auto stored = warehouse_.stored_rows(t.table, {t.topic_id, r.partition, from, to});
    std::map<int64_t, std::vector<const StoredRow*>> by_offset;
    for (const auto& s : stored) {
      const auto& offset = s.cells[contract::kOffset];
      if (offset) by_offset[std::stoll(*offset)].push_back(&s);
    }
    for (const auto& row : batch_.tables()[slot].rows) {
      const auto it = by_offset.find(row.offset.value());
      // Missing or doubled rows are the offset check's findings.
      if (it == by_offset.end() || it->second.size() != 1) continue;
      ++r.compared;
      const auto differ = differing_columns(expected_cells(row, t.topic_id, batch_.arena()),
                                            it->second.front()->cells);
      if (differ.empty()) continue;
      ++r.differing;
      std::string names;
      for (const auto name : differ) names += (names.empty() ? "" : ", ") + std::string(name);
      note(r, Finding::Kind::differing, row.offset, names);
    }
    std::sort(r.findings.begin(), r.findings.end(),
              [](const Finding& a, const Finding& b) { return a.offset < b.offset; });
  }

  // --sample N: runs of kRun consecutive offsets at random places of every audited range,
  // as many as make N messages, compared message by message. Each range is cut into slots of
  // kRun offsets; the runs are distinct slots drawn at random (Floyd's sampling).
  void sample(Report& report) {
    struct Span {
      size_t table, partition;
      int64_t from, to, slots;
    };
    std::vector<Span> spans;
    int64_t slots = 0;
    for (size_t ti = 0; ti < report.tables.size(); ++ti)
      for (size_t pi = 0; pi < report.tables[ti].partitions.size(); ++pi) {
        const auto& p = report.tables[ti].partitions[pi];
        if (p.to <= p.from) continue;
        spans.push_back(
            {ti, pi, p.from.value(), p.to.value(), (distance(p.from, p.to) + kRun - 1) / kRun});
        slots += spans.back().slots;
      }
    const int64_t runs = std::min<int64_t>((options_.sample + kRun - 1) / kRun, slots);
    if (runs <= 0) return;
    std::mt19937_64 random(
        options_.seed
            ? options_.seed
            : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
    std::set<int64_t> chosen;
    for (int64_t j = slots - runs; j < slots; ++j) {
      const int64_t t = std::uniform_int_distribution<int64_t>(0, j)(random);
      chosen.insert(chosen.count(t) ? j : t);
    }
    auto span = spans.begin();
    int64_t first_slot = 0;  // of *span
    for (const int64_t slot : chosen) {
      while (slot >= first_slot + span->slots) first_slot += (span++)->slots;
      const int64_t from = span->from + (slot - first_slot) * kRun;
      auto& p = report.tables[span->table].partitions[span->partition];
      compare(*plans_[span->table], p, Offset(from), Offset(std::min(from + kRun, span->to)));
    }
  }

  const Manifest& manifest_;
  Warehouse& warehouse_;
  const Options& options_;
  Decoding decoding_;
  kafka::Client& client_ = decoding_.client;
  RowBuilder& rows_ = decoding_.rows;
  RowBatch batch_;
  std::vector<const TopicPlan*> plans_;  // of report.tables, in order
  std::optional<std::vector<Position>> positions_now_;
};

}  // namespace

Decoding::Decoding(const Manifest& manifest, const std::string& client_id)
    : client(manifest.source, kafka::ClientOptions{.client_id = client_id}),
      schemas(manifest.registry.configured()
                  ? std::make_unique<DecoderCache>(manifest.registry, DecodeOptions{manifest.registry.tagged_unions})
                  : nullptr),
      rows(DecoderOptions{static_cast<size_t>(manifest.limits.max_value_bytes)}, schemas.get()) {}

std::vector<const TopicPlan*> select_tables(const Plan& plan, const std::vector<std::string>& names,
                                            const std::string& sync_id) {
  std::vector<const TopicPlan*> out;
  std::set<std::string> unknown(names.begin(), names.end());
  for (const auto& t : plan.topics) {
    const bool asked = names.empty() || std::count(names.begin(), names.end(), t.table) ||
                       std::count(names.begin(), names.end(), t.topic);
    if (!asked) continue;
    unknown.erase(t.table);
    unknown.erase(t.topic);
    out.push_back(&t);
  }
  if (!unknown.empty()) {
    std::string all;
    for (const auto& t : plan.topics) all += (all.empty() ? "" : ", ") + t.table;
    throw Error(
        ErrorClass::config,
        "--tables names " + *unknown.begin() + ", which is no table or topic of sync " + sync_id,
        Fix{"its tables are: " + (all.empty() ? std::string("none") : all), ": "});
  }
  return out;
}

const char* kind_name(Finding::Kind k) {
  switch (k) {
    case Finding::Kind::missing:
      return "missing";
    case Finding::Kind::doubled:
      return "doubled";
    case Finding::Kind::differing:
      return "differing";
    case Finding::Kind::wrong_id:
      return "wrong_id";
    case Finding::Kind::not_in_kafka:
      return "not_in_kafka";
    case Finding::Kind::past_position:
      return "past_position";
  }
  return "?";
}

bool TableResult::clean() const {
  if (!error.empty()) return false;
  for (const auto& p : partitions)
    if (!p.clean()) return false;
  return true;
}

bool Report::clean() const {
  for (const auto& t : tables)
    if (!t.clean()) return false;
  return true;
}

Report run(const Manifest& manifest, Warehouse& warehouse, const Options& options) {
  return Auditor(manifest, warehouse, options).run();
}

}  // namespace krow::audit
