#pragma once
// BigQuery's physical design: time partitioning and clustering (docs/physical-design.md), a
// table's own (`tables:` partition_by, cluster_by) or else the warehouse's defaults
// (warehouse.partition_by, cluster_by). Pure; any thread.

#include <string>
#include <vector>

#include "warehouse/bigquery/bigquery_client.hpp"
#include "warehouse/bigquery/bigquery_settings.hpp"
#include "warehouse/table_strategy.hpp"

namespace krow::bigquery {

// Sets the partitioning and clustering of `layout` (its fields untouched) as `settings` ask,
// with `defaults`' where they say nothing.
void design_layout(const TableSettings& settings, const BigQuerySettings& defaults,
                   TableLayout& layout);

// " PARTITION BY TIMESTAMP_TRUNC(`kafka_timestamp`, DAY) CLUSTER BY `a`, `b`": `layout`'s
// design in GoogleSQL's DDL (a DATE column by the day is partitioned by itself, by the month or
// year through DATE_TRUNC); "" when it has none. Column types come from `settings` (a typed
// column) or the row contract.
std::string design_clauses(const TableSettings& settings, const TableLayout& layout);

// What brings a table laid out as `have` (tables.get) to `wanted` (design_layout), the table
// named `table_ref` in GoogleSQL: nothing when they are alike; a change of clustering made in
// place (tables.patch, its DDL the call as text); a change of partitioning, which BigQuery
// cannot make in place, by making the table again from itself with its columns as they are
// (CREATE OR REPLACE TABLE ... AS SELECT), clustering included.
std::vector<DesignChange> design_changes(const std::string& table_ref,
                                         const TableSettings& settings, const TableLayout& have,
                                         const TableLayout& wanted);

// "partitioned by day of kafka_timestamp", "partitioned by ingestion time (day)", "not
// partitioned"; "clustered by a, b", "not clustered".
std::string describe_partitioning(const TableLayout& layout);
std::string describe_clustering(const TableLayout& layout);

}  // namespace krow::bigquery
