#include "columns/column_evolution.hpp"

#include <map>
#include <set>

#include "columns/column_names.hpp"

namespace krow::columns {

namespace {

bool is_variant(const std::string& name) {
  return name.rfind(kVariantPrefix, 0) == 0;
}

std::string variant_name(const std::string& column, size_t max_bytes) {
  return bounded_name(std::string(kVariantPrefix) + column, max_bytes);
}

const char* breaking_word(const ColumnSpec& table, const ColumnSpec& planned) {
  const bool narrowed =
      (table.type == ColumnType::int64 && planned.type == ColumnType::int32) ||
      (table.type == ColumnType::float64 && planned.type == ColumnType::float32) ||
      (table.type == ColumnType::decimal && planned.type == ColumnType::decimal &&
       table.scale == planned.scale && planned.precision < table.precision);
  return narrowed ? "narrowed" : "changed";
}

}  // namespace

std::string_view change_kind_name(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::add:
      return "add";
    case ChangeKind::widen:
      return "widen";
    case ChangeKind::variant:
      return "variant";
    case ChangeKind::retire:
      return "retire";
  }
  return "add";
}

Compatibility compare_types(const ColumnSpec& table, const ColumnSpec& planned) {
  auto text_like = [](ColumnType t) { return t == ColumnType::text || t == ColumnType::bytes; };
  if (text_like(table.type) && text_like(planned.type))
    return Compatibility::same;  // both text in every engine
  // The integer digits an integer type's values need (INT32: 10, INT64: 19, UINT64: 20).
  auto integer_digits = [](ColumnType t) {
    return t == ColumnType::int32    ? 10
           : t == ColumnType::int64  ? 19
           : t == ColumnType::uint64 ? 20
                                     : 0;
  };
  if (planned.type == ColumnType::decimal) {
    if (table.type == ColumnType::decimal) {
      // Every stored value fits when neither the integer digits nor the scale shrink.
      if (planned.scale < table.scale ||
          planned.precision - planned.scale < table.precision - table.scale)
        return Compatibility::breaking;
      return planned.precision == table.precision && planned.scale == table.scale
                 ? Compatibility::same
                 : Compatibility::widening;
    }
    const int digits = integer_digits(table.type);
    return digits > 0 && planned.precision - planned.scale >= digits ? Compatibility::widening
                                                                     : Compatibility::breaking;
  }
  if (table.type == planned.type) return Compatibility::same;
  // Exact conversions only: a DOUBLE holds every INT32 and FLOAT, but rounds INT64s beyond 2^53.
  if ((table.type == ColumnType::int32 && planned.type == ColumnType::int64) ||
      (table.type == ColumnType::float32 && planned.type == ColumnType::float64) ||
      (table.type == ColumnType::int32 && planned.type == ColumnType::float64))
    return Compatibility::widening;
  return Compatibility::breaking;
}

