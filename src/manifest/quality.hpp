#pragma once
// Quality gates and the publish mode (`quality:` in the manifest): checks a run must pass,
// and whether its rows reach the tables batch by batch or only once every gate passed.
//
//   quality:
//     publish: staged            # or per_batch (default)
//     gates:
//       - {id: rows_match, type: row_count_reconciliation, tolerance: {pct: 0.1}}
//       - {id: not_empty, type: min_rows, side: target, min: 1, severity: warn}
//
// Each gate is checked on every table of the run (or those it names in `tables:`) and fails
// when one of them fails. The checks themselves are in plan/quality_gates.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "settings/section.hpp"

namespace krow {

enum class GateType { row_count_reconciliation, min_rows, max_decode_errors, max_lag_after, freshness };
const char* gate_type_name(GateType t);

enum class GateSeverity { error, warn };

// Where min_rows counts: the rows this run wrote to a table, or every row the table holds.
enum class RowSide { written, target };

struct GateConfig {
  std::string id;
  GateType type = GateType::min_rows;
  GateSeverity severity = GateSeverity::error;
  std::vector<std::string> tables;  // tables or topics it checks; empty: every table of the run
  // row_count_reconciliation: how far apart messages read and rows written may be.
  std::optional<double> tolerance_pct;
  std::optional<int64_t> tolerance_abs;  // neither set: exactly equal
  // min_rows
  RowSide side = RowSide::written;
  int64_t min = 1;
  // max_decode_errors (count and/or ratio of the messages read), max_lag_after (offsets)
  std::optional<int64_t> max;
  std::optional<double> max_ratio;
  // freshness: the newest kafka_timestamp in the table is at most this old.
  int64_t max_age_ms = 0;
  std::string max_age_text;
};

enum class PublishMode {
  per_batch,  // each batch is queryable once committed; gates run at the end and cannot undo batches
  staged,     // batches go to staging tables; rows and positions move to the tables once the gates pass
};
const char* publish_mode_name(PublishMode m);

struct QualityConfig {
  PublishMode publish = PublishMode::per_batch;
  std::vector<GateConfig> gates;
};

// Reads `quality:`. Throws Error(config) naming the line and key of the first problem.
QualityConfig read_quality(const ManifestReader& r, const YAML::Node& node);

// "500ms", "90s", "15m", "2h", "7d" or a plain number of seconds, in milliseconds; none when
// it is not one.
std::optional<int64_t> parse_duration_ms(const std::string& text);

}  // namespace krow
