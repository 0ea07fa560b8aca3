#pragma once
// SQL text that every SQL engine krow writes to reads the same way.

#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "util/text.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

// `text` between `q`s, each `q` inside doubled: how SQL quotes identifiers and literals.
inline std::string sql_quoted(const std::string& text, char q) {
  std::string out(1, q);
  for (char c : text) {
    if (c == q) out.push_back(q);
    out.push_back(c);
  }
  out.push_back(q);
  return out;
}

// `ident` as a quoted SQL identifier ("my ""odd"" name"): safe whatever the name holds.
inline std::string quote(const std::string& ident) { return sql_quoted(ident, '"'); }

// `text` as a quoted SQL string literal ('it''s'): safe whatever the text holds.
inline std::string quote_literal(const std::string& text) { return sql_quoted(text, '\''); }

// The staging table of a sync's table in krow's state schema: "staged_<hash>_<table's
// letters and digits>", short enough for any engine's names and distinct per sync, warehouse
// schema and table.
inline std::string staging_table_name(const std::string& sync_id, const std::string& schema, const std::string& table) {
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08x", fnv1a(sync_id + '\n' + schema + '\n' + table));
  std::string out = "staged_" + std::string(hash) + "_";
  for (char c : table)
    if (out.size() < 56 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      out.push_back(c);
  return out;
}

// `ranges` as a derived table r (topic_id, kafka_partition, lo, hi) and the condition that
// matches the rows of table alias t in them: "(VALUES ...) AS r (...)", "t.kafka_topic_id = ...".
inline std::pair<std::string, std::string> ranges_sql(const std::vector<OffsetRange>& ranges) {
  std::string values = "(VALUES ";
  for (size_t i = 0; i < ranges.size(); ++i) {
    const auto& r = ranges[i];
    values += (i ? ", (" : "(") + quote_literal(r.topic_id.str()) + ", " + std::to_string(r.partition.value()) + ", " +
              std::to_string(r.from.value()) + ", " + std::to_string(r.to.value()) + ")";
  }
  return {values + ") AS r (topic_id, kafka_partition, lo, hi)",
          "t.kafka_topic_id = r.topic_id AND t.kafka_partition = r.kafka_partition AND t.kafka_offset >= r.lo AND "
          "t.kafka_offset < r.hi"};
}

// SELECT of the row count and the newest kafka_timestamp (in ms since the epoch) of `from`
// (a quoted table name), restricted to `ranges` when there are any. The same text reads in
// DuckDB and PostgreSQL.
inline std::string count_rows_sql(const std::string& from, const std::vector<OffsetRange>& ranges) {
  std::string sql = "SELECT count(*), CAST(extract(epoch FROM max(t.kafka_timestamp)) * 1000 AS BIGINT) FROM " + from +
                    " AS t";
  if (ranges.empty()) return sql;
  const auto [values, matches] = ranges_sql(ranges);
  return sql + " JOIN " + values + " ON " + matches;
}

// DELETE of the rows of `from` (a quoted table name) in `ranges`; DuckDB and PostgreSQL.
inline std::string delete_ranges_sql(const std::string& from, const std::vector<OffsetRange>& ranges) {
  const auto [values, matches] = ranges_sql(ranges);
  return "DELETE FROM " + from + " AS t USING " + values + " WHERE " + matches;
}

// The statements that bring the rows of `source` (new rows, krow's columns) into `target`
// by key (strategy latest_by_key), the same text for DuckDB and PostgreSQL. `key(alias)`
// gives the SQL expressions that identify a row of table alias `alias` (the Kafka key, or
// the value's unique_key fields in the engine's JSON syntax); a row with any of them NULL
// has no key and is appended as it is. `latest` is a name for a temporary table.
//
// The newest row of a key: within a partition, the highest offset; across partitions (a
// key that moved), the later kafka_timestamp, then the higher partition. A row replaces the
// stored one of its key when it is at least as new; a tombstone deletes it unless `keep`
// (then it is stored as the key's row). `rebuild`: the table is emptied first, and the new
// rows are its whole content (a full resync re-reads the whole topic). `order` (" ORDER BY
// ...", or empty) is the order rows are inserted in.
inline std::vector<std::string> latest_by_key_sql(
    const std::string& target, const std::string& source, const std::string& latest,
    const std::function<std::vector<std::string>(const char*)>& key, bool keep_tombstones,
    bool rebuild, const std::string& order = {}) {
  auto join = [](const std::vector<std::string>& parts, const char* sep) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
    return out;
  };
  auto each = [&](const char* alias, const char* suffix) {
    auto parts = key(alias);
    for (auto& p : parts) p += suffix;
    return parts;
  };
  const auto s = key("s"), p = key("p"), n = key("n"), t = key("t");
  std::vector<std::string> same;
  for (size_t i = 0; i < t.size(); ++i) same.push_back(t[i] + " = " + n[i]);
  const std::string epoch = "TIMESTAMPTZ '1970-01-01 00:00:00+00'";
  auto ts = [&](const char* alias) { return "coalesce(" + std::string(alias) + ".kafka_timestamp, " + epoch + ")"; };
  const std::string newer =
      "((t.kafka_partition = n.kafka_partition AND n.kafka_offset >= t.kafka_offset) OR (t.kafka_partition <> "
      "n.kafka_partition AND (" + ts("n") + " > " + ts("t") + " OR (" + ts("n") + " = " + ts("t") +
      " AND n.kafka_partition > t.kafka_partition))))";
  std::vector<std::string> out;
  if (rebuild) out.push_back("DELETE FROM " + target);
  out.push_back("DROP TABLE IF EXISTS " + latest);
  out.push_back("CREATE TEMP TABLE " + latest + " AS SELECT DISTINCT ON (" + join(p, ", ") + ") p.* FROM (SELECT " +
                "DISTINCT ON (" + join(s, ", ") + ", s.kafka_partition) s.* FROM " + source + " AS s WHERE " +
                join(each("s", " IS NOT NULL"), " AND ") + " ORDER BY " + join(s, ", ") +
                ", s.kafka_partition, s.kafka_offset DESC) AS p ORDER BY " + join(p, ", ") + ", " + ts("p") +
                " DESC, p.kafka_partition DESC");
  if (!rebuild)
    out.push_back("DELETE FROM " + target + " AS t USING " + latest + " AS n WHERE " + join(same, " AND ") + " AND " +
                  newer);
  out.push_back("INSERT INTO " + target + " SELECT n.* FROM " + latest + " AS n WHERE " +
                (keep_tombstones ? "TRUE" : "NOT n.is_tombstone") +
                (rebuild ? ""
                         : " AND NOT EXISTS (SELECT 1 FROM " + target + " AS t WHERE " +
                               join(same, " AND ") + ")") +
                order);
  out.push_back("INSERT INTO " + target + " SELECT s.* FROM " + source + " AS s WHERE " +
                join(each("s", " IS NULL"), " OR ") + order);
  out.push_back("DROP TABLE " + latest);
  return out;
}

}  // namespace krow
