#include "sync/table_preparation.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

#include "engines/engines.hpp"
#include "plan/table_designs.hpp"
#include "plan/typed_columns.hpp"
#include "registry/schema_registry.hpp"
#include "sync/json_sample.hpp"
#include "util/error.hpp"

namespace krow {

PreparedTables prepare_tables(Plan& plan, Warehouse& warehouse, const PreparationOptions& options) {
  const Manifest& manifest = *options.manifest;
  const auto retry = std::chrono::seconds(manifest.source.retry_timeout_s);
  if (wants_typed_columns(plan)) {
    std::unique_ptr<SchemaRegistry> registry;
    if (manifest.registry.configured())
      registry = std::make_unique<SchemaRegistry>(manifest.registry, retry);
    plan_typed_columns(plan, registry.get(), warehouse, manifest.registry.tagged_unions,
                       [&](const TopicPlan& t) {
                         return sample_json_values(manifest.source, t, kInferSample, retry);
                       });
  }
  plan_table_designs(plan, warehouse, warehouse_capabilities(manifest.warehouse.type));
  PreparedTables out;
  for (auto& t : plan.topics) {
    if (!t.error.empty() || t.design.changes.empty()) continue;
    if (options.apply_design)
      t.settings.apply_design = true;
    else
      out.design_notes.push_back(unapplied_design_note(t));
  }
  out.tables.resize(plan.topics.size());
  for (size_t i = 0; i < plan.topics.size(); ++i) out.tables[i].error = plan.topics[i].error;
  auto create = [&](size_t i, BatchWriter::Creation creation) {
    const TopicPlan& tp = plan.topics[i];
    try {
      warehouse.create_table(manifest.name, tp.topic, tp.table, tp.settings, creation);
      out.tables[i].created = true;
    } catch (const Error& e) {
      if (e.error_class() != ErrorClass::fatal_table) throw;
      out.tables[i].error = e.what();
    }
  };
  // A table whose rows the run replaces is always staged, and then the whole run is; so those
  // are created (or rather, left to the publish) first.
  auto replaces = [&](size_t i) {
    return options.reads(plan.topics[i]) && plan.topics[i].settings.replaces(options.full_resync);
  };
  for (size_t i = 0; i < plan.topics.size(); ++i)
    if (out.tables[i].error.empty() && replaces(i)) create(i, BatchWriter::Creation::at_publish);
  out.staged = manifest.quality.publish == PublishMode::staged;
  for (size_t i = 0; i < plan.topics.size(); ++i)
    out.staged |= out.tables[i].created && replaces(i);
  // A staged run leaves the tables it would be the first to fill to its publish, so that one
  // that publishes nothing (a gate failed, it was killed) leaves the warehouse as it found it.
  for (size_t i = 0; i < plan.topics.size(); ++i)
    if (out.tables[i].error.empty() && !out.tables[i].created)
      create(i, out.staged && options.reads(plan.topics[i]) ? BatchWriter::Creation::at_publish
                                                            : BatchWriter::Creation::now);
  if (!out.staged) return out;
  for (size_t i = 0; i < plan.topics.size(); ++i)
    if (out.tables[i].created && options.reads(plan.topics[i]))
      out.staging.push_back(plan.topics[i].table);
  warehouse.begin_staging(manifest.name, out.staging);
  return out;
}

}  // namespace krow
