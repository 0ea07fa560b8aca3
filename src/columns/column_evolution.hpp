#pragma once
// Schema evolution of typed tables: the columns planned from a topic's latest value schema
// compared with the columns its table has, and what to do about each difference. Pure: the
// adapters read their table's columns (Warehouse::typed_columns) and turn the changes into
// their engine's DDL (Warehouse::evolution_sql); this file only decides.
//
// Safe changes are applied: a planned column the table lacks is added (older rows hold NULL
// there); a column is widened when its new type holds every value of its old one exactly:
// INT → BIGINT, FLOAT or INT → DOUBLE, DECIMAL(p,s) → DECIMAL(p',s') with neither the integer
// digits (p - s) nor the scale fewer, an integer → a DECIMAL with as many integer digits.
// BIGINT → DOUBLE is not (it rounds beyond 2^53). Anything else is breaking: a type narrowed or
// changed, or a column the schema no longer has. A breaking change stops the table
// (OnBreaking::fail), or (OnBreaking::variant) is isolated: the field's values go, as JSON, to a
// column `__krow_nc__<column>` (added when missing) and the table's column is kept, NULL from then
// on; a removed field's column is kept, NULL from then on. Columns are never dropped, renamed or
// narrowed.
//
// Thread: any thread; nothing is shared between calls.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columns/column_spec.hpp"

namespace krow::columns {

// `on_breaking:` of a table.
enum class OnBreaking {
  fail,     // the table stops, naming the field and both types (the default)
  variant,  // the field's values go to its variant column, as JSON
};

// A typed column of an existing table (one after krow's metadata columns).
struct TableColumn {
  std::string name;
  // The engine's type, spelt as Warehouse::column_sql_type spells it when `spec` is set.
  std::string sql_type;
  // What the type holds (type, precision, scale); nullopt for a type krow never plans (a
  // column altered by hand, say), which only an identical planned type matches.
  std::optional<ColumnSpec> spec;
};

enum class ChangeKind {
  add,      // a planned column the table lacks: added, NULL in older rows
  widen,    // a column whose type the plan widens: its type is altered
  variant,  // a breaking change isolated: values go to the variant column (`column`)
  retire,   // a table column the schema no longer fills: kept, NULL from now on
};
std::string_view change_kind_name(ChangeKind kind);  // "add", "widen", "variant", "retire"

struct ColumnChange {
  ChangeKind kind = ChangeKind::add;
  ColumnSpec column;  // add, widen: the column as planned; variant: the variant column; retire: the
                      // kept column
  std::string of;     // variant: the table column whose values it takes instead; else column.name
  std::string from_type;  // widen, variant, retire: the table's type of `of`
  std::string to_type;    // add, widen: the type to add or widen to; variant: the planned type that
                          // did not fit
  bool ddl = false;       // the table changes (a column added or altered)
};

struct Evolution {
  // The table's typed columns once the changes are made, in table order (its columns first,
  // then the added ones): what every row fills. Retired ones are marked so.
  std::vector<ColumnSpec> columns;
  std::vector<std::string> sql_types;  // per column: its engine type
  std::vector<ColumnChange> changes;
  // With OnBreaking::fail: every breaking change in words, naming the field and both types,
  // with the fix; the table stops. Empty otherwise.
  std::string breaking;
};

enum class Compatibility { same, widening, breaking };
// How a table's column of type `table` meets a planned column of type `planned` (types
// only: names and nullability aside).
Compatibility compare_types(const ColumnSpec& table, const ColumnSpec& planned);

// Compares `planned` (from the latest value schema) with `table` (its table's typed columns;
// nullopt when the table does not exist yet, which then simply gets the plan). `sql_type`
// names a column's engine type; `max_name_bytes` bounds variant column names.
// `planned_from` names where the plan came from in messages. `holds` says what the engine's
// type for a planned column holds, as TableColumn::spec does for a table's (BigQuery's NUMERIC
// holds any DECIMAL(38,9)); none: exactly the planned type.
Evolution evolve_columns(const std::optional<std::vector<TableColumn>>& table,
                         const std::vector<ColumnSpec>& planned,
                         const std::function<std::string(const ColumnSpec&)>& sql_type,
                         OnBreaking on_breaking, size_t max_name_bytes,
                         const std::string& planned_from = "the latest value schema",
                         const std::function<ColumnSpec(const ColumnSpec&)>& holds = {});

}  // namespace krow::columns
