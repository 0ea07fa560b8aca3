#pragma once
// Before anything is read, a sync's tables are made ready, once, by the process that holds
// the sync (the warehouse's sync lock): typed columns planned (from the registry's latest
// schema, or from a sample of the JSON values the run is about to read), tables created or
// evolved — or, in a staged run, left to its publish — and staging tables begun. Reading
// (sync/session) comes after and apart, so that it can go wherever partitions go.
//
// Thread: one thread at a time.

#include <functional>
#include <string>
#include <vector>

#include "manifest/manifest.hpp"
#include "plan/plan.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

struct TableReadiness {
  // create_table() took it: the table exists, or (staged) the publish makes it.
  bool created = false;
  std::string error;  // why the table stops before reading (the plan's error, or the warehouse's)
};

struct PreparedTables {
  std::vector<TableReadiness> tables;  // one per plan topic, in plan order
  // The run stages its batches and publishes them at the end: asked for (quality.publish:
  // staged), or needed by a table whose rows the run replaces.
  bool staged = false;
  std::vector<std::string> staging;  // staged: the tables with a staging table
  // Tables whose physical design differs from the manifest's and was left as it is (no
  // apply_design): what each would change, said once (plan/table_designs unapplied_design_note).
  std::vector<std::string> design_notes;
};

struct PreparationOptions {
  const Manifest* manifest = nullptr;
  bool full_resync = false;
  // Whether the run reads a table of the plan (a partial full resync leaves some out).
  std::function<bool(const TopicPlan&)> reads;
  // `krow sync --apply-design`: an existing table whose physical design differs from the
  // manifest's is changed to it (TableSettings::apply_design) rather than left as it is.
  bool apply_design = false;
};

// Plans the typed columns of the tables that ask for them (plan/typed_columns
// plan_typed_columns, sampling the JSON a table would read for `columns: infer`) and every
// table's physical design (plan/table_designs: a design naming what is not a column stops the
// table; a design that differs from an existing table's is applied or noted), then creates
// (or evolves) every table without an error in `plan`, and begins the staging tables of a
// staged run. A table the warehouse refuses (fatal_table) stops with its error; other errors
// are thrown (transient: the registry or the cluster kept failing; fatal_run).
PreparedTables prepare_tables(Plan& plan, Warehouse& warehouse, const PreparationOptions& options);

}  // namespace krow
