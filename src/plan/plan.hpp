#pragma once
// What a sync will do: for every selected topic its table and topic ID, and for every
// partition the stored position, the last stable offset captured now, the boundary (that
// offset, or an earlier one a bound of the manifest's `bounds:` sets), and the range to
// read. Used by `krow plan` (printed by report/plan_report) and as the first step of
// `krow sync`.
//
// Bounds combine by taking the smallest boundary, and never reach past the last stable
// offset nor come before the start: a run reads [start, boundary) of each partition, and its
// positions end at the boundary, so the next sync continues exactly there.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kafka/cluster.hpp"
#include "manifest/manifest.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"
#include "warehouse/capabilities.hpp"
#include "warehouse/state_store.hpp"
#include "warehouse/table_design.hpp"

namespace krow {

// What set a partition's boundary: the last stable offset, or the bound that stops earlier.
enum class BoundedBy { last_stable_offset, until_offset, until, max_messages_per_partition, max_messages };
const char* bound_name(BoundedBy b);

// Why reading a partition starts where it does.
enum class StartedBy { stored_position, log_start, log_truncated, start_from_latest, start_from_time, full_refresh };
const char* start_name(StartedBy s);

struct PartitionPlan {
  Partition partition;
  std::optional<Offset> stored;  // the committed position; none before the first commit
  Offset earliest;               // log start offset
  Offset boundary;               // read up to, not including, it: the last stable offset or a bound below it
  Offset start;                  // first offset to read: the stored position, the log start or `start_from`
  Offset last_stable;            // last stable offset at plan time: no bound reaches past it
  BoundedBy bounded_by = BoundedBy::last_stable_offset;
  StartedBy started_by = StartedBy::log_start;
  int64_t to_read() const { return distance(start, boundary); }
  // Offsets [stored, earliest) expired before they could be read.
  bool retention_gap() const { return stored && earliest > *stored; }
  // The log ends before the stored position: it was truncated under krow (an unclean leader
  // election). Reading resumes at the log's end, so that the messages written at offsets
  // [boundary, stored) from now on are copied too, instead of waiting forever for an offset
  // that came and went.
  bool truncated() const { return stored && *stored > last_stable; }
};

struct TopicPlan {
  std::string topic;
  TopicId topic_id;  // empty when the topic cannot be described
  std::string table;
  TableSettings settings;  // its strategy (the manifest's `tables:`), and its typed columns once planned
  // columns: from_schema, once planned (plan_typed_columns): each typed column's warehouse
  // type, and where the columns came from ("subject orders-value, schema ID 9, version 1, ...").
  std::vector<std::string> typed_sql_types;
  std::string typed_source;
  // The DDL a sync runs on the existing table to apply settings.changes (add, widen).
  std::vector<std::string> evolution_sql;
  // Its physical design once planned (plan/table_designs): the DDL, and for a table that exists
  // its design in the warehouse and the changes `krow sync --apply-design` would make.
  DesignPlan design;
  std::vector<PartitionPlan> partitions;
  std::string error;  // set when the table cannot be synced now (names the fix)
  // `error` in its parts when it names its fix apart (for `krow doctor`): what happened, and
  // the fix; both "" otherwise.
  std::string error_said, error_fix;
  // Sets `error` and its parts from `e`.
  void stop(const Error& e);
  int64_t to_read() const;
};

struct Plan {
  std::string sync_id;
  std::string warehouse;  // description of the warehouse
  std::string schema;
  NameRules names;        // what the warehouse's engine allows in table and column names
  std::string decoders;   // how keys and values will be read
  std::vector<TopicPlan> topics;
  std::vector<std::string> excluded_internal;  // internal topics left out
  std::vector<Position> older_topic_ids;     // positions of topics since recreated or deleted
  BoundsConfig bounds;                       // the bounds applied (none for a full resync)
  QualityConfig quality;                     // the gates a run checks, and its publish mode
  std::string last_run;                      // "<run id>: <status>, finished <time>"; empty before the first
  int64_t to_read() const;
};

// Asks the cluster and reads the stored state. Throws fatal_run / transient errors from
// the cluster; per-topic problems land in TopicPlan::error. Throws config for what the
// manifest asks of the selected topics and no sync could do (a gate naming no table, bounds
// on a full_refresh table): every command that plans refuses it alike. `apply_bounds` false
// plans to the last stable offset whatever manifest.bounds says (a full resync re-reads
// everything).
Plan make_plan(kafka::Cluster& cluster, StateStore& warehouse, const Manifest& manifest,
               bool apply_bounds = true);

// make_plan for the commands that only plan (`krow plan`, `krow schema`): connects to the
// manifest's cluster with a client of its own, waiting up to source.connect_timeout for it to
// answer. Throws as kafka::Client::check_connection and make_plan do.
Plan connect_and_plan(StateStore& warehouse, const Manifest& manifest);

// The boundaries `bounds` set, given each partition's start and last stable offset (and,
// for `until`, the first offset at or after that time, when there is one). Fills boundary
// and bounded_by of every partition of every topic without an error; max_messages is
// shared out over them in plan order (see share_out). Pure: exposed for tests.
void apply_bounds(std::vector<TopicPlan>& topics, const BoundsConfig& bounds,
                  const std::map<TopicPartition, Offset>& until_offsets);

// `bounds` as a JSON object (every key, null when unset), for plans and run records.
void write_bounds_json(JsonWriter& w, const BoundsConfig& bounds);
// A table's typed column changes (TableSettings::changes) as a JSON array of objects: kind
// (add, widen, variant, retire), column, of (the column whose values a variant column takes),
// from and to (engine types), ddl (whether the table changes). For `plan` and run records.
void write_column_changes_json(JsonWriter& w, const std::vector<columns::ColumnChange>& changes);

}  // namespace krow
