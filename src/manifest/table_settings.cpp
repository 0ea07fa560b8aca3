#include "manifest/table_settings.hpp"

#include <fnmatch.h>

#include <regex>

#include "contract/row_contract.hpp"
#include "engines/engines.hpp"
#include "manifest/physical_design.hpp"

namespace krow {

namespace {

// Refuses, at its line, an option of rule `where` that the engine does not write.
void refuse_what_the_engine_cannot_write(const ManifestReader& r, const YAML::Node& s,
                                         const std::string& where, const TableSettings& t,
                                         const WarehouseCapabilities& engine) {
  if (!engine.takes(t.strategy)) {
    const std::string option = std::string("strategy: ") + strategy_name(t.strategy);
    r.fail(s["strategy"],
           where + ": " + option + " is not written to " + engine.engine + " yet (" +
               engines_that([&](const WarehouseCapabilities& c) { return c.takes(t.strategy); }) +
               " take it); use strategy: append (and a view that picks the newest row per key) to "
               "sync the topic into " +
               engine.engine);
  }
  if (t.columns != TypedColumns::none && !engine.typed_columns) {
    const std::string option = t.columns == TypedColumns::contract ? std::string("contract:")
                               : std::string("columns: ") + (t.columns == TypedColumns::infer ? "infer" : "from_schema");
    r.fail(s["columns"] ? s["columns"] : s["contract"],
           where + ": " + option + " is not written to " + engine.engine + " yet (" +
               engines_that([](const WarehouseCapabilities& c) { return c.typed_columns; }) +
               " take it); leave columns: out to sync the topic into " + engine.engine +
               " (the value stays queryable as JSON)");
  }
}

// The rule's `contract:` (warehouse/table_strategy.hpp ColumnContract) into `t`.
void read_contract(const ManifestReader& r, const YAML::Node& n, const std::string& where, TableSettings& t) {
  const std::string at = where + ".contract";
  if (!n.IsMap())
    r.fail(n, at + " must be a mapping, e.g. {columns: {amount: decimal(12,2), created_at: timestamp}, enforce: "
                   "strict, empty_strings: keep}");
  r.check_keys(n, at, {"columns", "enforce", "empty_strings"});
  t.contract.given = true;
  if (auto e = n["enforce"]) t.contract.coerce = r.one_of(e, "enforce", {"strict", "coerce"}) == "coerce";
  // `empty_strings: null` reads as YAML's null, which is what it means.
  if (auto e = n["empty_strings"])
    t.contract.empty_as_null = e.IsNull() || r.one_of(e, "empty_strings", {"keep", "null"}) == "null";
  const auto c = n["columns"];
  if (!c) return;
  if (!c.IsMap() || c.size() == 0)
    r.fail(c, at + ".columns must map column names to types, e.g. {amount: decimal(12,2), created_at: timestamp}");
  static const std::regex name_rule(R"(^[a-z_][a-z0-9_]{0,62}$)");
  static const std::regex path_rule(R"(^[^\x00-\x1f.]{1,256}$)");
  for (const auto& kv : c) {
    columns::ColumnSpec spec;
    spec.name = r.text(kv.first, "contract column");
    const std::string col = at + ".columns." + spec.name;
    if (!std::regex_match(spec.name, name_rule) || spec.name.rfind("__krow", 0) == 0)
      r.fail(kv.first, col + ": a column name is lower-case letters, digits and _ (at most 63), starting with a letter "
                             "or _, and not starting with __krow");
    for (const auto& m : contract::kColumns)
      if (spec.name == m.name) r.fail(kv.first, col + ": " + spec.name + " is one of krow's metadata columns; name the column otherwise");
    for (const auto& other : t.contract.columns)
      if (other.name == spec.name) r.fail(kv.first, col + " is declared twice");
    std::string type, from;
    if (kv.second.IsMap()) {
      r.check_keys(kv.second, col, {"type", "from"});
      if (!kv.second["type"]) r.fail(kv.second, col + " needs a type, e.g. {type: timestamp, from: meta.created}");
      type = r.text(kv.second["type"], "type");
      if (auto f = kv.second["from"]) from = r.text(f, "from");
    } else {
      type = r.text(kv.second, spec.name);
    }
    if (const auto wrong = columns::parse_declared_type(type, spec); !wrong.empty()) r.fail(kv.second, col + ": " + wrong);
    if (from.empty()) {
      spec.path = {spec.name};
    } else {
      for (size_t start = 0;;) {
        const auto dot = from.find('.', start);
        spec.path.push_back(from.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (!std::regex_match(spec.path.back(), path_rule))
          r.fail(kv.second["from"], col + ".from must be field names joined by dots (a.b.c), each 1 to 256 characters "
                                          "and no control characters");
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
    }
    spec.source = "contract " + columns::declared_type(spec);
    t.contract.columns.push_back(std::move(spec));
  }
}

}  // namespace

const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::append: return "append";
    case Strategy::latest_by_key: return "latest_by_key";
    case Strategy::full_refresh: return "full_refresh";
  }
  return "unknown";
}

std::vector<TableRule> read_table_rules(const ManifestReader& r, const YAML::Node& node,
                                        const std::string& warehouse_type) {
  const auto& engine = warehouse_capabilities(warehouse_type);
  if (!node.IsMap())
    r.fail(node, "tables must map topic names or globs to their settings, e.g. \"customers.*\": {strategy: "
                 "latest_by_key}");
  std::vector<TableRule> out;
  for (const auto& kv : node) {
    TableRule rule;
    rule.pattern = r.text(kv.first, "tables");
    if (rule.pattern.empty()) r.fail(kv.first, "a key of tables is empty: write a topic name or a glob");
    const std::string where = "tables.\"" + rule.pattern + "\"";
    const YAML::Node& s = kv.second;
    if (s.IsNull()) {
      out.push_back(std::move(rule));
      continue;
    }
    std::vector<std::string> keys{"strategy", "unique_key", "tombstones", "columns", "nested", "on_breaking",
                                  "contract"};
    keys.insert(keys.end(), design_keys().begin(), design_keys().end());
    r.check_keys(s, where, keys);
    auto& t = rule.settings;
    if (auto n = s["strategy"]) {
      const auto v = r.one_of(n, "strategy", {"append", "latest_by_key", "full_refresh"});
      t.strategy = v == "latest_by_key" ? Strategy::latest_by_key
                   : v == "full_refresh" ? Strategy::full_refresh
                                         : Strategy::append;
    }
    if (auto n = s["unique_key"]) {
      t.unique_key = r.list(n, "unique_key");
      static const std::regex field(R"(^[^\x00-\x1f"'\\.]{1,256}$)");
      for (const auto& f : t.unique_key)
        if (!std::regex_match(f, field))
          r.fail(n, "unique_key field '" + f + "' must be a top-level field name of the value (no quotes, dots, "
                    "backslashes or control characters)");
      if (t.unique_key.empty()) r.fail(n, "unique_key lists no field; leave it out to use the Kafka key");
    }
    if (auto n = s["tombstones"]) t.keep_tombstones = r.one_of(n, "tombstones", {"delete", "keep"}) == "keep";
    if (auto n = s["columns"])
    {
      const auto v = r.one_of(n, "columns", {"none", "from_schema", "infer"});
      t.columns = v == "from_schema" ? TypedColumns::from_schema : v == "infer" ? TypedColumns::infer : TypedColumns::none;
    }
    if (auto n = s["contract"]) {
      read_contract(r, n, where, t);
      if (!t.contract.columns.empty() && t.columns == TypedColumns::none) {
        if (s["columns"])
          r.fail(s["columns"], where + ": columns: none leaves the table without typed columns, and its contract declares "
                               "some; leave columns: out (the contract's columns alone) or use from_schema or infer");
        t.columns = TypedColumns::contract;
      }
      if (t.contract.columns.empty() && t.columns == TypedColumns::none)
        r.fail(n, where + ": a contract without columns applies to typed columns only: declare columns, or add "
                          "columns: from_schema or infer");
    }
    if (auto n = s["nested"])
      t.nested = r.one_of(n, "nested", {"flatten", "json"}) == "json" ? NestedColumns::json : NestedColumns::flatten;
    if (s["nested"] && t.columns == TypedColumns::none)
      r.fail(s["nested"], where + ": nested applies to typed columns only (columns: from_schema or infer)");
    if (s["nested"] && t.columns == TypedColumns::contract)
      r.fail(s["nested"], where + ": nested applies to columns: from_schema or infer; a contract's columns name their fields");
    if (auto n = s["on_breaking"])
      t.on_breaking = r.one_of(n, "on_breaking", {"fail", "variant"}) == "variant" ? columns::OnBreaking::variant
                                                                                  : columns::OnBreaking::fail;
    if (s["on_breaking"] && t.columns == TypedColumns::none)
      r.fail(s["on_breaking"], where + ": on_breaking applies to typed columns only (columns: from_schema or infer)");
    if (t.strategy != Strategy::latest_by_key && (s["unique_key"] || s["tombstones"]))
      r.fail(s["unique_key"] ? s["unique_key"] : s["tombstones"],
             where + ": unique_key and tombstones apply to strategy: latest_by_key only");
    refuse_what_the_engine_cannot_write(r, s, where, t, engine);
    read_table_design(r, s, where, t, engine);
    for (const auto& other : out)
      if (other.pattern == rule.pattern) r.fail(kv.first, where + " is listed twice");
    out.push_back(std::move(rule));
  }
  return out;
}

TableSettings settings_for(const std::vector<TableRule>& rules, const std::string& topic) {
  for (const auto& r : rules)
    if (r.pattern == topic) return r.settings;
  for (const auto& r : rules)
    if (fnmatch(r.pattern.c_str(), topic.c_str(), 0) == 0) return r.settings;
  return {};
}

}  // namespace krow
