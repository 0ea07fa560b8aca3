#include "manifest/physical_design.hpp"

#include <algorithm>
#include <functional>
#include <regex>
#include <set>

#include "contract/row_contract.hpp"
#include "engines/engines.hpp"

namespace krow {

namespace {

// One design key: its name, what it is in people's words, and whether an engine takes it.
struct DesignKey {
  const char* key;
  const char* what;
  bool (DesignCapabilities::*taken)() const;
};

constexpr DesignKey kKeys[] = {
    {"partition_by", "time partitioning", &DesignCapabilities::partition_by},
    {"cluster_by", "clustering", &DesignCapabilities::cluster_by},
    {"indexes", "secondary indexes", &DesignCapabilities::indexes},
    {"sort_by", "a sort order", &DesignCapabilities::sort_by},
};

// "boolean, int32 or text".
std::string type_list(const std::vector<ColumnType>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i)
    out += std::string(i == 0                  ? ""
                       : i + 1 == types.size() ? " or "
                                               : ", ") +
           std::string(column_type_name(types[i]));
  return out;
}

std::string column_list(const std::vector<DesignColumn>& columns) {
  std::string out;
  for (const auto& c : columns) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

// A column name as a design key may give it: one a table of krow's can have (typed column
// names keep any character but control characters; columns/column_names).
void check_name(const ManifestReader& r, const YAML::Node& at, const std::string& key,
                const std::string& name) {
  static const std::regex ok(R"(^[^\x00-\x1f]{1,300}$)");
  if (!std::regex_match(name, ok)) r.fail(at, key + ": '" + name + "' is not a column name");
}

std::vector<std::string> read_columns(const ManifestReader& r, const YAML::Node& n,
                                      const std::string& key) {
  auto out = r.list(n, key);
  for (const auto& c : out) check_name(r, n, key, c);
  return out;
}

TimeGrain grain_of(const std::string& text) {
  return text == "hour"    ? TimeGrain::hour
         : text == "month" ? TimeGrain::month
         : text == "year"  ? TimeGrain::year
                           : TimeGrain::day;
}

void read_partition(const ManifestReader& r, const YAML::Node& n, TableDesign& d) {
  d.partition_set = true;
  static const std::vector<std::string> grains{"hour", "day", "month", "year"};
  if (n.IsScalar()) {
    auto choices = grains;
    choices.push_back("none");
    const auto v = r.one_of(n, "partition_by", choices);
    if (v != "none") d.partition = PartitionSpec{"kafka_timestamp", grain_of(v)};
    return;
  }
  if (!n.IsMap())
    r.fail(n,
           "partition_by is a granularity of kafka_timestamp (hour, day, month, year), none, "
           "or {column: <a DATE or TIMESTAMP column>, granularity: day}");
  r.check_keys(n, "partition_by", {"column", "granularity"});
  PartitionSpec p;
  if (!n["column"])
    r.fail(n, "partition_by needs its column: {column: order_date, granularity: month}");
  p.column = r.text(n["column"], "column");
  check_name(r, n["column"], "partition_by", p.column);
  if (auto g = n["granularity"]) p.grain = grain_of(r.one_of(g, "granularity", grains));
  d.partition = p;
}

IndexSpec read_index(const ManifestReader& r, const YAML::Node& n) {
  IndexSpec i;
  if (n.IsScalar()) {
    i.columns.push_back(r.text(n, "indexes"));
    check_name(r, n, "indexes", i.columns.back());
    return i;
  }
  if (!n.IsMap())
    r.fail(n, "an entry of indexes is a column name, or {columns: [a, b], using: btree}");
  r.check_keys(n, "an entry of indexes", {"columns", "using"});
  if (!n["columns"]) r.fail(n, "an entry of indexes needs its columns: {columns: [a, b]}");
  i.columns = read_columns(r, n["columns"], "columns");
  if (i.columns.empty()) r.fail(n["columns"], "an index needs at least one column");
  if (auto u = n["using"]) i.method = r.one_of(u, "using", {"btree", "hash", "brin", "gin"});
  return i;
}

const DesignColumn* find(const std::vector<DesignColumn>& columns, const std::string& name) {
  for (const auto& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

// The first column named twice in `names`, or "".
std::string repeated(const std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (const auto& n : names)
    if (!seen.insert(n).second) return n;
  return {};
}

}  // namespace

const std::vector<std::string>& design_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const auto& k : kKeys) out.push_back(k.key);
    return out;
  }();
  return keys;
}

std::vector<DesignColumn> metadata_design_columns() {
  std::vector<DesignColumn> out;
  for (const auto& c : contract::kColumns) out.push_back({std::string(c.name), c.type});
  return out;
}

