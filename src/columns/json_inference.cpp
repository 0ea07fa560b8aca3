#include "columns/json_inference.hpp"

#include <simdjson.h>

#include <map>

#include "codec/json_validator.hpp"
#include "columns/column_names.hpp"
#include "contract/row_contract.hpp"
#include "util/json_tokens.hpp"
#include "util/text.hpp"

namespace krow::columns {

namespace {

namespace od = simdjson::ondemand;

// What the sample held at one path.
struct Seen {
  size_t order = 0;       // first seen
  bool object = false;    // an object (flattened: its fields are columns of their own)
  bool scalar = false;    // anything else but null
  bool any_type = false;  // `type` is set
  ColumnType type = ColumnType::json;
};

ColumnType unify_types(ColumnType a, ColumnType b) {
  if (a == b) return a;
  auto number = [](ColumnType t) {
    return t == ColumnType::int32 || t == ColumnType::int64 || t == ColumnType::float32 ||
           t == ColumnType::float64;
  };
  if (number(a) && number(b)) {
    if (a == ColumnType::float64 || b == ColumnType::float64 || a == ColumnType::float32 ||
        b == ColumnType::float32)
      return ColumnType::float64;
    return ColumnType::int64;
  }
  return ColumnType::json;
}

// Walks sampled values with simdjson's On Demand parser, which reads every JSON number
// (integers beyond 64 bits too, which become JSON columns).
class Walker {
 public:
  Walker(const ColumnOptions& options, std::map<std::vector<std::string>, Seen>& seen)
      : options_(options), seen_(seen) {}

  // The fields of one sampled object; false when it is no JSON.
  bool object(od::object obj, std::vector<std::string>& path) {
    for (auto f : obj) {
      std::string_view key;
      if (f.error()) return false;
      od::field& field = f.value_unsafe();
      if (field.unescaped_key().get(key)) return false;
      path.emplace_back(key);
      const bool ok = value(field.value(), path);
      path.pop_back();
      if (!ok) return false;
    }
    return true;
  }

 private:
  bool value(od::value v, std::vector<std::string>& path) {
    od::json_type type;
    if (v.type().get(type)) return false;
    if (type == od::json_type::null) {
      note(path);
      return true;
    }
    if (type == od::json_type::object && options_.nested == NestedMode::flatten) {
      note(path).object = true;
      od::object obj;
      return !v.get_object().get(obj) && object(obj, path);
    }
    ColumnType t = ColumnType::json;  // arrays, objects kept whole, integers beyond 64 bits
    switch (type) {
      case od::json_type::boolean:
        t = ColumnType::boolean;
        break;
      case od::json_type::string:
        t = ColumnType::text;
        break;
      case od::json_type::number:
        switch (classify_json_number(v.raw_json_token())) {
          case JsonNumber::int64:
            t = ColumnType::int64;
            break;
          case JsonNumber::real:
            t = ColumnType::float64;
            break;
          default:
            break;  // beyond BIGINT: JSON holds it exactly
        }
        break;
      default:
        break;
    }
    Seen& s = note(path);
    s.scalar = true;
    s.type = s.any_type ? unify_types(s.type, t) : t;
    s.any_type = true;
    return true;
  }

  Seen& note(const std::vector<std::string>& path) {
    auto [it, fresh] = seen_.try_emplace(path);
    if (fresh) it->second.order = seen_.size();
    return it->second;
  }

