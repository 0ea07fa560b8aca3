#include "plan/typed_columns.hpp"

#include <algorithm>
#include <stdexcept>

#include "columns/column_evolution.hpp"
#include "columns/json_inference.hpp"
#include "util/error.hpp"

namespace krow {

const char* schema_type_name(SchemaType t) {
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
      t.settings.columns == TypedColumns::infer      ? "the sampled values"
      : t.settings.columns == TypedColumns::contract ? "the column contract"
                                                     : "the latest value schema",
      [&](const columns::ColumnSpec& c) { return warehouse.column_holds(c); });
  if (!evolution.breaking.empty()) {
    t.error = "table " + t.table + " (topic " + t.topic + "): " +
              (t.settings.columns == TypedColumns::infer      ? std::string("the sampled JSON values have")
               : t.settings.columns == TypedColumns::contract ? std::string("its column contract has")
                                                              : "the latest value schema (" + t.typed_source + ") has") +
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

// The contract's declared columns over `planned` (from the schema or inference): a declared
// column takes the place of the planned column of its field (or of its name), with the
// declared name and type, and says in its source what it would have been; the others are
// added.
void apply_contract(const ColumnContract& contract, std::vector<columns::ColumnSpec>& planned, const char* by) {
  for (const auto& declared : contract.columns) {
    auto it = std::find_if(planned.begin(), planned.end(),
                           [&](const columns::ColumnSpec& c) { return !c.retired && c.path == declared.path; });
    if (it == planned.end())
      it = std::find_if(planned.begin(), planned.end(),
                        [&](const columns::ColumnSpec& c) { return !c.retired && c.name == declared.name; });
    if (it == planned.end()) {
      planned.push_back(declared);
      continue;
    }
    const std::string would = columns::declared_type(*it) + (it->source.empty() ? "" : ", " + it->source);
    const auto path = it->path;
    *it = declared;
    it->path = path;
    it->source = "contract " + columns::declared_type(declared) + "; " + by + ": " + would;
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
    if (t.settings.columns == TypedColumns::contract) {
      std::optional<std::vector<columns::TableColumn>> existing;
      if (!existing_columns(t, warehouse, existing)) continue;
      const auto options = options_of(t, plan.names, tagged_unions);
      auto declared = t.settings.contract.columns;
      bind_to_table(t.table, warehouse, existing, declared, options);
      t.typed_source = "the table's column contract";
      evolve_table(t, warehouse, declared, existing, options);
      continue;
    }
    if (t.settings.columns == TypedColumns::infer) {
      std::optional<std::vector<columns::TableColumn>> existing;
      if (!existing_columns(t, warehouse, existing)) continue;
      const auto samples = sample ? sample(t) : std::vector<std::string>{};
      const auto options = options_of(t, plan.names, tagged_unions);
      auto inferred = columns::infer_json_columns(samples, options);
      apply_contract(t.settings.contract, inferred.columns, "inferred");
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
                         std::to_string(s.version) + ", " + schema_type_name(s.type) + " " + s.columns.root;
        std::optional<std::vector<columns::TableColumn>> existing;
        if (!existing_columns(t, warehouse, existing)) break;
        apply_contract(t.settings.contract, s.columns.columns, "schema");
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

}  // namespace krow
