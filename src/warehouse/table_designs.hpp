#pragma once
// What an engine makes of a table's physical design (warehouse/table_design.hpp): the DDL a
// new table gets, the design an existing table has in the engine's catalog (PostgreSQL's
// pg_indexes, BigQuery's tables.get, the comment DuckDB keeps on the table), and the changes
// between them. `krow plan` shows them; BatchWriter::create_table makes them only when the
// table's settings say apply_design.
//
// Thread: one thread at a time per object.

#include <string>

#include "warehouse/table_design.hpp"
#include "warehouse/table_strategy.hpp"

namespace krow {

class TableDesigns {
 public:
  virtual ~TableDesigns() = default;

  // The design of `table` as `settings` ask for it (settings.design, and the engine's
  // defaults where it says nothing), over the table's columns as `settings` plan them
  // (typed_columns); for a table that exists, its design as the catalog has it and the
  // changes that bring it to the one asked for. Reads only. The column names of
  // settings.design are the table's (plan/table_designs checked them). Throws as a read does
  // (transient, fatal_run).
  virtual DesignPlan plan_design(const std::string& table, const TableSettings& settings) = 0;
};

}  // namespace krow
