#pragma once
// A table's physical design, in its engine's own terms (the manifest's `tables:`, read by
// manifest/physical_design; docs/physical-design.md): time partitioning and clustering on
// BigQuery, indexes on PostgreSQL, the order of the rows krow appends on DuckDB. What an
// engine takes is its capabilities' `design` (warehouse/capabilities.hpp); an adapter is never
// given a key its engine does not take. What the design of a table comes to, and how an
// existing table's differs, is the adapter's to say (TableDesigns, warehouse/table_designs.hpp).

#include <optional>
#include <string>
#include <vector>

namespace krow {

// The granularity of time partitioning.
enum class TimeGrain { hour, day, month, year };
const char* time_grain_name(TimeGrain grain);  // "hour", "day", ...

// Time partitioning: each partition holds the rows whose `column` falls in one `grain`.
struct PartitionSpec {
  std::string column = "kafka_timestamp";
  TimeGrain grain = TimeGrain::day;
  bool operator==(const PartitionSpec&) const = default;
};

// One index krow makes and keeps (PostgreSQL), over `columns` in order.
struct IndexSpec {
  std::vector<std::string> columns;
  std::string method = "btree";  // btree | hash | brin | gin
  bool operator==(const IndexSpec&) const = default;
};

struct TableDesign {
  // BigQuery. `partition_by` and `cluster_by` set for the table (`tables:`) replace the
  // warehouse's defaults (warehouse.partition_by, warehouse.cluster_by) for it.
  bool partition_set = false;              // `partition_by:` given
  std::optional<PartitionSpec> partition;  // with partition_set: none means not partitioned
  std::optional<std::vector<std::string>> cluster_by;  // given: [] means not clustered
  // PostgreSQL: indexes beside krow's own (a BRIN on partition and offset; latest_by_key's key).
  std::vector<IndexSpec> indexes;
  // DuckDB: the order of the rows of each batch krow writes, and of the whole table when the
  // design is applied to an existing one.
  std::vector<std::string> sort_by;

  bool empty() const { return !partition_set && !cluster_by && indexes.empty() && sort_by.empty(); }
  // Every column it names, in the order the keys name them (a name may come twice).
  std::vector<std::string> columns() const {
    std::vector<std::string> out;
    if (partition) out.push_back(partition->column);
    if (cluster_by) out.insert(out.end(), cluster_by->begin(), cluster_by->end());
    for (const auto& i : indexes) out.insert(out.end(), i.columns.begin(), i.columns.end());
    out.insert(out.end(), sort_by.begin(), sort_by.end());
    return out;
  }
};

inline const char* time_grain_name(TimeGrain grain) {
  switch (grain) {
    case TimeGrain::hour:
      return "hour";
    case TimeGrain::day:
      return "day";
    case TimeGrain::month:
      return "month";
    case TimeGrain::year:
      return "year";
  }
  return "day";
}

// One step that brings an existing table's design to the manifest's.
struct DesignChange {
  std::string what;  // for people: "add index krow_ix_... (customer_id)"
  // The engine's statement, as `krow plan` shows it and an applying sync runs it; for a step
  // that is an API call rather than SQL (BigQuery's tables.patch), the call as text.
  std::string ddl;
  // What it costs beyond the statement itself ("rewrites the table's N rows"); empty: little.
  std::string cost;
};

// A table's physical design: as the manifest asks for it, and for an existing table as the
// engine's catalog has it, with the changes between them.
struct DesignPlan {
  // The design as a new table gets it, in the engine's DDL (or the statement krow runs for
  // it), krow's own parts (PostgreSQL's BRIN index) included; empty when it has none.
  std::vector<std::string> ddl;
  // The table exists: its design as the engine's catalog has it, for people ("partitioned by
  // day of kafka_timestamp, clustered by kafka_topic_id, kafka_partition"), and what brings it
  // to the manifest's (empty when they are the same). Those are made only when asked
  // (`krow sync --apply-design`).
  bool exists = false;
  std::string current;
  std::vector<DesignChange> changes;
};

}  // namespace krow
