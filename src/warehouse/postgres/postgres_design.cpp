// PostgreSQL's physical design: the manifest's `indexes:` (docs/physical-design.md), made
// with the table and read back from pg_indexes.

#include "warehouse/postgres/postgres_design.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "util/text.hpp"
#include "warehouse/postgres/postgres_warehouse.hpp"
#include "warehouse/sql_text.hpp"

namespace krow {

namespace {

// NAMEDATALEN - 1.
constexpr size_t kMaxName = 63;

std::string cell(const pg::ResultPtr& r, int row, int col) {
  return PQgetisnull(r.get(), row, col) ? std::string()
                                        : std::string(PQgetvalue(r.get(), row, col));
}

}  // namespace

std::string postgres_index_name(const std::string& table, const IndexSpec& index) {
  std::string words, key = table + '\n' + index.method;
  for (const auto& c : index.columns) {
    key += '\n' + c;
    if (!words.empty()) words += '_';
    for (unsigned char ch : c)
      words += std::isalnum(ch) && ch < 0x80 ? static_cast<char>(std::tolower(ch)) : '_';
  }
  char hash[16];
  std::snprintf(hash, sizeof hash, "_%08x", fnv1a(key));
  const size_t room =
      kMaxName - std::string(kPostgresIndexPrefix).size() - std::string(hash).size();
  if (words.size() > room) words.resize(room);
  return kPostgresIndexPrefix + words + hash;
}

std::string postgres_index_sql(const std::string& schema, const std::string& table,
                               const IndexSpec& index) {
  std::string columns;
  for (const auto& c : index.columns) columns += (columns.empty() ? "" : ", ") + quote(c);
  return "CREATE INDEX " + quote(postgres_index_name(table, index)) + " ON " + quote(schema) + "." +
         quote(table) + " USING " + index.method + " (" + columns + ")";
}

std::vector<std::string> PostgresWarehouse::design_index_sql(const std::string& table,
                                                             const TableDesign& design) const {
  std::vector<std::string> out;
  for (const auto& i : design.indexes) out.push_back(postgres_index_sql(config_.schema, table, i));
  return out;
}

DesignPlan PostgresWarehouse::plan_design(const std::string& table, const TableSettings& settings) {
  DesignPlan plan;
  plan.ddl.push_back(brin_index_sql(table));
  if (const auto key = key_index_sql(table, settings); !key.empty()) plan.ddl.push_back(key);
  const auto wanted = design_index_sql(table, settings.design);
  plan.ddl.insert(plan.ddl.end(), wanted.begin(), wanted.end());
  ensure_connected();
  const auto target = quote(config_.schema) + "." + quote(table);
  if (!exists(target)) return plan;
  plan.exists = true;
  // The manifest's indexes the table has, by name; its other indexes are not the manifest's.
  const auto r = conn_->exec(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 AND "
      "starts_with(indexname, $3) ORDER BY indexname",
      {config_.schema, table, std::string(kPostgresIndexPrefix)}, "reading a table's indexes");
  std::vector<std::string> have;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    have.push_back(cell(r, i, 0));
    const auto def = cell(r, i, 1);
    const auto using_at = def.find(" USING ");
    plan.current += (plan.current.empty() ? "indexes " : ", ") + have.back() +
                    (using_at == std::string::npos ? "" : " " + def.substr(using_at + 7));
  }
  if (plan.current.empty()) plan.current = "no indexes of the manifest's";
  for (size_t i = 0; i < settings.design.indexes.size(); ++i) {
    const auto& index = settings.design.indexes[i];
    const auto name = postgres_index_name(table, index);
    if (std::find(have.begin(), have.end(), name) != have.end()) continue;
    std::string columns;
    for (const auto& c : index.columns) columns += (columns.empty() ? "" : ", ") + c;
    plan.changes.push_back(
        {"create index " + name + " using " + index.method + " (" + columns + ")", wanted[i],
         "builds it over every row of the table; writes to the table wait meanwhile"});
  }
  for (const auto& name : have) {
    const bool listed =
        std::any_of(settings.design.indexes.begin(), settings.design.indexes.end(),
                    [&](const IndexSpec& i) { return postgres_index_name(table, i) == name; });
    if (!listed)
      plan.changes.push_back({"drop index " + name + " (the manifest no longer lists it)",
                              "DROP INDEX " + quote(config_.schema) + "." + quote(name), ""});
  }
  return plan;
}

}  // namespace krow
