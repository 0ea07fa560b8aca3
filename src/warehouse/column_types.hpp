#pragma once
// From an engine's type name back to what a typed column of that type holds, for the
// adapters' Warehouse::typed_columns: the planned type whose column_sql_type is that name.

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "contract/row_contract.hpp"
#include "contract/state_tables.hpp"
#include "warehouse/sql_text.hpp"
#include "warehouse/table_schemas.hpp"

namespace krow {

// The column (type, precision and scale) that `warehouse` gives the type `sql`, spelt as its
// column_sql_type spells it; nullopt for any other type.
inline std::optional<columns::ColumnSpec> spec_of_sql_type(const TableSchemas& warehouse,
                                                           const std::string& sql) {
  columns::ColumnSpec c;
  // In this order, so that a name two types share reads as the first: text before bytes
  // (both text), PostgreSQL's numeric(20,0) as uint64 before decimal (the same column).
  for (const auto t : {ColumnType::boolean, ColumnType::int32, ColumnType::int64, ColumnType::uint64,
                       ColumnType::float32, ColumnType::float64, ColumnType::text, ColumnType::bytes, ColumnType::date,
                       ColumnType::time, ColumnType::timestamp, ColumnType::json}) {
    c.type = t;
    if (warehouse.column_sql_type(c) == sql) return c;
  }
  const auto open = sql.find('(');
  int precision = 0, scale = 0;
  if (open == std::string::npos || std::sscanf(sql.c_str() + open, "(%d,%d)", &precision, &scale) != 2)
    return std::nullopt;
  c.type = ColumnType::decimal;
  c.precision = precision;
  c.scale = scale;
  if (warehouse.column_sql_type(c) == sql) return c;
  return std::nullopt;
}

// The column list of a CREATE TABLE of krow's metadata columns (contract/row_contract), in
// `warehouse`'s types: the same mapping as typed columns'.
inline std::string row_column_definitions(const TableSchemas& warehouse) {
  return contract::column_definitions([&](ColumnType t) {
    columns::ColumnSpec c;
    c.type = t;
    return warehouse.column_sql_type(c);
  });
}

// CREATE TABLE IF NOT EXISTS of one of krow's state tables (contract/state_tables.hpp) in
// `schema`, in `warehouse`'s types, with `now` the engine's expression for the current time.
inline std::string state_table_sql(const TableSchemas& warehouse, const std::string& schema,
                                   const contract::StateTable& table, const char* now) {
  std::string sql = "CREATE TABLE IF NOT EXISTS " + schema + "." + std::string(table.name) + " (";
  for (const auto& c : table.columns) {
    columns::ColumnSpec spec;
    spec.type = c.type;
    sql.append(c.name).append(" ").append(warehouse.column_sql_type(spec));
    if (!c.nullable) sql += " NOT NULL";
    if (c.now_by_default) sql.append(" DEFAULT ").append(now);
    sql += ", ";
  }
  sql += "PRIMARY KEY (";
  for (size_t k = 0; k < table.key.size(); ++k) sql.append(k ? ", " : "").append(table.key[k]);
  return sql + "))";
}

// The ADD COLUMN and ALTER COLUMN statements of `changes` on `target` (schema.table,
// quoted), in `warehouse`'s types, with `alter_type` the engine's clause between the column and its new type.
inline std::vector<std::string> evolution_statements(
    const TableSchemas& warehouse, const std::string& target,
    const std::vector<columns::ColumnChange>& changes, const char* alter_type) {
  std::vector<std::string> out;
  for (const auto& ch : changes) {
    if (!ch.ddl) continue;
    if (ch.kind == columns::ChangeKind::widen)
      out.push_back("ALTER TABLE " + target + " ALTER COLUMN " + quote(ch.column.name) + " " + alter_type + " " +
                    warehouse.column_sql_type(ch.column));
    else
      out.push_back("ALTER TABLE " + target + " ADD COLUMN " + quote(ch.column.name) + " " + warehouse.column_sql_type(ch.column));
  }
  return out;
}

// Why a table whose typed columns are `have` (Warehouse::typed_columns, after its changes were
// made) does not hold `want` (TableSettings::typed_columns) exactly, in order; empty when it
// does. `name` is the table's schema-qualified name.
inline std::string typed_columns_mismatch(const TableSchemas& warehouse, const std::string& name,
                                          const std::vector<columns::TableColumn>& have,
                                          const std::vector<columns::ColumnSpec>& want) {
  for (size_t k = 0; k < std::max(have.size(), want.size()); ++k) {
    const auto want_type = k < want.size() ? warehouse.column_sql_type(want[k]) : std::string();
    if (k < have.size() && k < want.size() && have[k].name == want[k].name && have[k].sql_type == want_type) continue;
    // The table changed between planning and now (another process altered it), or it was
    // planned without typed columns and has some.
    return "table " + name + " has " +
           (k < have.size() ? "column " + have[k].name + " (" + have[k].sql_type + ")" : std::string("no column")) +
           " where " +
           (k < want.size() ? "column " + want[k].name + " (" + want_type + ")"
                            : std::string("no typed column (no columns: from_schema in its entry of tables:)")) +
           " was planned; krow does not drop or rename columns: drop that column or the table, or give the table "
           "columns: from_schema with a schema that has it";
  }
  return {};
}

}  // namespace krow
