#include "plan/table_designs.hpp"

#include "manifest/physical_design.hpp"

namespace krow {

void plan_table_designs(Plan& plan, TableDesigns& warehouse, const WarehouseCapabilities& engine) {
  for (auto& t : plan.topics) {
    if (!t.error.empty()) continue;
    auto columns = metadata_design_columns();
    for (const auto& c : t.settings.typed_columns) columns.push_back({c.name, c.type});
    if (const auto problem = design_problem(t.settings.design, columns, true, engine);
        !problem.empty()) {
      t.error = "table " + t.table + " (topic " + t.topic +
                "): the physical design in the manifest's tables: " + problem +
                "; fix it there (docs/physical-design.md)";
      continue;
    }
    t.design = warehouse.plan_design(t.table, t.settings);
  }
}

std::string unapplied_design_note(const TopicPlan& t) {
  if (t.design.changes.empty()) return {};
  std::string changes;
  for (const auto& c : t.design.changes)
    changes += (changes.empty() ? "" : "; ") + c.what + (c.cost.empty() ? "" : " (" + c.cost + ")");
  return "table " + t.table + " (topic " + t.topic + "): its physical design (" + t.design.current +
         ") is not the manifest's; left as it is. `krow sync --apply-design` would: " + changes +
         "; `krow plan` shows the DDL";
}

}  // namespace krow
