#include "codec/avro/avro_schema.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "util/text.hpp"

namespace krow::avro {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

// Schemas nest far less than this; the bound keeps the parser's recursion finite even
// for a hostile document (simdjson itself stops at 1024 JSON levels).
constexpr int kMaxSchemaDepth = 400;

// A decimal with more digits than this is treated as an invalid logical type: its scale
// would let one value expand into megabytes of zeros.
constexpr int64_t kMaxDecimalPrecision = 10000;

[[noreturn]] void fail(const std::string& reason) { throw std::invalid_argument("Avro schema: " + reason); }

std::string json_quoted(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

struct Primitive {
  std::string_view name;
  Op op;
  uint32_t min_size;
};

constexpr Primitive kPrimitives[] = {
    {"null", Op::null_value, 0}, {"boolean", Op::boolean, 1}, {"int", Op::int32, 1},
    {"long", Op::int64, 1},      {"float", Op::float32, 4},   {"double", Op::float64, 8},
    {"bytes", Op::bytes, 1},     {"string", Op::string, 1},
};

const Primitive* find_primitive(std::string_view name) {
  for (const auto& p : kPrimitives) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// A named type already defined: its node and its definition, to accept an identical
// repeat (the same type reached through two references) and refuse a different one.
struct Named {
  uint32_t node = 0;
  std::string definition;  // minified JSON of the definition
};

class PlanBuilder {
 public:
  // Parses every reference of `schema` (depth first), then `schema` itself as the root.
  AvroPlan build(const ResolvedSchema& schema) {
    if (schema.type != SchemaType::avro) fail("the schema is not of type Avro");
    active_.insert(&schema);
    for (const auto& ref : schema.references) visit(ref);
    plan_.root = parse_document(schema.text);
    compute_min_sizes();
    return std::move(plan_);
  }

 private:
  void visit(const ResolvedSchema::Reference& ref) {
    if (!ref.schema) fail("reference " + json_quoted(ref.name) + " carries no schema");
    const ResolvedSchema& s = *ref.schema;
    // Already parsed (a diamond), or being parsed further up (a cycle): nothing to do.
    if (done_.contains(&s) || active_.contains(&s)) return;
    if (s.type != SchemaType::avro) fail("reference " + json_quoted(ref.name) + " is not an Avro schema");
    active_.insert(&s);
    for (const auto& inner : s.references) visit(inner);
    // The same document fetched twice (two shared_ptrs, same text) is parsed once.
    if (!texts_.contains(s.text)) {
      try {
        parse_document(s.text);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string(e.what()) + " (in reference " + json_quoted(ref.name) + ")");
      }
      texts_.insert(s.text);
    }
    active_.erase(&s);
    done_.insert(&s);
  }

  uint32_t parse_document(const std::string& text) {
    simdjson::dom::parser parser;  // one per document: the DOM lives until it returns
    element root;
    if (auto err = parser.parse(text).get(root); err) {
      fail(std::string("not valid JSON: ") + simdjson::error_message(err));
    }
    return parse(root, "", 0);
  }

  uint32_t parse(element e, const std::string& ns, int depth) {
    if (depth > kMaxSchemaDepth) fail("nested deeper than " + std::to_string(kMaxSchemaDepth) + " levels");
    switch (e.type()) {
      case element_type::STRING:
        return resolve(std::string_view(e.get_string().value_unsafe()), ns);
      case element_type::ARRAY:
        return parse_union(e.get_array().value_unsafe(), ns, depth);
      case element_type::OBJECT:
        return parse_object(e.get_object().value_unsafe(), ns, depth);
      default:
        fail("a schema must be a type name, a union array or an object, not " + simdjson::minify(e));
    }
  }

  uint32_t parse_object(object obj, const std::string& ns, int depth) {
    element type_el;
    if (obj["type"].get(type_el)) fail("object without \"type\": " + simdjson::minify(obj));
    if (type_el.type() != element_type::STRING) return parse(type_el, ns, depth + 1);
    const std::string_view type(type_el.get_string().value_unsafe());
    if (const Primitive* p = find_primitive(type)) return primitive_with_logical(*p, obj);
    if (type == "record" || type == "error") return parse_record(obj, ns, depth);
    if (type == "enum") return parse_enum(obj, ns);
    if (type == "fixed") return parse_fixed(obj, ns);
    if (type == "array" || type == "map") {
      const char* attr = type == "array" ? "items" : "values";
      element inner;
      if (obj[attr].get(inner)) fail(std::string(type) + " without \"" + attr + "\"");
      const uint32_t item = parse(inner, ns, depth + 1);
      const uint32_t node = add_node(type == "array" ? Op::array : Op::map);
      plan_.nodes[node].first = item;
      plan_.nodes[node].tag = tag_text(type);
      return node;
    }
    return resolve(type, ns);  // {"type": "com.acme.Name"} refers to a named type
  }

  // A primitive, possibly annotated with a logical type that changes its JSON form.
  uint32_t primitive_with_logical(const Primitive& p, object obj) {
    std::string_view logical;
    if (obj["logicalType"].get(logical) == simdjson::SUCCESS) {
      Op op = p.op;
      if (p.op == Op::int32) {
        if (logical == "date") op = Op::date;
        if (logical == "time-millis") op = Op::time_millis;
      } else if (p.op == Op::int64) {
        if (logical == "time-micros") op = Op::time_micros;
        if (logical == "timestamp-millis") op = Op::timestamp_millis;
        if (logical == "timestamp-micros") op = Op::timestamp_micros;
        if (logical == "timestamp-nanos") op = Op::timestamp_nanos;
        if (logical == "local-timestamp-millis") op = Op::local_timestamp_millis;
        if (logical == "local-timestamp-micros") op = Op::local_timestamp_micros;
        if (logical == "local-timestamp-nanos") op = Op::local_timestamp_nanos;
      } else if (p.op == Op::bytes && logical == "decimal") {
        int32_t scale = 0, precision = 0;
        if (decimal_scale(obj, std::numeric_limits<int64_t>::max(), scale, precision)) {
          const uint32_t node = add_node(Op::decimal_bytes);
          plan_.nodes[node].scale = scale;
          plan_.nodes[node].precision = precision;
          plan_.nodes[node].tag = tag_text(p.name);
          return node;
        }
      }
      if (op != p.op) {
        const uint32_t node = add_node(op);
        plan_.nodes[node].tag = tag_text(p.name);
        return node;
      }
    }
    return primitive_node(p);
  }

  // The scale and precision of a valid decimal (precision 1..max_precision, 0 <= scale <=
  // precision), or false for an invalid one (the underlying type is then used).
  static bool decimal_scale(object obj, int64_t max_precision, int32_t& scale, int32_t& precision_out) {
    int64_t precision = 0;
    int64_t s = 0;
    if (obj["precision"].get(precision) != simdjson::SUCCESS) return false;
    if (auto sc = obj["scale"]; sc.error() != simdjson::NO_SUCH_FIELD) {
      if (sc.get(s) != simdjson::SUCCESS) return false;
    }
    if (precision <= 0 || precision > max_precision || precision > kMaxDecimalPrecision) return false;
    if (s < 0 || s > precision) return false;
    scale = static_cast<int32_t>(s);
    precision_out = static_cast<int32_t>(precision);
    return true;
  }

  uint32_t parse_record(object obj, const std::string& ns, int depth) {
    std::string space;
    const std::string full = full_name(obj, ns, "record", space);
    if (auto reused = reuse_named(full, obj)) return *reused;
    const uint32_t node = add_named(Op::record, full, obj);
    array fields;
    if (obj["fields"].get(fields)) fail("record " + json_quoted(full) + " has no \"fields\" array");
    std::vector<Field> parsed;
    std::unordered_set<std::string_view> names;
    for (element f : fields) {
      object field;
      std::string_view name;
      element type;
      if (f.get(field) || field["name"].get(name)) {
        fail("record " + json_quoted(full) + " has a field without a \"name\"");
      }
      if (!names.insert(name).second) fail("record " + json_quoted(full) + " has two fields named " + json_quoted(name));
      if (field["type"].get(type)) fail("field " + json_quoted(name) + " of record " + json_quoted(full) + " has no \"type\"");
      Field out;
      out.node = parse(type, space, depth + 1);
      std::string key = parsed.empty() ? "" : ",";
      append_json_string(key, name);
      key.push_back(':');
      out.key = add_text(key);
      out.name = add_text(name);
      parsed.push_back(out);
    }
    // Nested records appended their own fields meanwhile: this record's block starts here.
    plan_.nodes[node].first = static_cast<uint32_t>(plan_.fields.size());
    plan_.nodes[node].count = static_cast<uint32_t>(parsed.size());
    plan_.fields.insert(plan_.fields.end(), parsed.begin(), parsed.end());
    return node;
  }

  uint32_t parse_enum(object obj, const std::string& ns) {
    std::string space;
    const std::string full = full_name(obj, ns, "enum", space);
    if (auto reused = reuse_named(full, obj)) return *reused;
    const uint32_t node = add_named(Op::enumeration, full, obj);
    array symbols;
    if (obj["symbols"].get(symbols)) fail("enum " + json_quoted(full) + " has no \"symbols\" array");
    plan_.nodes[node].first = static_cast<uint32_t>(plan_.symbols.size());
    std::unordered_set<std::string_view> seen;
    for (element s : symbols) {
      std::string_view symbol;
      if (s.get(symbol)) fail("enum " + json_quoted(full) + " has a symbol that is not a string");
      if (!seen.insert(symbol).second) fail("enum " + json_quoted(full) + " repeats the symbol " + json_quoted(symbol));
      plan_.symbols.push_back(add_text(json_quoted(symbol)));
    }
    plan_.nodes[node].count = static_cast<uint32_t>(seen.size());
    return node;
  }

  uint32_t parse_fixed(object obj, const std::string& ns) {
    std::string space;
    const std::string full = full_name(obj, ns, "fixed", space);
    if (auto reused = reuse_named(full, obj)) return *reused;
    int64_t size = 0;
    if (obj["size"].get(size) || size < 0 || size > std::numeric_limits<int32_t>::max()) {
      fail("fixed " + json_quoted(full) + " needs a \"size\" between 0 and 2^31-1");
    }
    Op op = Op::fixed;
    int32_t scale = 0, precision = 0;
    std::string_view logical;
    if (obj["logicalType"].get(logical) == simdjson::SUCCESS) {
      if (logical == "decimal") {
        // The largest precision `size` bytes can hold, computed as the Java implementation does.
        const auto max_precision =
            static_cast<int64_t>(std::floor(std::log10(2.0) * (8.0 * static_cast<double>(size) - 1.0)));
        if (decimal_scale(obj, max_precision, scale, precision)) op = Op::decimal_fixed;
      } else if (logical == "uuid" && size == 16) {
        op = Op::uuid_fixed;
      } else if (logical == "duration" && size == 12) {
        op = Op::duration;
      }
    }
    const uint32_t node = add_named(op, full, obj);
    plan_.nodes[node].count = static_cast<uint32_t>(size);
    plan_.nodes[node].scale = scale;
    plan_.nodes[node].precision = precision;
    return node;
  }

  uint32_t parse_union(array branches, const std::string& ns, int depth) {
    std::vector<uint32_t> parsed;
    std::unordered_set<std::string> tags;
    for (element b : branches) {
      if (b.type() == element_type::ARRAY) fail("a union may not contain a union directly");
      const uint32_t branch = parse(b, ns, depth + 1);
      const std::string tag(plan_.view(plan_.nodes[branch].tag));
      if (!tags.insert(tag).second) fail("a union holds the same type twice: " + tag.substr(1, tag.size() - 2));
      parsed.push_back(branch);
    }
    const uint32_t node = add_node(Op::union_type);
    plan_.nodes[node].first = static_cast<uint32_t>(plan_.branches.size());
    plan_.nodes[node].count = static_cast<uint32_t>(parsed.size());
    plan_.branches.insert(plan_.branches.end(), parsed.begin(), parsed.end());
    return node;
  }

  // A type named by a string: a primitive, a full name, or a name in namespace `ns`.
  uint32_t resolve(std::string_view name, const std::string& ns) {
    if (const Primitive* p = find_primitive(name)) return primitive_node(*p);
    if (name.find('.') == std::string_view::npos && !ns.empty()) {
      if (auto it = named_.find(ns + "." + std::string(name)); it != named_.end()) return it->second.node;
    }
    if (auto it = named_.find(std::string(name)); it != named_.end()) return it->second.node;
    fail("unknown type " + json_quoted(name) + (ns.empty() ? "" : " (namespace " + json_quoted(ns) + ")"));
  }

  // The full name of a named type and, in `space`, the namespace its nested types inherit.
  static std::string full_name(object obj, const std::string& enclosing, const char* kind,
                               std::string& space) {
    std::string_view name;
    if (obj["name"].get(name) || name.empty()) {
      fail(std::string(kind) + " without a \"name\": " + simdjson::minify(obj));
    }
    if (const size_t dot = name.rfind('.'); dot != std::string_view::npos) {
      space = std::string(name.substr(0, dot));
      return std::string(name);
    }
    std::string_view given;
    if (obj["namespace"].get(given) == simdjson::SUCCESS) {
      space = std::string(given);
    } else {
      space = enclosing;
    }
    return space.empty() ? std::string(name) : space + "." + std::string(name);
  }

  // The node of `full` when it is already defined identically; throws when defined
  // differently; nothing when `full` is new.
  std::optional<uint32_t> reuse_named(const std::string& full, object obj) {
    auto it = named_.find(full);
    if (it == named_.end()) return std::nullopt;
    if (it->second.definition != simdjson::minify(obj)) {
      fail("type " + json_quoted(full) + " is defined twice with different definitions");
    }
    return it->second.node;
  }

  // Registers a named type before its body is parsed, so that the body may refer to it.
  uint32_t add_named(Op op, const std::string& full, object obj) {
    if (find_primitive(full)) fail("a named type may not be called " + json_quoted(full));
    const uint32_t node = add_node(op);
    plan_.nodes[node].tag = tag_text(full);
    named_.emplace(full, Named{node, simdjson::minify(obj)});
    return node;
  }

  uint32_t primitive_node(const Primitive& p) {
    const auto i = static_cast<size_t>(p.op);
    if (primitive_nodes_[i] == kNone) {
      primitive_nodes_[i] = add_node(p.op);
      plan_.nodes[primitive_nodes_[i]].tag = tag_text(p.name);
    }
    return primitive_nodes_[i];
  }

  uint32_t add_node(Op op) {
    if (plan_.nodes.size() >= std::numeric_limits<uint32_t>::max() / 2) fail("too many types");
    Node n;
    n.op = op;
    plan_.nodes.push_back(n);
    return static_cast<uint32_t>(plan_.nodes.size() - 1);
  }

  Text add_text(std::string_view s) {
    if (plan_.text.size() + s.size() >= std::numeric_limits<uint32_t>::max()) fail("schema too large");
    const Text t{static_cast<uint32_t>(plan_.text.size()), static_cast<uint32_t>(s.size())};
    plan_.text.append(s);
    return t;
  }

  Text tag_text(std::string_view type_name) {
    std::string tag = "{";
    append_json_string(tag, type_name);
    tag.push_back(':');
    return add_text(tag);
  }

  // Lower bounds of each node's encoded size. A node met again while its own bound is
  // being computed (a recursive type) counts 0, which keeps every bound a lower bound.
  void compute_min_sizes() {
    state_.assign(plan_.nodes.size(), 0);
    for (uint32_t i = 0; i < plan_.nodes.size(); ++i) min_size(i);
  }

  uint32_t min_size(uint32_t i) {
    if (state_[i] == 2) return plan_.nodes[i].min_size;
    if (state_[i] == 1) return 0;
    state_[i] = 1;
    const Node n = plan_.nodes[i];
    uint64_t size = 0;
    switch (n.op) {
      case Op::null_value: size = 0; break;
      case Op::float32: size = 4; break;
      case Op::float64: size = 8; break;
      case Op::fixed:
      case Op::decimal_fixed:
      case Op::uuid_fixed:
      case Op::duration: size = n.count; break;
      case Op::record:
        for (uint32_t f = 0; f < n.count; ++f) {
          size += min_size(plan_.fields[n.first + f].node);
          if (size > std::numeric_limits<uint32_t>::max()) size = std::numeric_limits<uint32_t>::max();
        }
        break;
      case Op::union_type: {
        uint64_t smallest = n.count == 0 ? 0 : std::numeric_limits<uint32_t>::max();
        for (uint32_t b = 0; b < n.count; ++b) smallest = std::min<uint64_t>(smallest, min_size(plan_.branches[n.first + b]));
        size = std::min<uint64_t>(1 + smallest, std::numeric_limits<uint32_t>::max());
        break;
      }
      default: size = 1; break;  // varints, lengths, block counts, enum indices
    }
    plan_.nodes[i].min_size = static_cast<uint32_t>(size);
    state_[i] = 2;
    return plan_.nodes[i].min_size;
  }

  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  AvroPlan plan_;
  std::unordered_map<std::string, Named> named_;       // full name → definition
  std::unordered_set<const ResolvedSchema*> done_;     // references parsed
  std::unordered_set<const ResolvedSchema*> active_;   // references being parsed (cycles)
  std::unordered_set<std::string> texts_;              // reference documents parsed
  uint32_t primitive_nodes_[8] = {kNone, kNone, kNone, kNone, kNone, kNone, kNone, kNone};
  std::vector<uint8_t> state_;                         // min_size: 0 new, 1 busy, 2 done
};

}  // namespace

AvroPlan compile_avro_plan(const ResolvedSchema& schema) { return PlanBuilder().build(schema); }

}  // namespace krow::avro
