#pragma once
// A table's physical design in the manifest (`tables:`; docs/physical-design.md), in the
// engine's own terms:
//
//   tables:
//     orders:                                   # BigQuery
//       columns: from_schema
//       partition_by: {column: order_date, granularity: month}   # or day | hour | month | year
//                                               #   (of kafka_timestamp), or none
//       cluster_by: [customer_id, status]       # up to 4 columns; [] or none: not clustered
//     payments:                                 # PostgreSQL
//       indexes:
//         - customer_id                         # one column, btree
//         - {columns: [region, paid_at]}        # several, btree
//         - {columns: [value], using: gin}      # btree | hash | brin | gin
//     clicks:                                   # DuckDB
//       sort_by: [page, kafka_timestamp]        # each batch krow writes, in this order
//
// Every key is refused on an engine that does not take it (capabilities' `design`), at load,
// naming the engines that take it and the engine's own keys. Column names are the table's:
// krow's metadata columns, or its typed columns. Those are known only once planned
// (plan/table_designs checks them then); at load a name is checked against the metadata
// columns when the rule plans no typed columns, and a metadata column's type always.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "contract/column_type.hpp"
#include "settings/section.hpp"
#include "warehouse/capabilities.hpp"
#include "warehouse/table_strategy.hpp"

namespace krow {

// The keys of a `tables:` rule that set the physical design.
const std::vector<std::string>& design_keys();

// Reads the design keys of rule `s` (named `where` in messages: `tables."orders.*"`) into
// `t.design`; `t.columns` must be read already. Throws Error(config) naming the line: a key
// `engine` does not take, a malformed value, or a column that cannot be the table's.
void read_table_design(const ManifestReader& r, const YAML::Node& s, const std::string& where,
                       TableSettings& t, const WarehouseCapabilities& engine);

// A column of a table, as design checks see it.
struct DesignColumn {
  std::string name;
  ColumnType type;
};

// krow's metadata columns (contract/row_contract), in table order.
std::vector<DesignColumn> metadata_design_columns();

// What is wrong with `design` on a table whose columns are `columns`, for engine `engine`: a
// name that is not a column (naming the columns there are), a column of a type the key does
// not take, a column named twice in one key, an index method the engine does not take.
// `all_known` false: `columns` are the metadata columns alone and typed columns are still to
// be planned, so an unknown name passes. Empty when nothing is wrong.
std::string design_problem(const TableDesign& design, const std::vector<DesignColumn>& columns,
                           bool all_known, const WarehouseCapabilities& engine);

}  // namespace krow
