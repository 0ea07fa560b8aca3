#pragma once
// The physical design of a sync's tables (`tables:` partition_by, cluster_by, indexes,
// sort_by; docs/physical-design.md), planned once their columns are: every column a design
// names must be one of the table's (krow's metadata columns, or its typed columns), of a type
// the key takes, and the warehouse says what the design comes to (its DDL) and, for a table
// that exists, how the table's own design differs (TableDesigns::plan_design).
//
// Thread: one thread at a time.

#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "warehouse/capabilities.hpp"
#include "warehouse/table_designs.hpp"

namespace krow {

// For each table of `plan` without an error, after plan_typed_columns: a design that names
// what is not a column of the table, or a column of a type its key does not take, stops the
// table (TopicPlan::error, naming the columns there are); otherwise TopicPlan::design is what
// `warehouse` plans. Throws as the warehouse's reads do (transient, fatal_run).
void plan_table_designs(Plan& plan, TableDesigns& warehouse, const WarehouseCapabilities& engine);

// "table orders (topic orders): its physical design differs from the manifest's: <changes>;
// left as it is ...": what a sync that does not apply the design says of a table whose design
// differs, once. Empty when it does not differ.
std::string unapplied_design_note(const TopicPlan& table);

}  // namespace krow
