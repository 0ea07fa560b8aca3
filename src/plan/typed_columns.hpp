#pragma once
// Typed columns, planned for a sync and for `krow schema`: for every table, the columns
// planned from its topic's latest value schema in the registry (subject `<topic>-value`,
// Confluent's TopicNameStrategy) or from sampled JSON values, with each column's type in the
// manifest's warehouse. report/schema_report prints `krow schema`'s report.
//
// Thread: one thread at a time.

#include <functional>
#include <string>
#include <vector>

#include "columns/column_plan.hpp"
#include "plan/plan.hpp"
#include "registry/schema_registry.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

struct TableSchema {
  enum class Status {
    planned,     // columns planned from the subject's latest schema
    no_subject,  // the registry has no subject for the topic's values
    failed,  // the topic cannot be planned, or the registry refused, or the schema does not parse
  };
  std::string topic;
  std::string table;
  std::string subject;  // <topic>-value
  Status status = Status::failed;
  int32_t schema_id = 0;
  int64_t version = 0;
  SchemaType type = SchemaType::avro;
  columns::ColumnPlan columns;
  std::vector<std::string>
      sql_types;        // per column: the warehouse's type (Warehouse::column_sql_type)
  std::string message;  // no_subject and failed: what and what to do
};

struct SchemaReport {
  std::string sync_id;
  std::string warehouse;  // the warehouse's description
  std::string schema;     // warehouse schema
  bool registry = false;  // a registry is configured
  columns::ColumnOptions options;
  std::vector<TableSchema> tables;
  bool failed() const;  // some table failed
};

// The registry's word for a schema type: AVRO, PROTOBUF or JSON.
const char* schema_type_name(SchemaType type);

// The subject of a topic's value schemas under TopicNameStrategy.
std::string value_subject(const std::string& topic);

// Plans the columns of one topic's table from the latest schema of `<topic>-value` (status
// planned, no_subject or failed with its message), named within `options.max_name_bytes`
// (the engine's NameRules). Throws Error(transient) when the registry keeps failing.
TableSchema plan_table_schema(const std::string& topic, const std::string& table,
                              SchemaRegistry& registry, const TableSchemas& warehouse,
                              const columns::ColumnOptions& options);

// Whether a table of `plan` asks for typed columns (`columns: from_schema`).
bool wants_typed_columns(const Plan& plan);

// For each table of `plan` with `columns: from_schema` and no error: plans its typed columns
// (TopicPlan::settings.typed_columns, typed_sql_types, typed_source). A table whose columns
// cannot be planned (no registry, no subject, a refusal, a schema that does not parse) gets
// TopicPlan::error naming the fix, so that it stops and other tables go on. A table that
// exists already is compared with the plan (columns/column_evolution): the changes to make
// go to TopicPlan::settings.changes (their DDL to TopicPlan::evolution_sql), and a breaking
// change without `on_breaking: variant` stops the table, naming the field and both types.
// `registry` null: none is configured. Throws Error(transient) when the registry keeps
// failing.
// `columns: infer` tables are planned from the values `sample` returns for them (the first
// plain JSON values of the run; none when `sample` is empty) and the table's own columns.
using JsonSampler = std::function<std::vector<std::string>(const TopicPlan&)>;
void plan_typed_columns(Plan& plan, SchemaRegistry* registry, TableSchemas& warehouse,
                        bool tagged_unions, const JsonSampler& sample = {});

// Plans the columns of every topic of `plan`. `registry` null: none configured (the report
// then holds no tables). Throws Error(transient) when the registry keeps failing (see
// SchemaRegistry); other registry failures are per table.
// A table that exists already keeps its columns' names (columns/column_names bind_names).
SchemaReport make_schema_report(const Plan& plan, SchemaRegistry* registry, TableSchemas& warehouse,
                                const columns::ColumnOptions& options);

}  // namespace krow
