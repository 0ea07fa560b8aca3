#pragma once
// How a topic's messages meet its table (the manifest's `tables:`, manifest/table_settings):
// what every layer that writes a table needs to know of it.

#include <map>
#include <string>
#include <vector>

#include "columns/column_evolution.hpp"
#include "columns/column_spec.hpp"
#include "warehouse/table_design.hpp"

namespace krow {

enum class Strategy {
  append,         // one row per message (the default)
  latest_by_key,  // one row per key: the newest message's; a tombstone deletes it
  full_refresh,   // each run re-reads the whole retained topic and replaces the table's rows at once
};
const char* strategy_name(Strategy s);

// Where a table's typed columns come from (`columns:`), beside krow's metadata columns.
enum class TypedColumns {
  none,         // the metadata columns alone, the value as JSON (the default)
  from_schema,  // planned from the topic's latest value schema (subject <topic>-value)
  infer,        // picked from a sample of the plain JSON values each run reads (columns/json_inference)
  contract,     // the columns the table's column contract declares, and no others (`contract:` alone)
};

// A table's column contract (`contract:`): typed columns declared by name and type, for plain
// JSON or over what the schema or inference would give, and how values meet every typed
// column of the table.
struct ColumnContract {
  bool given = false;  // the table's rule has a `contract:`
  // Declared: name, path (default: the name as a top-level field), type (with precision and
  // scale for decimals); `source` is "contract <type>" ("contract decimal(12,2)").
  std::vector<columns::ColumnSpec> columns;
  // enforce: strict (a value that does not fit is NULL with a note in decode_error) or
  // coerce (converted first where nothing is lost: "12" into an integer, 12 into text).
  bool coerce = false;
  // empty_strings: keep ("" is "" in text columns, a misfit elsewhere) or null ("" is NULL).
  bool empty_as_null = false;
};

// How typed columns hold nested records, messages and objects (`nested:`).
enum class NestedColumns {
  flatten,  // one column per leaf field (the default)
  json,     // one JSON column per nested value
};

struct TableSettings {
  Strategy strategy = Strategy::append;
  std::vector<std::string> unique_key;  // latest_by_key: top-level value fields that identify a row; empty: the Kafka key
  bool keep_tombstones = false;         // latest_by_key: a tombstone stays as its key's row instead of deleting it
  TypedColumns columns = TypedColumns::none;
  ColumnContract contract;
  NestedColumns nested = NestedColumns::flatten;
  // columns: from_schema: the typed columns planned for the table (plan_typed_columns of
  // plan/typed_columns fills them after planning), after the metadata columns in this order.
  // Empty: the table has the metadata columns alone. For an existing table these are its
  // typed columns once `changes` are made (columns/column_evolution), in table order.
  std::vector<columns::ColumnSpec> typed_columns;
  // What a breaking change of the schema does (`on_breaking:`).
  columns::OnBreaking on_breaking = columns::OnBreaking::fail;
  // The changes create_table() makes to an existing table's typed columns (planned with
  // Warehouse::typed_columns before it; Warehouse::evolution_sql is their DDL).
  std::vector<columns::ColumnChange> changes;
  // The table's physical design (`partition_by`, `cluster_by`, `indexes`, `sort_by`;
  // warehouse/table_design.hpp). A new table is made with it. An existing table whose design
  // differs (TableDesigns::plan_design) keeps its own unless `apply_design` (`krow sync
  // --apply-design`): then create_table() makes the changes plan_design names.
  TableDesign design;
  bool apply_design = false;
  // True when a run's rows replace what the table held, rather than add to it.
  bool replaces(bool full_resync) const {
    return strategy == Strategy::full_refresh || (full_resync && strategy == Strategy::latest_by_key);
  }
};

// The settings an adapter's create_table() was given, by table name.
class TableSettingsByName {
 public:
  void set(const std::string& table, const TableSettings& settings) { by_name_[table] = settings; }
  // The settings of `table`, or the defaults for a table it was not given.
  const TableSettings& of(const std::string& table) const {
    static const TableSettings defaults;
    const auto it = by_name_.find(table);
    return it == by_name_.end() ? defaults : it->second;
  }

 private:
  std::map<std::string, TableSettings> by_name_;
};

}  // namespace krow
