#pragma once
// `columns: infer`: typed columns for plain JSON values, picked from a sample of them (the
// first values a run reads). Pure: the values arrive as text; sampling them is the sync's job.
//
// Each field of the sampled objects becomes a column (nested objects flattened as the schema
// planners do, or one JSON column each), typed by every value the sample holds there:
// booleans → boolean, integers within 64 bits → int64, numbers with a fraction or exponent
// (mixed with integers or not) → float64, strings → text, arrays → json; anything mixed
// (a string here, a number there; an object here, a scalar there) and integers beyond 64 bits
// → json, which holds every value exactly. Nulls and missing fields only make a column
// nullable, which every inferred column is.
//
// Thread: any thread; nothing is shared between calls.

#include <string>
#include <vector>

#include "columns/column_evolution.hpp"
#include "columns/column_names.hpp"
#include "columns/column_plan.hpp"

namespace krow::columns {

// Plans the columns of `samples` (JSON texts; those that are not JSON objects are skipped).
ColumnPlan infer_json_columns(const std::vector<std::string>& samples,
                              const ColumnOptions& options);

// The type a column must have to hold values of both `a` and `b` as inference sees them
// (int64 and float64 → float64; otherwise, when they differ, json).
ColumnSpec unify_inferred(const ColumnSpec& a, const ColumnSpec& b);

// The columns an inferred table plans in this run: its existing columns first (each as
// `inferred` types it, unified with what the table holds: a sample never narrows a column,
// and a column the sample did not see is kept, filled from the field `bindings` record for
// it), then the newly seen ones. `inferred` is named against the table already
// (bind_names). `table` nullopt: the table does not exist yet.
std::vector<ColumnSpec> merge_inferred(const std::optional<std::vector<TableColumn>>& table,
                                       const ColumnPlan& inferred, const ColumnOptions& options,
                                       const std::vector<ColumnBinding>& bindings = {});

}  // namespace krow::columns
