// BigQuery's physical design: time partitioning and clustering (docs/physical-design.md),
// per table from the manifest's `tables:` or else the warehouse's defaults
// (warehouse.partition_by, cluster_by); made with the table (tables.insert), read back with
// tables.get.

#include "warehouse/bigquery/bigquery_design.hpp"

#include <algorithm>
#include <cctype>

#include "contract/row_contract.hpp"
#include "warehouse/bigquery/bigquery_warehouse.hpp"

namespace krow {

namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// `name` as a GoogleSQL quoted identifier.
std::string quoted(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`' || c == '\\') out += '\\';
    out += c;
  }
  return out + "`";
}

std::string joined(const std::vector<std::string>& names, bool quote) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + (quote ? quoted(n) : n);
  return out;
}

// The type of column `name` of a table with `settings`: a metadata column's, or a typed one's.
ColumnType type_of(const TableSettings& settings, const std::string& name) {
  for (const auto& c : contract::kColumns)
    if (c.name == name) return c.type;
  for (const auto& c : settings.typed_columns)
    if (c.name == name) return c.type;
  return ColumnType::timestamp;
}

}  // namespace

namespace bigquery {

std::string describe_partitioning(const TableLayout& l) {
  if (l.partition_type.empty()) return "not partitioned";
  if (l.partition_field.empty())
    return "partitioned by ingestion time (" + lower(l.partition_type) + ")";
  return "partitioned by " + lower(l.partition_type) + " of " + l.partition_field;
}

std::string describe_clustering(const TableLayout& l) {
  return l.cluster_by.empty() ? "not clustered" : "clustered by " + joined(l.cluster_by, false);
}

}  // namespace bigquery

namespace {

// A column of the table as a CREATE TABLE's column list gives it.
std::string definition(const bigquery::Field& f) {
  std::string out = quoted(f.name) + " " + f.type;
  if (f.precision > 0)
    out += "(" + std::to_string(f.precision) + "," + std::to_string(f.scale) + ")";
  return out + (f.required ? " NOT NULL" : "");
}

}  // namespace

namespace bigquery {

void design_layout(const TableSettings& settings, const BigQuerySettings& defaults,
                   TableLayout& layout) {
  const auto& d = settings.design;
  layout.partition_field.clear();
  layout.partition_type.clear();
  if (d.partition_set) {
    if (d.partition) {
      layout.partition_field = d.partition->column;
      layout.partition_type = upper(time_grain_name(d.partition->grain));
    }
  } else if (defaults.partition_by != "none") {
    layout.partition_field = "kafka_timestamp";
    layout.partition_type = upper(defaults.partition_by);
  }
  layout.cluster_by = d.cluster_by ? *d.cluster_by : defaults.cluster_by;
}

std::string design_clauses(const TableSettings& settings, const TableLayout& layout) {
  std::string out;
  if (!layout.partition_type.empty()) {
    const auto& column = layout.partition_field;
    const bool date = type_of(settings, column) == ColumnType::date;
    out += " PARTITION BY ";
    if (date && layout.partition_type == "DAY")
      out += quoted(column);
    else
      out += std::string(date ? "DATE_TRUNC(" : "TIMESTAMP_TRUNC(") + quoted(column) + ", " +
             layout.partition_type + ")";
  }
  if (!layout.cluster_by.empty()) out += " CLUSTER BY " + joined(layout.cluster_by, true);
  return out;
}

std::vector<DesignChange> design_changes(const std::string& table_ref,
                                         const TableSettings& settings, const TableLayout& have,
                                         const TableLayout& wanted) {
  std::vector<DesignChange> out;
  if (have.partition_type != wanted.partition_type ||
      have.partition_field != wanted.partition_field) {
    // BigQuery cannot change a table's partitioning: the table is made again, from itself, in
    // one statement (so that no reader ever finds it gone or half full), with its columns as
    // they are (a CREATE TABLE ... AS SELECT without them would lose their NOT NULL).
    std::string columns;
    for (const auto& f : have.fields) columns += (columns.empty() ? "" : ", ") + definition(f);
    out.push_back({"make the table again " + describe_partitioning(wanted) + " and " +
                       describe_clustering(wanted) +
                       " (BigQuery cannot change the partitioning of a table)",
                   "CREATE OR REPLACE TABLE " + table_ref + " (" + columns + ")" +
                       design_clauses(settings, wanted) + " AS SELECT * FROM " + table_ref,
                   "rewrites every row of the table: a query billed for all its bytes; labels, a "
                   "description or "
                   "options set on the table by hand are not carried over"});
  } else if (have.cluster_by != wanted.cluster_by) {
    std::string fields;
    for (const auto& c : wanted.cluster_by) fields += (fields.empty() ? "\"" : ", \"") + c + "\"";
    out.push_back(
        {wanted.cluster_by.empty() ? "stop clustering the table"
                                   : "cluster the table by " + joined(wanted.cluster_by, false),
         "tables.patch " + table_ref + " {\"clustering\": " +
             (wanted.cluster_by.empty() ? "null" : "{\"fields\": [" + fields + "]}") + "}",
         "rows written from then on are clustered by the new columns; rows already stored keep "
         "their "
         "blocks until BigQuery or a query rewrites them"});
  }
  return out;
}

}  // namespace bigquery

DesignPlan BigQueryWarehouse::plan_design(const std::string& table, const TableSettings& settings) {
  DesignPlan plan;
  bigquery::TableLayout wanted;
  bigquery::design_layout(settings, settings_, wanted);
  // Made through tables.insert; this is the same table in GoogleSQL's DDL.
  if (const auto clauses = bigquery::design_clauses(settings, wanted); !clauses.empty())
    plan.ddl.push_back("CREATE TABLE " + row_table(table) + " (...)" + clauses);
  const auto have = client_->table_layout(config_.schema, table);
  if (!have) return plan;
  plan.exists = true;
  plan.current =
      bigquery::describe_partitioning(*have) + ", " + bigquery::describe_clustering(*have);
  plan.changes = bigquery::design_changes(row_table(table), settings, *have, wanted);
  return plan;
}

void BigQueryWarehouse::apply_design(const std::string& table, const TableSettings& settings) {
  for (const auto& change : plan_design(table, settings).changes) {
    if (change.ddl.rfind("tables.patch", 0) == 0) {
      bigquery::TableLayout wanted;
      bigquery::design_layout(settings, settings_, wanted);
      client_->set_clustering(config_.schema, table, wanted.cluster_by);
    } else {
      client_->query(change.ddl, {}, location_, "making a table again with its new partitioning");
    }
  }
}

}  // namespace krow
