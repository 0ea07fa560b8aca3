#pragma once
// SQL text that every SQL engine krow writes to reads the same way.

#include <cstdio>
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

}  // namespace krow
