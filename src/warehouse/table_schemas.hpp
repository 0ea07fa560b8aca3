#pragma once
// What an engine makes of typed columns (columns/): its types, the typed columns a table
// has, the field → column bindings krow recorded, and the DDL of schema evolution. The
// planner (plan/typed_columns) asks; BatchWriter::create_table makes the changes.
//
// Thread: one thread at a time per object.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "columns/column_evolution.hpp"
#include "columns/column_names.hpp"
#include "columns/column_spec.hpp"

namespace krow {

class TableSchemas {
 public:
  virtual ~TableSchemas() = default;

  // The engine's SQL type of a typed column (columns/): "TIMESTAMPTZ", "numeric(20,0)", ...
  virtual std::string column_sql_type(const columns::ColumnSpec& column) const = 0;

  // What the engine's column for `column` holds: `column` itself where column_sql_type has a
  // type of that precision (DECIMAL(12,2)), a wider type's reach where it has not (BigQuery's
  // NUMERIC holds any DECIMAL(38,9)). Schema evolution compares it with a table's column.
  virtual columns::ColumnSpec column_holds(const columns::ColumnSpec& column) const {
    return column;
  }

  // The typed columns of an existing table (those after krow's metadata columns), in table
  // order, each with what its type holds where it is a type column_sql_type gives; nullopt
  // when the table does not exist (or, read-only, the warehouse does not). Throws
  // fatal_table when a table of that name exists without krow's metadata columns.
  virtual std::optional<std::vector<columns::TableColumn>> typed_columns(
      const std::string& table) = 0;

  // The field → column bindings krow recorded for `table` (columns/column_names.hpp): a field
  // keeps the column it was first given for the table's life. Empty for a table without typed
  // columns, or one created before krow recorded them. Meaningful for a table that exists.
  virtual std::vector<columns::ColumnBinding> column_bindings(const std::string& table) = 0;

  // The engine's DDL for the changes (columns/column_evolution) that have `ddl` set, in order:
  // what create_table() runs, and what `krow plan` shows.
  virtual std::vector<std::string> evolution_sql(
      const std::string& table, const std::vector<columns::ColumnChange>& changes) const = 0;
};

}  // namespace krow
