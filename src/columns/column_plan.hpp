#pragma once
// The column planner: a registry schema (with its references) in, the typed columns of its
// table out. Pure: no I/O, no registry access; the schema arrives resolved. Each format has
// its own planner (avro_columns.cpp, protobuf_columns.cpp, json_schema_columns.cpp); they
// share the naming rules of column_names.hpp.
//
// Thread: any thread; nothing is shared between calls.

#include <cstddef>
#include <string>
#include <vector>

#include "codec/schema_decoder.hpp"
#include "columns/column_spec.hpp"

namespace krow::columns {

// Nested records / messages / objects.
enum class NestedMode {
  flatten,  // one column per leaf field, named parent<separator>child
  json,     // one JSON column per nested value
};

// Arrays and maps (repeated and map fields). Only one form so far: LIST/MAP columns of the
// engines that have them are a later step.
enum class CollectionMode { json };

struct ColumnOptions {
  NestedMode nested = NestedMode::flatten;
  std::string separator = "__";  // between the field names of a flattened column
  CollectionMode collections = CollectionMode::json;
  // The engine's identifier limit in bytes (the engine's NameRules, warehouse/capabilities.hpp); 0:
  // none to care about.
  size_t max_name_bytes = 0;
  // Avro unions as the decoder writes them with `registry.tagged_unions: true`: the branch's
  // type name is then one more step of the path ({"field": {"string": "x"}}).
  bool tagged_unions = false;
};

struct ColumnPlan {
  SchemaType format = SchemaType::avro;
  std::string root;  // what the value is: "record com.acme.Order", "message acme.Order", "object"
  std::vector<ColumnSpec> columns;  // in schema order (depth first)
  std::vector<std::string> notes;   // choices worth telling: recursion cut, message picked, ...

  // Appends a column (named later, by assign_names).
  void add(std::vector<std::string> path, ColumnType type, bool nullable, std::string source, int32_t precision = 0,
           int32_t scale = 0) {
    ColumnSpec c;
    c.path = std::move(path);
    c.type = type;
    c.nullable = nullable;
    c.source = std::move(source);
    c.precision = precision;
    c.scale = scale;
    columns.push_back(std::move(c));
  }
};

// Plans the columns of a value written with `schema`. Throws std::invalid_argument with a
// one-line reason when the schema does not parse (as compiling its decoder would).
ColumnPlan plan_columns(const ResolvedSchema& schema, const ColumnOptions& options);

ColumnPlan plan_avro_columns(const ResolvedSchema& schema, const ColumnOptions& options);
// The value's message is the schema's first top-level message (message index [0], which
// Confluent's serializers write for it).
ColumnPlan plan_protobuf_columns(const ResolvedSchema& schema, const ColumnOptions& options);
ColumnPlan plan_json_schema_columns(const ResolvedSchema& schema, const ColumnOptions& options);

}  // namespace krow::columns
