// JSON Schema → columns. krow stores JSON Schema payloads as sent, so each column is the
// property's own JSON value, typed by what the schema says it is. Only what maps to one
// column type is typed; everything else (several types, anyOf/oneOf of several schemas,
// arrays, objects without properties) is one JSON column.

#include <simdjson.h>

#include <algorithm>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "columns/column_names.hpp"
#include "columns/column_plan.hpp"

namespace krow::columns {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// Schemas nest far less; the bound keeps a hostile document's $ref chains finite.
constexpr int kMaxDepth = 64;

[[noreturn]] void fail(const std::string& reason) {
  throw std::invalid_argument("JSON Schema: " + reason);
}

// One schema document (the registry's, or a reference), parsed and kept for the run.
struct Document {
  std::string name;  // the reference name ($ref URI); empty for the root
  std::string id;    // its $id, if any
  std::unique_ptr<simdjson::dom::parser> parser;
  element root;
};

// What a (sub)schema says a value is.
struct Shape {
  enum Kind { scalar, object_kind, json } kind = json;
  ColumnType type = ColumnType::json;
  bool nullable = false;
  std::string source;
  element schema;  // object_kind: the schema holding `properties`
  const Document* doc = nullptr;
};

class JsonSchemaPlanner {
 public:
  JsonSchemaPlanner(const ResolvedSchema& schema, const ColumnOptions& options, ColumnPlan& out)
      : options_(options), out_(out) {
    load(schema, "");
  }

  void run() {
    const Document& root = docs_.front();
    const Shape s = shape(root.root, &root, 0);
    if (s.kind == Shape::object_kind) {
      out_.root = "object" + title(s.schema);
      active_.insert(key(s));
      properties(s, {}, false, 0);
    } else {
      out_.root = s.source;
      add({}, s.kind == Shape::scalar ? s.type : ColumnType::json, true, s.source);
    }
  }

 private:
  void load(const ResolvedSchema& schema, const std::string& name) {
    if (schema.type != SchemaType::json) fail("reference \"" + name + "\" is not a JSON Schema");
    for (const auto& d : docs_)
      if (d.name == name && !name.empty()) return;
    Document d;
    d.name = name;
    d.parser = std::make_unique<simdjson::dom::parser>();
    if (auto err = d.parser->parse(schema.text).get(d.root))
      fail(std::string(name.empty() ? "the schema" : "reference \"" + name + "\"") +
           " is not valid JSON (" + simdjson::error_message(err) + ")");
    std::string_view id;
    if (d.root.is_object() && !d.root["$id"].get(id)) d.id = std::string(id);
    docs_.push_back(std::move(d));
    for (const auto& ref : schema.references)
      if (ref.schema) load(*ref.schema, ref.name);
  }

  static std::string title(element schema) {
    std::string_view t;
    return !schema["title"].get(t) ? " " + std::string(t) : std::string();
  }

  static std::string key(const Shape& s) {
    return std::to_string(reinterpret_cast<uintptr_t>(s.doc)) + "/" + simdjson::minify(s.schema);
  }

  // Follows a $ref: a JSON pointer in this document ("#/definitions/X", "#"), or another
  // document by its reference name or $id, with an optional pointer after its '#'.
  std::pair<element, const Document*> follow(std::string_view ref, const Document* doc) {
    const auto hash = ref.find('#');
    const std::string_view uri = ref.substr(0, hash);
    const std::string_view pointer = hash == std::string_view::npos ? "" : ref.substr(hash + 1);
    if (!uri.empty()) {
      doc = nullptr;
      for (const auto& d : docs_)
        if ((!d.name.empty() && d.name == uri) || (!d.id.empty() && d.id == uri)) doc = &d;
      if (!doc) fail("$ref \"" + std::string(ref) + "\" names no reference of the schema");
    }
    element target = doc->root;
    if (!pointer.empty() && target.at_pointer(pointer).get(target))
      fail("$ref \"" + std::string(ref) + "\" points at nothing");
    return {target, doc};
  }

