#pragma once
// Checks the quality gates of the manifest (`quality.gates`, manifest/quality) against what a
// run did, table by table. Pure: the sync engine measures the facts (counting in the
// reader, querying the warehouse), this decides. A gate fails when one of its tables does;
// a failing gate of severity `error` blocks the run: with `publish: staged` nothing of it
// reaches the tables, with `per_batch` the run only fails (its batches are committed already).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "manifest/quality.hpp"
#include "util/json_writer.hpp"

namespace krow {

// What a run did to one table, as the gates see it.
struct TableFacts {
  std::string table;
  std::string topic;
  int64_t messages_read = 0;  // messages read within the boundary (each becomes a row)
  int64_t decode_errors = 0;
  int64_t lag_after = 0;      // offsets between where the run left the partitions and their end at plan time
  // Measured in the warehouse (-1/none when no gate needs it):
  int64_t rows_written = -1;   // rows of this run's offset ranges in the table (or staged for it)
  int64_t rows_in_table = -1;  // rows the table holds once the run is published
  std::optional<int64_t> newest_ms;  // newest kafka_timestamp there
};

// Which facts the gates need measured in the warehouse (the others are free).
struct GateNeeds {
  bool rows_written = false;
  bool rows_in_table = false;  // and newest_ms
};
GateNeeds gate_needs(const QualityConfig& quality);

// The outcome of one gate.
struct GateFinding {
  std::string id;
  GateType type = GateType::min_rows;
  GateSeverity severity = GateSeverity::error;
  bool passed = true;
  std::string finding;  // what was measured against what, per table: "orders: 0 rows written (min 1)"
};

// A problem with the gates' `tables:` (a name that is neither a table nor a topic of the
// run), or an empty string. Checked before anything is read: a typo must not pass a gate
// by checking nothing.
std::string check_gate_tables(const QualityConfig& quality, const std::vector<TableFacts>& tables);

// Every gate against the run's tables, in manifest order. `now_ms`: the clock freshness
// measures against.
std::vector<GateFinding> evaluate_gates(const QualityConfig& quality, const std::vector<TableFacts>& tables,
                                        int64_t now_ms);

// True when a gate of severity error failed.
bool gates_block(const std::vector<GateFinding>& findings);

// The findings as a JSON array, for run records.
void write_findings_json(JsonWriter& w, const std::vector<GateFinding>& findings);

// One line per gate, for plans: "rows_match: row_count_reconciliation, tolerance 0.1% (error)".
std::string describe_gate(const GateConfig& gate);

}  // namespace krow
