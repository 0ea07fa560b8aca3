// Avro schema → columns, walking the decode plan the Avro decoder compiles (codec/avro), so
// that named types, references, namespaces and logical types mean here exactly what they
// mean when a message is decoded.

#include <algorithm>
#include <string>
#include <vector>

#include "codec/avro/avro_schema.hpp"
#include "columns/column_names.hpp"
#include "columns/column_plan.hpp"

namespace krow::columns {

namespace {

using avro::Node;
using avro::Op;

class AvroPlanner {
 public:
  AvroPlanner(const avro::AvroPlan& plan, const ColumnOptions& options, ColumnPlan& out)
      : plan_(plan), options_(options), out_(out) {}

  void run() {
    const Node& root = plan_.nodes[plan_.root];
    out_.root = root.op == Op::record ? "record " + type_name(plan_.root) : source_of(plan_.root);
    if (root.op == Op::record) {
      stack_.push_back(plan_.root);
      fields(root, {}, false);
    } else {
      plan({}, plan_.root, false);
    }
  }

 private:
  // The type name a node's tag holds: `{"com.acme.Name":` → com.acme.Name.
  std::string type_name(uint32_t node) const {
    const auto tag = plan_.view(plan_.nodes[node].tag);
    return tag.size() >= 4 ? std::string(tag.substr(2, tag.size() - 4)) : std::string();
  }

  // How a node is described in ColumnSpec::source.
  std::string source_of(uint32_t i) const {
    const Node& n = plan_.nodes[i];
    const auto logical = [&](const char* base, const char* lt) {
      return std::string(base) + " (" + lt + ")";
    };
    switch (n.op) {
      case Op::null_value:
        return "null";
      case Op::boolean:
        return "boolean";
      case Op::int32:
        return "int";
      case Op::int64:
        return "long";
      case Op::float32:
        return "float";
      case Op::float64:
        return "double";
      case Op::bytes:
        return "bytes";
      case Op::string:
        return "string";
      case Op::record:
        return "record " + type_name(i);
      case Op::enumeration:
        return "enum " + type_name(i);
      case Op::array:
        return "array<" + source_of(n.first) + ">";
      case Op::map:
        return "map<" + source_of(n.first) + ">";
      case Op::fixed:
        return "fixed " + type_name(i) + "(" + std::to_string(n.count) + ")";
      case Op::union_type: {
        std::string s = "union [";
        for (uint32_t b = 0; b < n.count; ++b)
          s += (b ? ", " : "") + source_of(plan_.branches[n.first + b]);
        return s + "]";
      }
      case Op::decimal_bytes:
      case Op::decimal_fixed: {
        std::string s = n.op == Op::decimal_bytes
                            ? "bytes"
                            : "fixed " + type_name(i) + "(" + std::to_string(n.count) + ")";
        return s + " (decimal(" + std::to_string(n.precision) + "," + std::to_string(n.scale) +
               "))";
      }
      case Op::uuid_fixed:
        return "fixed " + type_name(i) + "(16) (uuid)";
      case Op::date:
        return logical("int", "date");
      case Op::time_millis:
        return logical("int", "time-millis");
      case Op::time_micros:
        return logical("long", "time-micros");
      case Op::timestamp_millis:
        return logical("long", "timestamp-millis");
      case Op::timestamp_micros:
        return logical("long", "timestamp-micros");
      case Op::timestamp_nanos:
        return logical("long", "timestamp-nanos");
      case Op::local_timestamp_millis:
        return logical("long", "local-timestamp-millis");
      case Op::local_timestamp_micros:
        return logical("long", "local-timestamp-micros");
      case Op::local_timestamp_nanos:
        return logical("long", "local-timestamp-nanos");
      case Op::duration:
        return "fixed " + type_name(i) + "(12) (duration)";
    }
    return "?";
  }

  void fields(const Node& record, const std::vector<std::string>& prefix, bool nullable) {
    for (uint32_t f = 0; f < record.count; ++f) {
      const auto& field = plan_.fields[record.first + f];
      auto path = prefix;
      path.emplace_back(plan_.view(field.name));
      plan(path, field.node, nullable);
    }
  }

