#include "plan/typed_columns.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "columns/column_evolution.hpp"
#include "columns/json_inference.hpp"
#include "contract/row_contract.hpp"
#include "engines/engines.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"

namespace krow {

namespace {

const char* type_name(SchemaType t) {
  switch (t) {
    case SchemaType::avro:
      return "AVRO";
    case SchemaType::protobuf:
      return "PROTOBUF";
    case SchemaType::json:
      return "JSON";
  }
  return "?";
}

const char* status_name(TableSchema::Status s) {
  switch (s) {
    case TableSchema::Status::planned:
      return "planned";
    case TableSchema::Status::no_subject:
      return "no_subject";
    case TableSchema::Status::failed:
      return "failed";
  }
  return "failed";
}

constexpr const char* kNoRegistry =
    "typed columns come from the schema registry, and this manifest configures none: set "
    "registry.url (with "
    "registry.username and registry.password) to plan columns from each topic's value schema";

std::string options_text(const columns::ColumnOptions& o) {
  return std::string(o.nested == columns::NestedMode::flatten
                         ? "nested fields flattened with \"" + o.separator + "\""
                         : "nested values as one JSON column each") +
         ", arrays and maps as one JSON column each";
}

std::string metadata_names() {
  std::string out;
  for (const auto& c : contract::kColumns) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string format_text(const SchemaReport& r) {
  std::ostringstream out;
  out << "Columns for sync '" << r.sync_id << "' (" << r.warehouse << ", schema " << r.schema
      << ")\n";
  if (!r.registry) {
    out << "  " << kNoRegistry << "\n";
    return out.str();
  }
  out << "  from each topic's latest value schema in the registry (subject <topic>-value); "
      << options_text(r.options) << "\n  beside krow's " << contract::kColumnCount
      << " metadata columns (" << metadata_names() << ")\n"
      << "  a table gets these columns with columns: from_schema in the manifest's tables: ("
      << engines_that([](const WarehouseCapabilities& c) { return c.typed_columns; }) << ")\n";
  if (r.tables.empty()) out << "\n  no topics selected\n";
  for (const auto& t : r.tables) {
    out << "\ntable " << t.table << " (topic " << t.topic << ")\n";
    if (t.status != TableSchema::Status::planned) {
      out << "  " << t.message << "\n";
      continue;
    }
    out << "  subject " << t.subject << ": schema ID " << t.schema_id << ", version " << t.version
        << ", " << type_name(t.type) << ", " << t.columns.root << ", " << t.columns.columns.size()
        << " column(s)\n";
    const std::vector<std::string> head = {"column", "type", "source", "nullable", "path"};
    std::vector<std::vector<std::string>> rows_out;
    for (size_t i = 0; i < t.columns.columns.size(); ++i) {
      const auto& c = t.columns.columns[i];
      rows_out.push_back({c.name, t.sql_types[i], c.source, c.nullable ? "yes" : "no",
                          columns::path_text(c.path)});
    }
    std::vector<size_t> width(head.size());
    for (size_t k = 0; k < head.size(); ++k) {
      width[k] = head[k].size();
      for (const auto& row : rows_out) width[k] = std::max(width[k], row[k].size());
    }
    auto line = [&](const std::vector<std::string>& cells) {
      std::string s = " ";
      for (size_t k = 0; k < cells.size(); ++k)
        s += (k ? "  " : " ") + (k + 1 < cells.size() ? pad(cells[k], width[k]) : cells[k]);
      out << s << "\n";
    };
    line(head);
    for (const auto& row : rows_out) line(row);
    for (const auto& n : t.columns.notes) out << "  note: " << n << "\n";
  }
  return out.str();
}

std::string format_json(const SchemaReport& r) {
  JsonWriter w;
  w.begin_object();
  w.field("sync_id", r.sync_id).field("warehouse", r.warehouse).field("schema", r.schema);
  w.field("registry", r.registry);
  if (!r.registry) w.field("message", kNoRegistry);
  w.key("options").begin_object();
  w.field("nested", r.options.nested == columns::NestedMode::flatten ? "flatten" : "json");
  w.field("separator", r.options.separator).field("collections", "json");
  w.field("max_name_bytes", static_cast<uint64_t>(r.options.max_name_bytes));
  w.end_object();
  w.key("tables").begin_array();
  for (const auto& t : r.tables) {
    w.begin_object();
    w.field("topic", t.topic)
        .field("table", t.table)
        .field("subject", t.subject)
        .field("status", status_name(t.status));
    if (t.status != TableSchema::Status::planned) {
      w.field("message", t.message).end_object();
      continue;
    }
    w.field("schema_id", static_cast<int64_t>(t.schema_id)).field("version", t.version);
    w.field("schema_type", type_name(t.type)).field("root", t.columns.root);
    w.key("columns").begin_array();
    for (size_t i = 0; i < t.columns.columns.size(); ++i) {
      const auto& c = t.columns.columns[i];
      w.begin_object();
      w.field("name", c.name)
          .field("type", t.sql_types[i])
          .field("column_type", column_type_name(c.type));
      if (c.type == ColumnType::decimal)
        w.field("precision", static_cast<int64_t>(c.precision))
            .field("scale", static_cast<int64_t>(c.scale));
      w.field("nullable", c.nullable).field("source", c.source);
      w.key("path").begin_array();
      for (const auto& p : c.path) w.value(p);
      w.end_array();
      w.end_object();
    }
    w.end_array();
    w.key("notes").begin_array();
    for (const auto& n : t.columns.notes) w.value(n);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.str() + "\n";
}

}  // namespace

bool SchemaReport::failed() const {
  return std::any_of(tables.begin(), tables.end(),
                     [](const TableSchema& t) { return t.status == TableSchema::Status::failed; });
}

std::string value_subject(const std::string& topic) {
  return topic + "-value";
}

TableSchema plan_table_schema(const std::string& topic, const std::string& table,
                              SchemaRegistry& registry, const TableSchemas& warehouse,
                              const columns::ColumnOptions& options) {
  TableSchema t;
  t.topic = topic;
  t.table = table;
  t.subject = value_subject(topic);
  const auto answer = registry.latest(t.subject);  // throws Error(transient) when the registry keeps failing
  if (answer.outcome == SchemaRegistry::Outcome::not_found) {
    t.status = TableSchema::Status::no_subject;
    t.message = "no schema in the registry for subject " + t.subject + ": columns: infer would sample its JSON values";
  } else if (answer.outcome == SchemaRegistry::Outcome::refused) {
    t.message = answer.reason;
  } else {
    t.schema_id = answer.schema->id;
    t.version = answer.version;
    t.type = answer.schema->type;
    try {
      t.columns = columns::plan_columns(*answer.schema, options);
      for (const auto& c : t.columns.columns) t.sql_types.push_back(warehouse.column_sql_type(c));
      t.status = TableSchema::Status::planned;
    } catch (const std::exception& e) {
      t.message = "the latest schema of subject " + t.subject + " (ID " + std::to_string(t.schema_id) +
                  ") cannot be planned: " + e.what();
      if (!answer.loop_cut.empty()) t.message += "; " + answer.loop_cut;
    }
  }
  return t;
}

bool wants_typed_columns(const Plan& plan) {
  return std::any_of(plan.topics.begin(), plan.topics.end(),
                     [](const TopicPlan& t) { return t.settings.columns != TypedColumns::none; });
}

namespace {

// Compares `planned` with the table's columns (columns/column_evolution) and settles the
// table's typed columns and their changes, or its error for a breaking change.
void evolve_table(TopicPlan& t, TableSchemas& warehouse,
                  const std::vector<columns::ColumnSpec>& planned,
                  const std::optional<std::vector<columns::TableColumn>>& existing,
                  const columns::ColumnOptions& options) {
  auto evolution = columns::evolve_columns(
      existing, planned, [&](const columns::ColumnSpec& c) { return warehouse.column_sql_type(c); },
      t.settings.on_breaking, options.max_name_bytes,
      t.settings.columns == TypedColumns::infer ? "the sampled values" : "the latest value schema");
  if (!evolution.breaking.empty()) {
    t.error = "table " + t.table + " (topic " + t.topic + "): " +
              (t.settings.columns == TypedColumns::infer ? "the sampled JSON values have" : "the latest value schema (" +
                                                                                              t.typed_source + ") has") +
              " a breaking change for its typed columns: " + evolution.breaking;
    return;
  }
  t.settings.typed_columns = std::move(evolution.columns);
  t.typed_sql_types = std::move(evolution.sql_types);
  t.settings.changes = std::move(evolution.changes);
  t.evolution_sql = warehouse.evolution_sql(t.table, t.settings.changes);
}

// Names `planned` against `table` when it exists (columns/column_names bind_names): each field
// keeps the column krow's state binds it to, and a new one never takes a name the table has.
// Returns the table's bindings.
std::vector<columns::ColumnBinding> bind_to_table(
    const std::string& table, TableSchemas& warehouse,
    const std::optional<std::vector<columns::TableColumn>>& existing,
    std::vector<columns::ColumnSpec>& planned, const columns::ColumnOptions& options) {
  if (!existing) return {};
  auto bindings = warehouse.column_bindings(table);
  std::vector<std::string> names;
  for (const auto& c : *existing) names.push_back(c.name);
  columns::bind_names(planned, bindings, names, options.separator, options.max_name_bytes);
  return bindings;
}

// The table's typed columns, or nullopt when it does not exist; a table without krow's
// columns sets the table's error.
bool existing_columns(TopicPlan& t, TableSchemas& warehouse,
                      std::optional<std::vector<columns::TableColumn>>& out) {
  try {
    out = warehouse.typed_columns(t.table);
    return true;
  } catch (const Error& e) {
    if (e.error_class() != ErrorClass::fatal_table) throw;
    t.error = e.what();
    return false;
  }
}

columns::ColumnOptions options_of(const TopicPlan& t, const NameRules& names, bool tagged_unions) {
  columns::ColumnOptions options;
  options.tagged_unions = tagged_unions;
  options.nested = t.settings.nested == NestedColumns::json ? columns::NestedMode::json : columns::NestedMode::flatten;
  options.max_name_bytes = names.max_identifier_bytes;
  return options;
}

}  // namespace

void plan_typed_columns(Plan& plan, SchemaRegistry* registry, TableSchemas& warehouse,
                        bool tagged_unions, const JsonSampler& sample) {
  for (auto& t : plan.topics) {
    if (t.settings.columns == TypedColumns::none || !t.error.empty()) continue;
    if (t.settings.columns == TypedColumns::infer) {
      std::optional<std::vector<columns::TableColumn>> existing;
      if (!existing_columns(t, warehouse, existing)) continue;
      const auto samples = sample ? sample(t) : std::vector<std::string>{};
      const auto options = options_of(t, plan.names, tagged_unions);
      auto inferred = columns::infer_json_columns(samples, options);
      const auto bindings = bind_to_table(t.table, warehouse, existing, inferred.columns, options);
      t.typed_source = "inferred from " + std::to_string(samples.size()) + " sampled value(s) of this run" +
                       (existing ? " and the table's columns" : "");
      evolve_table(t, warehouse, columns::merge_inferred(existing, inferred, options, bindings),
                   existing, options);
      continue;
    }
    const std::string drop = "or drop `columns: from_schema` from its entry in the manifest's tables: to sync the "
                             "value as JSON alone";
    if (!registry) {
      t.error = "table " + t.table + " (topic " + t.topic + ") has columns: from_schema, which plans its columns from "
                "the schema registry, and the manifest configures none: set registry.url (with registry.username and "
                "registry.password), " + drop;
      continue;
    }
    auto options = options_of(t, plan.names, tagged_unions);
    auto s = plan_table_schema(t.topic, t.table, *registry, warehouse, options);
    switch (s.status) {
      case TableSchema::Status::planned: {
        t.typed_source = "subject " + s.subject + ", schema ID " + std::to_string(s.schema_id) + ", version " +
                         std::to_string(s.version) + ", " + type_name(s.type) + " " + s.columns.root;
        std::optional<std::vector<columns::TableColumn>> existing;
        if (!existing_columns(t, warehouse, existing)) break;
        bind_to_table(t.table, warehouse, existing, s.columns.columns, options);
        evolve_table(t, warehouse, s.columns.columns, existing, options);
        break;
      }
      case TableSchema::Status::no_subject:
        t.error = "table " + t.table + " (topic " + t.topic + ") has columns: from_schema, and the registry has no "
                  "schema for subject " + s.subject + ": register the topic's value schema under " + s.subject + ", " +
                  drop;
        break;
      case TableSchema::Status::failed:
        t.error = "table " + t.table + " (topic " + t.topic + "): its typed columns cannot be planned: " + s.message +
                  "; fix that, " + drop;
        break;
    }
  }
}

SchemaReport make_schema_report(const Plan& plan, SchemaRegistry* registry, TableSchemas& warehouse,
                                const columns::ColumnOptions& options) {
  SchemaReport r;
  r.sync_id = plan.sync_id;
  r.warehouse = plan.warehouse;
  r.schema = plan.schema;
  r.registry = registry != nullptr;
  r.options = options;
  r.options.max_name_bytes = plan.names.max_identifier_bytes;
  if (!registry) return r;
  for (const auto& topic : plan.topics) {
    if (!topic.error.empty()) {
      TableSchema t;
      t.topic = topic.topic;
      t.table = topic.table;
      t.subject = value_subject(topic.topic);
      t.message = "cannot be planned: " + topic.error;
      r.tables.push_back(std::move(t));
      continue;
    }
    auto t = plan_table_schema(topic.topic, topic.table, *registry, warehouse, r.options);
    if (t.status == TableSchema::Status::planned) {
      // An existing table's fields keep their columns, as the sync keeps them.
      try {
        bind_to_table(t.table, warehouse, warehouse.typed_columns(t.table), t.columns.columns,
                      r.options);
      } catch (const Error& e) {
        if (e.error_class() != ErrorClass::fatal_table) throw;
        t.status = TableSchema::Status::failed;
        t.message = e.what();
      }
    }
    r.tables.push_back(std::move(t));
  }
  return r;
}

std::string format_schema_report(const SchemaReport& report, bool json) {
  return json ? format_json(report) : format_text(report);
}

}  // namespace krow
