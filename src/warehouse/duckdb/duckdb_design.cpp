// DuckDB's physical design: the order of a table's rows (`sort_by`, docs/physical-design.md).
// DuckDB keeps no sort key of a table, only min/max statistics (zone maps) per row group and
// segment, which a scan uses to skip what a filter cannot match: the order rows are written in
// is what makes them narrow. So krow writes each batch in the manifest's order, and, when the
// design is applied to an existing table, writes the whole table again in that order. The
// order is recorded where DuckDB's catalog keeps words about a table: its comment
// (duckdb_tables().comment), `krow sort_by: "a", "b"`.

#include "warehouse/duckdb/duckdb_design.hpp"

#include "warehouse/duckdb/duckdb_warehouse.hpp"
#include "warehouse/sql_text.hpp"

namespace krow {

namespace {

// The prefix of the comments krow writes on tables with a sort order.
constexpr std::string_view kSortComment = "krow sort_by: ";

std::string column_list(const std::vector<std::string>& columns, bool quoted) {
  std::string out;
  for (const auto& c : columns) out += (out.empty() ? "" : ", ") + (quoted ? quote(c) : c);
  return out;
}

}  // namespace

std::string duckdb_sort_comment(const std::vector<std::string>& sort_by) {
  std::string out(kSortComment);
  for (size_t i = 0; i < sort_by.size(); ++i) out += (i ? ", " : "") + quote(sort_by[i]);
  return out;
}

std::vector<std::string> duckdb_parse_sort_comment(std::string_view comment) {
  std::vector<std::string> out;
  if (comment.substr(0, kSortComment.size()) != kSortComment) return {};
  size_t i = kSortComment.size();
  while (i < comment.size()) {
    if (comment[i] != '"') return {};
    std::string name;
    for (++i;; ++i) {
      if (i >= comment.size()) return {};
      if (comment[i] != '"') {
        name += comment[i];
        continue;
      }
      if (i + 1 < comment.size() && comment[i + 1] == '"') {  // a quote doubled in the name
        name += '"';
        ++i;
        continue;
      }
      ++i;
      break;
    }
    out.push_back(std::move(name));
    if (i == comment.size()) break;
    if (comment.substr(i, 2) != ", ") return {};
    i += 2;
  }
  return out;
}

std::string DuckDBWarehouse::sort_comment_sql(const std::string& table,
                                              const std::vector<std::string>& sort_by) const {
  return "COMMENT ON TABLE " + quote(config_.schema) + "." + quote(table) + " IS " +
         (sort_by.empty() ? std::string("NULL") : quote_literal(duckdb_sort_comment(sort_by)));
}

std::optional<std::vector<std::string>> DuckDBWarehouse::recorded_sort(const std::string& table) {
  if (!conn_ && !released_) return std::nullopt;  // read-only, and nothing synced yet
  duck::Prepared p(conn(),
                   "SELECT comment FROM duckdb_tables() WHERE database_name = current_database() "
                   "AND schema_name = ? AND table_name = ?");
  duckdb_bind_varchar(p.get(), 1, config_.schema.c_str());
  duckdb_bind_varchar(p.get(), 2, table.c_str());
  duck::Result r;
  p.run(r, "reading a table's comment");
  if (r.rows() == 0) return std::nullopt;
  return r.is_null(0, 0) ? std::vector<std::string>{} : duckdb_parse_sort_comment(r.text(0, 0));
}

std::string DuckDBWarehouse::order_by(const std::string& table) const {
  const auto it = sort_by_.find(table);
  return it == sort_by_.end() || it->second.empty() ? std::string()
                                                    : " ORDER BY " + column_list(it->second, true);
}

std::vector<std::string> DuckDBWarehouse::resort_sql(const std::string& table,
                                                     const std::vector<std::string>& sort_by,
                                                     const std::string& definitions) const {
  const auto target = quote(config_.schema) + "." + quote(table);
  const auto fresh = quote(table + "__krow_sorting");
  return {"CREATE TABLE " + quote(config_.schema) + "." + fresh + " (" + definitions + ")",
          "INSERT INTO " + quote(config_.schema) + "." + fresh + " SELECT * FROM " + target +
              " ORDER BY " + column_list(sort_by, true),
          "DROP TABLE " + target,
          "ALTER TABLE " + quote(config_.schema) + "." + fresh + " RENAME TO " + quote(table),
          sort_comment_sql(table, sort_by)};
}

DesignPlan DuckDBWarehouse::plan_design(const std::string& table, const TableSettings& settings) {
  DesignPlan plan;
  const auto& want = settings.design.sort_by;
  const auto target = quote(config_.schema) + "." + quote(table);
  if (!want.empty()) {
    plan.ddl.push_back(sort_comment_sql(table, want));
    plan.ddl.push_back("INSERT INTO " + target + " SELECT * FROM <each batch> ORDER BY " +
                       column_list(want, true));
  }
  const auto have = recorded_sort(table);
  if (!have) return plan;
  plan.exists = true;
  plan.current = have->empty() ? "rows in the order krow read them (no sort_by)"
                               : "rows sorted by " + column_list(*have, false) + " in each batch";
  if (*have == want) return plan;
  if (want.empty()) {
    plan.changes.push_back(
        {"keep the order krow reads rows in from now on (rows stored keep theirs)",
         sort_comment_sql(table, want), ""});
    return plan;
  }
  std::string ddl;
  for (const auto& sql : resort_sql(table, want, "<the table's columns>"))
    ddl += (ddl.empty() ? "" : "; ") + sql;
  plan.changes.push_back(
      {"write the table's rows again sorted by " + column_list(want, false) +
           ", and each batch from then on",
       ddl,
       "rewrites every row of the table once, in one transaction; the file needs room "
       "for a second copy until DuckDB reuses the first one's blocks"});
  return plan;
}

void DuckDBWarehouse::apply_sort(const std::string& table, const TableSettings& settings) {
  const auto& want = settings.design.sort_by;
  const auto have = recorded_sort(table);
  if (!have || *have == want) return;
  if (want.empty()) {
    exec(sort_comment_sql(table, want), "changing a table's sort order");
    return;
  }
  // Sorting more rows than the memory limit holds spills to disk: beside the file, as DuckDB
  // does for a database it opens itself (a sync attaches the file to one in memory, whose
  // spill folder would be the working directory's .tmp).
  exec("SET temp_directory = " + quote_literal(settings_.path.string() + ".tmp"),
       "choosing where a sort spills");
  for (const auto& sql : resort_sql(table, want, definitions_of(table)))
    exec(sql, "writing a table's rows again in its new sort order");
}

}  // namespace krow