Evolution evolve_columns(const std::optional<std::vector<TableColumn>>& table,
                         const std::vector<ColumnSpec>& planned,
                         const std::function<std::string(const ColumnSpec&)>& sql_type,
                         OnBreaking on_breaking, size_t max_name_bytes,
                         const std::string& planned_from,
                         const std::function<ColumnSpec(const ColumnSpec&)>& holds) {
  Evolution out;
  // What the engine's column for a planned column holds (compared with what a table's holds).
  auto held = [&](const ColumnSpec& p) { return holds ? holds(p) : p; };
  auto push = [&](ColumnSpec c, std::string type) {
    out.columns.push_back(std::move(c));
    out.sql_types.push_back(std::move(type));
  };
  if (!table) {
    for (const auto& c : planned) push(c, sql_type(c));
    return out;
  }
  std::map<std::string, const TableColumn*> by_name;
  for (const auto& c : *table) by_name[c.name] = &c;

  // First the verdict on every planned column the table has.
  std::map<std::string, size_t> planned_index;
  std::map<std::string, size_t> broken;  // variant column name -> planned index
  std::set<std::string> broken_columns;
  for (size_t k = 0; k < planned.size(); ++k) {
    const auto& p = planned[k];
    planned_index[p.name] = k;
    const auto it = by_name.find(p.name);
    if (it == by_name.end()) continue;
    const TableColumn& t = *it->second;
    const auto want = sql_type(p);
    if (t.sql_type == want) continue;
    const auto verdict = t.spec ? compare_types(*t.spec, held(p)) : Compatibility::breaking;
    if (verdict != Compatibility::breaking) continue;
    if (on_breaking == OnBreaking::fail) {
      if (!out.breaking.empty()) out.breaking += "; ";
      out.breaking += "field " + path_text(p.path) + ": column " + p.name + " is " + t.sql_type +
                      " in the table but " + want + " (" + p.source + ") in " + planned_from +
                      " (a " + (t.spec ? breaking_word(*t.spec, p) : "changed") + " type)";
      continue;
    }
    broken[variant_name(p.name, max_name_bytes)] = k;
    broken_columns.insert(p.name);
  }

  // The table's columns, in its order.
  std::set<std::string> variants_present;
  for (const auto& t : *table) {
    const auto retired = [&] {
      ColumnSpec c = t.spec.value_or(ColumnSpec{});
      c.name = t.name;
      c.path.clear();
      c.retired = true;
      return c;
    };
    if (const auto v = broken.find(t.name); v != broken.end()) {  // a variant column in use
      ColumnSpec c = planned[v->second];
      c.name = t.name;
      c.type = ColumnType::json;
      c.precision = c.scale = 0;
      c.nullable = true;
      push(c, t.sql_type);
      variants_present.insert(t.name);
      continue;
    }
    const auto k = planned_index.find(t.name);
    if (k == planned_index.end()) {
      // A variant column not in use now, or a column whose field the schema no longer has.
      if (!is_variant(t.name)) {
        if (on_breaking == OnBreaking::fail) {
          if (!out.breaking.empty()) out.breaking += "; ";
          out.breaking += "column " + t.name + " (" + t.sql_type +
                          ") is in the table but its field is not in " + planned_from +
                          " (removed)";
          continue;
        }
        ColumnChange ch;
        ch.kind = ChangeKind::retire;
        ch.column = retired();
        ch.of = t.name;
        ch.from_type = t.sql_type;
        out.changes.push_back(ch);
      }
      push(retired(), t.sql_type);
      continue;
    }
    const ColumnSpec& p = planned[k->second];
    if (broken_columns.count(t.name)) {
      push(retired(), t.sql_type);
      continue;
    }
    const auto want = sql_type(p);
    if (t.sql_type != want && t.spec &&
        compare_types(*t.spec, held(p)) == Compatibility::widening) {
      ColumnChange ch;
      ch.kind = ChangeKind::widen;
      ch.column = p;
      ch.of = p.name;
      ch.from_type = t.sql_type;
      ch.to_type = want;
      ch.ddl = true;
      out.changes.push_back(ch);
    }
    push(p, t.sql_type == want ? t.sql_type : want);
  }
  if (!out.breaking.empty()) {
    out.breaking +=
        ". krow never drops, renames or narrows a column: give the table on_breaking: variant in "
        "its "
        "entry of the manifest's tables: (such values then go to a JSON column "
        "__krow_nc__<column>), "
        "or alter or drop the column (or the table)";
    return out;
  }

  // Then what the table lacks: planned columns, and the variant columns of breaking changes.
  for (const auto& p : planned) {
    if (by_name.count(p.name)) continue;
    ColumnChange ch;
    ch.kind = ChangeKind::add;
    ch.column = p;
    ch.of = p.name;
    ch.to_type = sql_type(p);
    ch.ddl = true;
    out.changes.push_back(ch);
    push(p, ch.to_type);
  }
  for (const auto& [name, k] : broken) {
    const ColumnSpec& p = planned[k];
    ColumnSpec c = p;
    c.name = name;
    c.type = ColumnType::json;
    c.precision = c.scale = 0;
    c.nullable = true;
    ColumnChange ch;
    ch.kind = ChangeKind::variant;
    ch.column = c;
    ch.of = p.name;
    ch.from_type = by_name.at(p.name)->sql_type;
    ch.to_type = sql_type(p);
    ch.ddl = !variants_present.count(name);
    out.changes.push_back(ch);
    if (ch.ddl) push(c, sql_type(c));
  }
  return out;
}

}  // namespace krow::columns
