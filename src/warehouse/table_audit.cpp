#include "warehouse/table_audit.hpp"

#include <stdexcept>

#include "util/error.hpp"

namespace krow {

namespace {

int64_t number(const std::optional<std::string>& cell) {
  if (!cell) return 0;
  try {
    size_t used = 0;
    const long long v = std::stoll(*cell, &used);
    if (used == cell->size()) return v;
  } catch (const std::exception&) {
  }
  throw Error(ErrorClass::fatal_run,
              "the warehouse answered an audit count with \"" + *cell + "\", not an integer");
}

std::optional<Offset> offset_or_none(const std::optional<std::string>& cell) {
  if (!cell) return std::nullopt;
  return Offset(number(cell));
}

// The condition that a row of alias t holds the id its topic ID, partition and offset make.
std::string id_is_right(const AuditSql& sql) {
  return "t.id = CONCAT(t.kafka_topic_id, ':', CAST(t.kafka_partition AS " + sql.text_type +
         "), ':', CAST(t.kafka_offset AS " + sql.text_type + "))";
}

std::string wrong_ids(const AuditSql& sql) {
  return "SUM(CASE WHEN " + id_is_right(sql) + " THEN 0 ELSE 1 END)";
}

std::string in_range(const AuditSql& sql, const OffsetRange& r) {
  return "t.kafka_topic_id = " + sql.literal(r.topic_id.str()) +
         " AND t.kafka_partition = " + std::to_string(r.partition.value()) +
         " AND t.kafka_offset >= " + std::to_string(r.from.value()) + " AND t.kafka_offset < " +
         std::to_string(r.to.value());
}

}  // namespace

std::vector<PartitionTally> TableAudit::tally_partitions(const std::string& table,
                                                         const std::vector<OffsetRange>& ranges) {
  const auto& sql = audit_sql();
  // A range no partition has keeps the derived table well-formed when there is none.
  auto with = ranges;
  if (with.empty()) with.push_back({TopicId(), Partition(-1), Offset(0), Offset(0)});
  const std::string inside = "t.kafka_offset >= r.lo AND t.kafka_offset < r.hi";
  const auto rows = select_text(
      "SELECT t.kafka_topic_id, t.kafka_partition, COUNT(*), SUM(CASE WHEN " + inside +
          " THEN 1 ELSE 0 END), COUNT(DISTINCT CASE WHEN " + inside +
          " THEN t.kafka_offset END), SUM(CASE WHEN t.kafka_offset >= r.hi THEN 1 ELSE 0 END), " +
          wrong_ids(sql) + ", MIN(t.kafka_offset), MAX(t.kafka_offset) FROM " +
          audited_table(table) + " AS t LEFT JOIN " + sql.ranges(with) +
          " ON t.kafka_topic_id = r.topic_id AND t.kafka_partition = r.kafka_partition GROUP BY "
          "t.kafka_topic_id, "
          "t.kafka_partition ORDER BY t.kafka_topic_id, t.kafka_partition",
      "counting the rows of " + table + " per partition");
  std::vector<PartitionTally> out;
  for (const auto& r : rows) {
    if (r.size() < 9)
      throw std::logic_error("audit tally: a row of " + std::to_string(r.size()) + " cells");
    PartitionTally p;
    p.topic_id = TopicId(r[0].value_or(""));
    p.partition = Partition(static_cast<int32_t>(number(r[1])));
    p.rows = number(r[2]);
    p.rows_in_range = number(r[3]);
    p.offsets_in_range = number(r[4]);
    p.above_range = number(r[5]);
    p.wrong_ids = number(r[6]);
    p.first = offset_or_none(r[7]);
    p.last = offset_or_none(r[8]);
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<BucketTally> TableAudit::tally_buckets(const std::string& table,
                                                   const OffsetRange& range, int64_t width) {
  const auto& sql = audit_sql();
  const auto rows = select_text(
      "SELECT " + sql.divided("t.kafka_offset", width) +
          " AS bucket, COUNT(*), COUNT(DISTINCT t.kafka_offset), SUM(t.kafka_offset), " +
          wrong_ids(sql) + " FROM " + audited_table(table) + " AS t WHERE " + in_range(sql, range) +
          " GROUP BY bucket ORDER BY bucket",
      "counting the rows of " + table + " per offset range");
  std::vector<BucketTally> out;
  for (const auto& r : rows) {
    if (r.size() < 5)
      throw std::logic_error("audit buckets: a row of " + std::to_string(r.size()) + " cells");
    out.push_back({number(r[0]), number(r[1]), number(r[2]), number(r[3]), number(r[4])});
  }
  return out;
}

std::vector<StoredOffset> TableAudit::stored_offsets(const std::string& table,
                                                     const OffsetRange& range) {
  const auto& sql = audit_sql();
  const auto rows = select_text("SELECT t.kafka_offset, COUNT(*), " + wrong_ids(sql) + " FROM " +
                                    audited_table(table) + " AS t WHERE " + in_range(sql, range) +
                                    " GROUP BY t.kafka_offset ORDER BY t.kafka_offset",
                                "reading the offsets stored in " + table);
  std::vector<StoredOffset> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    if (r.size() < 3)
      throw std::logic_error("audit offsets: a row of " + std::to_string(r.size()) + " cells");
    out.push_back({Offset(number(r[0])), number(r[1]), number(r[2])});
  }
  return out;
}

std::vector<StoredRow> TableAudit::stored_rows(const std::string& table, const OffsetRange& range) {
  const auto& sql = audit_sql();
  std::string columns;
  for (size_t i = 0; i < contract::kColumnCount; ++i) {
    const auto& c = contract::kColumns[i];
    const std::string name = "t." + std::string(c.name);
    std::string expr;
    switch (c.type) {
      case ColumnType::json:
        expr = sql.json_text(name);
        break;
      case ColumnType::timestamp:
        expr = "CAST(" + sql.millis(name) + " AS " + sql.text_type + ")";
        break;
      case ColumnType::text:
        expr = name;
        break;
      default:
        expr = "CAST(" + name + " AS " + sql.text_type + ")";
    }
    columns += (i ? ", " : "") + expr;
  }
  const auto rows =
      select_text("SELECT " + columns + " FROM " + audited_table(table) + " AS t WHERE " +
                      in_range(sql, range) + " ORDER BY t.kafka_offset",
                  "reading rows of " + table);
  std::vector<StoredRow> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    if (r.size() < contract::kColumnCount)
      throw std::logic_error("audit rows: a row of " + std::to_string(r.size()) + " cells");
    StoredRow s;
    for (size_t i = 0; i < contract::kColumnCount; ++i) s.cells[i] = r[i];
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<StoredKey> TableAudit::stored_keys(const std::string& table, bool with_value) {
  const auto& sql = audit_sql();
  const auto rows =
      select_text("SELECT t.key, t.kafka_partition, t.kafka_offset, CAST(t.is_tombstone AS " +
                      sql.text_type + ")" + (with_value ? ", " + sql.json_text("t.value") : "") +
                      " FROM " + audited_table(table) + " AS t",
                  "reading the keys stored in " + table);
  std::vector<StoredKey> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    if (r.size() < (with_value ? 5u : 4u))
      throw std::logic_error("audit keys: a row of " + std::to_string(r.size()) + " cells");
    StoredKey k;
    k.key = r[0];
    k.partition = Partition(static_cast<int32_t>(number(r[1])));
    k.offset = Offset(number(r[2]));
    k.tombstone = r[3] && *r[3] == "true";
    if (with_value) k.value = r[4];
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace krow