  // What `schema` says a value is.
  Shape shape(element schema, const Document* doc, int depth) {
    if (depth > kMaxDepth)
      fail("$ref and combinations nest deeper than " + std::to_string(kMaxDepth) + " levels");
    Shape s;
    s.doc = doc;
    s.schema = schema;
    if (schema.is_bool()) return s.source = "any", s.nullable = true, s;  // true: anything
    if (!schema.is_object())
      fail("a schema must be an object or a boolean, not " + simdjson::minify(schema));
    std::string_view ref;
    if (!schema["$ref"].get(ref)) {
      auto [target, target_doc] = follow(ref, doc);
      return shape(target, target_doc, depth + 1);
    }
    array list;
    if (!schema["allOf"].get(list) && list.size() == 1)
      return shape(list.at(0).value_unsafe(), doc, depth + 1);
    for (const char* combinator : {"anyOf", "oneOf"}) {
      if (schema[combinator].get(list)) continue;
      // [X, {"type": "null"}] is X, nullable; any other choice is JSON.
      std::vector<Shape> options;
      bool has_null = false;
      for (element option : list) {
        const Shape o = shape(option, doc, depth + 1);
        if (o.kind == Shape::scalar && o.source == "null")
          has_null = true;
        else
          options.push_back(o);
      }
      if (options.size() == 1 && has_null) {
        Shape one = options[0];
        one.nullable = true;
        return one;
      }
      s.source = combinator;
      s.nullable = true;
      return s;
    }
    if (!schema["allOf"].get(list)) return s.source = "allOf", s.nullable = true, s;

    std::vector<std::string> types;
    element type_el;
    if (!schema["type"].get(type_el)) {
      std::string_view t;
      if (!type_el.get(t)) {
        types.emplace_back(t);
      } else if (array listed; !type_el.get(listed)) {
        for (element e : listed)
          if (!e.get(t)) types.emplace_back(t);
      }
    } else if (schema["properties"].error() == simdjson::SUCCESS) {
      types.emplace_back("object");
    } else {
      element e;
      array values;
      if (!schema["const"].get(e) || (!schema["enum"].get(values) && values.size() > 0)) {
        // An enum or const of strings only is text.
        bool strings = true;
        if (!schema["const"].get(e))
          strings = e.is_string();
        else
          for (element v : values) strings = strings && v.is_string();
        if (strings) return s.kind = Shape::scalar, s.type = ColumnType::text, s.source = "enum", s;
      }
      return s.source = "any", s.nullable = true, s;
    }
    const auto null_at = std::find(types.begin(), types.end(), "null");
    if (null_at != types.end()) {
      s.nullable = true;
      types.erase(null_at);
    }
    if (types.empty())
      return s.kind = Shape::scalar, s.type = ColumnType::json, s.source = "null", s;
    if (types.size() > 1) {
      s.source = "";
      for (const auto& t : types) s.source += (s.source.empty() ? "" : " | ") + t;
      return s;
    }
    const std::string& t = types[0];
    s.kind = Shape::scalar;
    s.source = t;
    std::string_view connect;
    const bool has_connect = !schema["connect.type"].get(connect);
    if (t == "boolean") {
      s.type = ColumnType::boolean;
    } else if (t == "integer") {
      // Confluent's JSON Schema converter records narrower Java types.
      s.type = has_connect && (connect == "int8" || connect == "int16" || connect == "int32")
                   ? ColumnType::int32
                   : ColumnType::int64;
      if (has_connect) s.source += " (connect.type " + std::string(connect) + ")";
    } else if (t == "number") {
      s.type = has_connect && connect == "float32" ? ColumnType::float32 : ColumnType::float64;
      if (has_connect) s.source += " (connect.type " + std::string(connect) + ")";
    } else if (t == "string") {
      std::string_view format;
      s.type = ColumnType::text;
      if (!schema["format"].get(format)) {
        s.source += " (format " + std::string(format) + ")";
        if (format == "date-time") s.type = ColumnType::timestamp;
        if (format == "date") s.type = ColumnType::date;
        if (format == "time") s.type = ColumnType::time;
      } else if (has_connect && connect == "bytes") {
        s.type = ColumnType::bytes;
        s.source += " (connect.type bytes)";
      }
    } else if (t == "object") {
      object props;
      if (schema["properties"].get(props) || props.size() == 0) {
        s.kind = Shape::json;
        s.source = "object";
        return s;
      }
      s.kind = Shape::object_kind;
      s.source = "object" + title(schema);
    } else {  // array, or an unknown type name
      s.kind = Shape::json;
    }
    return s;
  }

  void add(std::vector<std::string> path, ColumnType type, bool nullable, std::string source) {
    out_.add(std::move(path), type, nullable, std::move(source));
  }

  void properties(const Shape& parent, const std::vector<std::string>& prefix, bool nullable,
                  int depth) {
    std::set<std::string_view> required;
    array req;
    if (!parent.schema["required"].get(req))
      for (element r : req) {
        std::string_view name;
        if (!r.get(name)) required.insert(name);
      }
    object props;
    if (parent.schema["properties"].get(props)) return;
    for (auto [name, schema] : props) {
      auto path = prefix;
      path.emplace_back(name);
      const Shape s = shape(schema, parent.doc, depth + 1);
      // A property not `required` may be missing from a value: nullable.
      const bool may_be_null = nullable || s.nullable || !required.contains(name);
      if (s.kind == Shape::scalar) {
        add(path, s.type, may_be_null, s.source);
      } else if (s.kind == Shape::json || options_.nested == NestedMode::json) {
        add(path, ColumnType::json, may_be_null, s.source);
      } else if (active_.contains(key(s)) || depth > kMaxDepth) {
        out_.notes.push_back(path_text(path) +
                             ": the object contains itself, so it is one JSON column there");
        add(path, ColumnType::json, may_be_null, s.source);
      } else {
        const auto k = key(s);
        active_.insert(k);
        properties(s, path, may_be_null, depth + 1);
        active_.erase(k);
      }
    }
  }

  const ColumnOptions& options_;
  ColumnPlan& out_;
  std::vector<Document> docs_;    // front: the registry's schema; documents never move after load
  std::set<std::string> active_;  // objects being flattened (recursion check)
};

}  // namespace

ColumnPlan plan_json_schema_columns(const ResolvedSchema& schema, const ColumnOptions& options) {
  ColumnPlan out;
  out.format = SchemaType::json;
  JsonSchemaPlanner planner(schema, options, out);
  planner.run();
  assign_names(out.columns, options.separator, options.max_name_bytes);
  return out;
}

}  // namespace krow::columns