  void add(const std::vector<std::string>& path, ColumnType type, bool nullable, std::string source,
           int32_t precision = 0, int32_t scale = 0) {
    out_.add(path, type, nullable, std::move(source), precision, scale);
  }

  // One value at `path`: a column, or the columns of a flattened record.
  void plan(std::vector<std::string> path, uint32_t i, bool nullable) {
    const Node& n = plan_.nodes[i];
    const std::string source = source_of(i);
    switch (n.op) {
      case Op::null_value:
        return add(path, ColumnType::json, true, source);
      case Op::boolean:
        return add(path, ColumnType::boolean, nullable, source);
      case Op::int32:
        return add(path, ColumnType::int32, nullable, source);
      case Op::int64:
        return add(path, ColumnType::int64, nullable, source);
      case Op::float32:
        return add(path, ColumnType::float32, nullable, source);
      case Op::float64:
        return add(path, ColumnType::float64, nullable, source);
      case Op::bytes:
      case Op::fixed:
        return add(path, ColumnType::bytes, nullable, source);
      case Op::string:
      case Op::enumeration:
      case Op::uuid_fixed:
        return add(path, ColumnType::text, nullable, source);
      case Op::array:
      case Op::map:
      case Op::duration:
        return add(path, ColumnType::json, nullable, source);
      case Op::decimal_bytes:
      case Op::decimal_fixed:
        if (n.precision > kMaxDecimalPrecision)
          return add(path, ColumnType::text, nullable, source);
        return add(path, ColumnType::decimal, nullable, source, n.precision, n.scale);
      case Op::date:
        return add(path, ColumnType::date, nullable, source);
      case Op::time_millis:
      case Op::time_micros:
        return add(path, ColumnType::time, nullable, source);
      case Op::timestamp_millis:
      case Op::timestamp_micros:
      case Op::timestamp_nanos:
      case Op::local_timestamp_millis:
      case Op::local_timestamp_micros:
      case Op::local_timestamp_nanos:
        return add(path, ColumnType::timestamp, nullable, source);
      case Op::record: {
        if (options_.nested == NestedMode::json || path.empty())
          return add(path, ColumnType::json, nullable, source);
        if (std::find(stack_.begin(), stack_.end(), i) != stack_.end()) {
          out_.notes.push_back(path_text(path) + ": record " + type_name(i) +
                               " contains itself, so it is one JSON column there");
          return add(path, ColumnType::json, nullable, source);
        }
        stack_.push_back(i);
        fields(n, path, nullable);
        stack_.pop_back();
        return;
      }
      case Op::union_type: {
        bool has_null = false;
        std::vector<uint32_t> others;
        for (uint32_t b = 0; b < n.count; ++b) {
          const uint32_t branch = plan_.branches[n.first + b];
          if (plan_.nodes[branch].op == Op::null_value)
            has_null = true;
          else
            others.push_back(branch);
        }
        // A union of one type and null is that type, nullable; any other union is JSON.
        if (others.size() != 1) return add(path, ColumnType::json, nullable || has_null, source);
        // Tagged, the branch's value sits one level down: {"field": {"string": "x"}}.
        if (options_.tagged_unions) path.push_back(type_name(others[0]));
        return plan(path, others[0], nullable || has_null || options_.tagged_unions);
      }
    }
  }

  const avro::AvroPlan& plan_;
  const ColumnOptions& options_;
  ColumnPlan& out_;
  std::vector<uint32_t> stack_;  // records being flattened, outermost first (recursion check)
};

}  // namespace

ColumnPlan plan_avro_columns(const ResolvedSchema& schema, const ColumnOptions& options) {
  const auto plan = avro::compile_avro_plan(schema);
  ColumnPlan out;
  out.format = SchemaType::avro;
  AvroPlanner(plan, options, out).run();
  assign_names(out.columns, options.separator, options.max_name_bytes);
  return out;
}

}  // namespace krow::columns
