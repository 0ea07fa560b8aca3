#include "report/schema_report.hpp"

#include <algorithm>
#include <sstream>

#include "contract/row_contract.hpp"
#include "engines/engines.hpp"
#include "util/json_writer.hpp"

namespace krow {

namespace {

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
        << ", " << schema_type_name(t.type) << ", " << t.columns.root << ", " << t.columns.columns.size()
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
    w.field("schema_type", schema_type_name(t.type)).field("root", t.columns.root);
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

std::string format_schema_report(const SchemaReport& report, bool json) {
  return json ? format_json(report) : format_text(report);
}

}  // namespace krow