void read_table_design(const ManifestReader& r, const YAML::Node& s, const std::string& where,
                       TableSettings& t, const WarehouseCapabilities& engine) {
  for (const auto& k : kKeys) {
    const auto n = s[k.key];
    if (!n || (engine.design.*k.taken)()) continue;
    const auto takers =
        engines_that([&](const WarehouseCapabilities& c) { return (c.design.*k.taken)(); });
    r.fail(n, where + ": " + k.key + " (" + k.what + ") is not taken by " + engine.engine + " (" +
                  takers + " " + (takers.find(" and ") == std::string::npos ? "takes" : "take") +
                  " it). " + engine.engine + "'s physical design is " + engine.design.keys +
                  "; use that, or leave " + k.key + " out (docs/physical-design.md)");
  }
  auto& d = t.design;
  if (auto n = s["partition_by"]) read_partition(r, n, d);
  if (auto n = s["cluster_by"]) {
    if (n.IsScalar() && r.text(n, "cluster_by") == "none")
      d.cluster_by = std::vector<std::string>{};
    else
      d.cluster_by = read_columns(r, n, "cluster_by");
  }
  if (auto n = s["indexes"]) {
    if (!n.IsSequence())
      r.fail(n, "indexes is a list: each a column name, or {columns: [a, b], using: btree}");
    for (const auto& i : n) d.indexes.push_back(read_index(r, i));
  }
  if (auto n = s["sort_by"]) {
    d.sort_by = read_columns(r, n, "sort_by");
    if (d.sort_by.empty()) r.fail(n, "sort_by lists no column; leave it out to keep Kafka's order");
  }
  // What can be told before typed columns are planned: every name, when the table has no
  // typed columns; the types of the metadata columns named, always.
  const bool all_known = t.columns == TypedColumns::none;
  if (const auto problem = design_problem(d, metadata_design_columns(), all_known, engine);
      !problem.empty()) {
    // At the key the problem is about (problems start with it).
    const char* key = nullptr;
    for (const auto& k : kKeys)
      if (s[k.key] && problem.rfind(k.key, 0) == 0) key = k.key;
    r.fail(key ? s[key] : s,
           where + ": " + problem +
               (all_known ? " (the table has krow's metadata columns only: typed columns come "
                            "with columns: from_schema or infer)"
                          : ""));
  }
}

std::string design_problem(const TableDesign& design, const std::vector<DesignColumn>& columns,
                           bool all_known, const WarehouseCapabilities& engine) {
  const auto& caps = engine.design;
  // The column `name` for `key`: nullptr when it is not known yet; a problem when it cannot be.
  std::string problem;
  auto column = [&](const std::string& key, const std::string& name) -> const DesignColumn* {
    if (const auto* c = find(columns, name)) return c;
    if (all_known && problem.empty())
      problem = key + ": '" + name + "' is not a column of the table; its columns are " +
                column_list(columns);
    return nullptr;
  };
  // `does`: what the engine does with the key's columns ("clusters by").
  auto fits = [&](const std::string& key, const std::string& name,
                  const std::vector<ColumnType>& types, const std::string& does) {
    const auto* c = column(key, name);
    if (!c || DesignCapabilities::in(types, c->type) || !problem.empty()) return;
    problem = key + ": column '" + name + "' is " + std::string(column_type_name(c->type)) +
              ", and " + engine.engine + " " + does + " columns of type " + type_list(types) +
              " only";
  };
  if (design.partition) {
    const auto& p = *design.partition;
    fits("partition_by", p.column, caps.partition_types, "partitions by");
    const auto* c = find(columns, p.column);
    if (problem.empty() && c && p.grain == TimeGrain::hour &&
        !DesignCapabilities::in(caps.hourly_partition_types, c->type))
      problem = "partition_by: column '" + p.column + "' is a " +
                std::string(column_type_name(c->type)) + ": partition it by day, month or year (" +
                engine.engine + " partitions by the hour on " +
                type_list(caps.hourly_partition_types) + " columns only)";
  }
  if (design.cluster_by) {
    const auto& names = *design.cluster_by;
    if (names.size() > caps.max_cluster_columns && problem.empty())
      problem = "cluster_by: " + engine.engine + " clusters by at most " +
                std::to_string(caps.max_cluster_columns) + " columns, not " +
                std::to_string(names.size());
    if (const auto twice = repeated(names); !twice.empty() && problem.empty())
      problem = "cluster_by names column '" + twice + "' twice";
    for (const auto& n : names) fits("cluster_by", n, caps.cluster_types, "clusters by");
  }
  std::vector<IndexSpec> seen;
  for (const auto& i : design.indexes) {
    const auto* method = caps.index_method(i.method);
    if (!method) {
      if (problem.empty())
        problem = "indexes: " + engine.engine + " takes no index using " + i.method;
      continue;
    }
    if (i.columns.size() > method->max_columns && problem.empty())
      problem = "indexes: an index using " + i.method + " takes at most " +
                std::to_string(method->max_columns) + " column(s), not " +
                std::to_string(i.columns.size());
    if (const auto twice = repeated(i.columns); !twice.empty() && problem.empty())
      problem = "indexes: an index names column '" + twice + "' twice";
    if (std::find(seen.begin(), seen.end(), i) != seen.end() && problem.empty()) {
      std::string cs;
      for (const auto& c : i.columns) cs += (cs.empty() ? "" : ", ") + c;
      problem = "indexes: the index on (" + cs + ") using " + i.method + " is listed twice";
    }
    seen.push_back(i);
    for (const auto& n : i.columns)
      fits("indexes", n, method->types, "indexes (using " + i.method + ")");
  }
  if (!design.sort_by.empty()) {
    if (design.sort_by.size() > caps.max_sort_columns && problem.empty())
      problem = "sort_by: at most " + std::to_string(caps.max_sort_columns) + " columns, not " +
                std::to_string(design.sort_by.size());
    if (const auto twice = repeated(design.sort_by); !twice.empty() && problem.empty())
      problem = "sort_by names column '" + twice + "' twice";
    for (const auto& n : design.sort_by) fits("sort_by", n, caps.sort_types, "sorts by");
  }
  return problem;
}

}  // namespace krow