  const ColumnOptions& options_;
  std::map<std::vector<std::string>, Seen>& seen_;
};

bool is_prefix(const std::vector<std::string>& prefix, const std::vector<std::string>& path) {
  return prefix.size() < path.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

// The path a column name was made from (column_names.hpp), for a column of an existing table
// that this run's sample did not show and that no binding names the field of (a table from
// before krow recorded them): the separator splits it, and `value__` before a metadata
// column's name goes. Names shortened with a hash cannot be read back: their column then
// stays NULL.
std::vector<std::string> path_of_name(const std::string& name, const std::string& separator) {
  std::string rest = name;
  if (rest.rfind("value__", 0) == 0) {
    const auto bare = lower_ascii(rest.substr(7));
    for (const auto& c : contract::kColumns)
      if (bare == c.name) return {rest.substr(7)};
  }
  std::vector<std::string> out;
  for (size_t at = 0;;) {
    const auto next = separator.empty() ? std::string::npos : rest.find(separator, at);
    out.push_back(rest.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + separator.size();
  }
  return out;
}

}  // namespace

ColumnSpec unify_inferred(const ColumnSpec& a, const ColumnSpec& b) {
  ColumnSpec out = a;
  out.type = unify_types(a.type, b.type);
  if (out.type != ColumnType::decimal) out.precision = out.scale = 0;
  return out;
}

ColumnPlan infer_json_columns(const std::vector<std::string>& samples,
                              const ColumnOptions& options) {
  std::map<std::vector<std::string>, Seen> seen;
  od::parser parser;
  JsonValidator validator;
  std::string padded;
  size_t objects = 0;
  for (const auto& text : samples) {
    // On Demand reads as it goes: text that is no JSON must not half count.
    if (!is_valid_utf8(text) || !validator.is_document(text)) continue;
    padded.assign(text);
    padded.append(simdjson::SIMDJSON_PADDING, ' ');
    od::document doc;
    od::object obj;
    if (parser.iterate(padded.data(), text.size(), padded.size()).get(doc) ||
        doc.get_object().get(obj))
      continue;
    std::vector<std::string> path;
    objects += Walker(options, seen).object(obj, path);
  }
  // A path that held an object here and a scalar there is one JSON column: its fields go.
  std::vector<std::vector<std::string>> mixed;
  for (const auto& [path, s] : seen)
    if (s.object && s.scalar) mixed.push_back(path);
  for (const auto& m : mixed) {
    std::erase_if(seen, [&](const auto& kv) { return is_prefix(m, kv.first); });
    seen[m].type = ColumnType::json;
  }
  std::vector<std::pair<size_t, std::vector<std::string>>> order;
  for (const auto& [path, s] : seen)
    if (s.scalar || !s.object) order.push_back({s.order, path});
  std::sort(order.begin(), order.end());
  ColumnPlan plan;
  plan.format = SchemaType::json;
  plan.root = "object (inferred from " + std::to_string(objects) + " sampled JSON value(s))";
  for (const auto& [_, path] : order) {
    const Seen& s = seen.at(path);
    // Seen only as null: nothing says what it holds, JSON holds anything.
    const ColumnType type = s.any_type ? s.type : ColumnType::json;
    plan.add(path, type, true, "inferred " + std::string(column_type_name(type)));
  }
  assign_names(plan.columns, options.separator, options.max_name_bytes);
  return plan;
}

std::vector<ColumnSpec> merge_inferred(const std::optional<std::vector<TableColumn>>& table,
                                       const ColumnPlan& inferred, const ColumnOptions& options,
                                       const std::vector<ColumnBinding>& bindings) {
  if (!table) return inferred.columns;
  std::map<std::string, const std::vector<std::string>*> bound;  // column -> its field
  for (const auto& b : bindings) bound[b.column] = &b.path;
  std::map<std::string, const ColumnSpec*> by_name;
  for (const auto& c : inferred.columns) by_name[c.name] = &c;
  std::vector<ColumnSpec> out;
  std::map<std::string, bool> taken;
  for (const auto& t : *table) {
    if (t.name.rfind(kVariantPrefix, 0) == 0) continue;  // evolve_columns keeps those
    taken[t.name] = true;
    const auto it = by_name.find(t.name);
    if (!t.spec) {  // a type krow never plans: only the same type matches it (evolve_columns)
      if (it != by_name.end()) out.push_back(*it->second);
      continue;
    }
    ColumnSpec c = *t.spec;
    c.name = t.name;
    c.nullable = true;
    if (it == by_name.end()) {
      const auto field = bound.find(t.name);
      c.path = field != bound.end() ? *field->second : path_of_name(t.name, options.separator);
      c.source = "kept (not in this run's sample)";
    } else {
      c = unify_inferred(c, *it->second);
      c.path = it->second->path;
      c.source = it->second->source;
    }
    out.push_back(std::move(c));
  }
  for (const auto& c : inferred.columns)
    if (!taken.count(c.name)) out.push_back(c);
  return out;
}

}  // namespace krow::columns
