// Quality gates without a broker: how `quality:` is read (and refused), and each gate type
// deciding on given facts — passing, failing, per table, and whether a failure blocks.

#include <gmock/gmock.h>
#include <gtest/gtest.h>


#include "manifest/manifest.hpp"
#include "plan/quality_gates.hpp"
#include "util/error.hpp"

namespace krow {
namespace {

using ::testing::HasSubstr;

Manifest with_quality(const std::string& quality) {
  return parse_manifest("source: {bootstrap_servers: 'k:9092'}\nwarehouse: {type: duckdb, path: w.duckdb}\n" + quality,
                        "/tmp/m.yaml");
}

std::string refusal(const std::string& quality) {
  try {
    with_quality(quality);
  } catch (const Error& e) {
    EXPECT_EQ(e.error_class(), ErrorClass::config);
    return e.what();
  }
  return "accepted";
}

TEST(QualityManifest, ReadsEveryGateType) {
  const auto m = with_quality(R"(quality:
  publish: staged
  gates:
    - {id: rows_match, type: row_count_reconciliation, tolerance: {pct: 0.5}}
    - {id: exact, type: row_count_reconciliation}
    - {id: some, type: min_rows, side: target, min: 10, severity: warn, tables: [orders]}
    - {id: errors, type: max_decode_errors, max_ratio: 0.01}
    - {id: caught_up, type: max_lag_after, max: 100}
    - {id: fresh, type: freshness, max_age: 2h}
)");
  const auto& q = m.quality;
  EXPECT_EQ(q.publish, PublishMode::staged);
  ASSERT_EQ(q.gates.size(), 6u);
  EXPECT_EQ(q.gates[0].type, GateType::row_count_reconciliation);
  EXPECT_EQ(q.gates[0].tolerance_pct, 0.5);
  EXPECT_FALSE(q.gates[1].tolerance_pct || q.gates[1].tolerance_abs);
  EXPECT_EQ(q.gates[2].side, RowSide::target);
  EXPECT_EQ(q.gates[2].min, 10);
  EXPECT_EQ(q.gates[2].severity, GateSeverity::warn);
  EXPECT_EQ(q.gates[2].tables, std::vector<std::string>{"orders"});
  EXPECT_EQ(q.gates[3].max_ratio, 0.01);
  EXPECT_FALSE(q.gates[3].max);
  EXPECT_EQ(q.gates[4].max, 100);
  EXPECT_EQ(q.gates[5].max_age_ms, 2 * 3600 * 1000);
  EXPECT_EQ(with_quality("").quality.publish, PublishMode::per_batch);
}

TEST(QualityManifest, RefusesWhatItCannotCheck) {
  EXPECT_THAT(refusal("quality: {publish: later}"), HasSubstr("'publish' must be one of per_batch, staged"));
  EXPECT_THAT(refusal("quality: {gatse: []}"), HasSubstr("did you mean 'gates'?"));
  EXPECT_THAT(refusal("quality: {gates: [{id: a, type: row_count}]}"), HasSubstr("'type' must be one of"));
  EXPECT_THAT(refusal("quality: {gates: [{type: min_rows}]}"), HasSubstr("needs an id"));
  EXPECT_THAT(refusal("quality: {gates: [{id: a, type: min_rows, max_age: 1h}]}"),
              HasSubstr("unknown key 'max_age' in quality.gates[0] (min_rows)"));
  EXPECT_THAT(refusal("quality: {gates: [{id: a, type: row_count_reconciliation, tolerance: {pct: 1, abs: 2}}]}"),
              HasSubstr("pct or abs, not both"));
  EXPECT_THAT(refusal("quality: {gates: [{id: a, type: row_count_reconciliation, tolerance: {pct: 101}}]}"),
              HasSubstr("'pct' must be a number from 0"));
  EXPECT_THAT(refusal("quality: {gates: [{id: a, type: freshness}]}"), HasSubstr("needs max_age"));
  EXPECT_THAT(refusal("quality: {gates: [{id: a, type: freshness, max_age: soon}]}"), HasSubstr("90s, 15m, 2h or 1d"));
  EXPECT_THAT(refusal("quality: {gates: [{id: a, type: min_rows}, {id: a, type: max_lag_after}]}"),
              HasSubstr("gate id 'a' is used twice"));
  EXPECT_THAT(refusal("quality: {gates: [{id: a, type: min_rows, severity: fatal}]}"),
              HasSubstr("'severity' must be one of error, warn"));
  EXPECT_THAT(refusal("quality: {gates: [{id: 'a b', type: min_rows}]}"), HasSubstr("gate id must be"));
}

TEST(Durations, UnitsAndRefusals) {
  EXPECT_EQ(parse_duration_ms("90s"), 90'000);
  EXPECT_EQ(parse_duration_ms("500ms"), 500);
  EXPECT_EQ(parse_duration_ms("15m"), 900'000);
  EXPECT_EQ(parse_duration_ms("2h"), 7'200'000);
  EXPECT_EQ(parse_duration_ms("1d"), 86'400'000);
  EXPECT_EQ(parse_duration_ms("30"), 30'000);
  for (const char* bad : {"", "h", "1w", "-5m", "1.5h", "1 hour"}) EXPECT_FALSE(parse_duration_ms(bad)) << bad;
}

GateConfig gate(GateType type) {
  GateConfig g;
  g.id = "g";
  g.type = type;
  return g;
}

TableFacts facts(const std::string& table, int64_t read, int64_t written) {
  TableFacts f;
  f.table = table;
  f.topic = "topic." + table;
  f.messages_read = read;
  f.rows_written = written;
  return f;
}

GateFinding one(const GateConfig& g, const std::vector<TableFacts>& tables, int64_t now_ms = 0) {
  QualityConfig q;
  q.gates.push_back(g);
  const auto out = evaluate_gates(q, tables, now_ms);
  EXPECT_EQ(out.size(), 1u);
  return out.at(0);
}

TEST(Gates, RowCountReconciliationWithAndWithoutTolerance) {
  auto g = gate(GateType::row_count_reconciliation);
  EXPECT_TRUE(one(g, {facts("a", 1000, 1000)}).passed);
  const auto f = one(g, {facts("a", 1000, 999)});
  EXPECT_FALSE(f.passed);
  EXPECT_EQ(f.finding, "a: 1,000 messages read, 999 rows written (1 apart, 0.1%; tolerance 0)");
  g.tolerance_pct = 0.1;
  EXPECT_TRUE(one(g, {facts("a", 1000, 999)}).passed);
  EXPECT_FALSE(one(g, {facts("a", 1000, 998)}).passed);
  g.tolerance_pct.reset();
  g.tolerance_abs = 2;
  EXPECT_TRUE(one(g, {facts("a", 1000, 998)}).passed);
  EXPECT_FALSE(one(g, {facts("a", 1000, 1003)}).passed);
  EXPECT_TRUE(one(g, {facts("a", 0, 0)}).passed);
}

TEST(Gates, MinRowsWrittenOrInTheTable) {
  auto g = gate(GateType::min_rows);
  g.min = 5;
  EXPECT_TRUE(one(g, {facts("a", 5, 5)}).passed);
  EXPECT_EQ(one(g, {facts("a", 4, 4)}).finding, "a: 4 rows written (min 5)");
  g.side = RowSide::target;
  auto t = facts("a", 0, 0);
  t.rows_in_table = 7;
  EXPECT_TRUE(one(g, {t}).passed);
  t.rows_in_table = 0;
  EXPECT_EQ(one(g, {t}).finding, "a: 0 rows in the table (min 5)");
}

TEST(Gates, MaxDecodeErrorsAsCountAndRatio) {
  auto g = gate(GateType::max_decode_errors);
  g.max = 0;
  auto t = facts("a", 200, 200);
  EXPECT_TRUE(one(g, {t}).passed);
  t.decode_errors = 2;
  EXPECT_EQ(one(g, {t}).finding, "a: 2 decode errors in 200 messages (1%; max 0)");
  g.max.reset();
  g.max_ratio = 0.01;
  EXPECT_TRUE(one(g, {t}).passed);
  t.decode_errors = 3;
  EXPECT_FALSE(one(g, {t}).passed);
}

TEST(Gates, MaxLagAfter) {
  auto g = gate(GateType::max_lag_after);
  g.max = 10;
  auto t = facts("a", 5, 5);
  t.lag_after = 10;
  EXPECT_TRUE(one(g, {t}).passed);
  t.lag_after = 11;
  EXPECT_EQ(one(g, {t}).finding, "a: 11 offsets left behind the boundary (max 10)");
}

TEST(Gates, FreshnessAgainstTheNewestTimestamp) {
  auto g = gate(GateType::freshness);
  g.max_age_ms = 3600'000;
  g.max_age_text = "1h";
  const int64_t now = 1'796'407'481'000;
  auto t = facts("a", 0, 0);
  EXPECT_EQ(one(g, {t}, now).finding, "a: no row with a kafka_timestamp (max_age 1h)");
  t.newest_ms = now - 3600'000;
  EXPECT_TRUE(one(g, {t}, now).passed);
  t.newest_ms = now - 3 * 3600'000 - 120'000;
  const auto f = one(g, {t}, now);
  EXPECT_FALSE(f.passed);
  EXPECT_THAT(f.finding, HasSubstr(", 3h 2m old (max_age 1h)"));
}

TEST(Gates, EachTableIsCheckedAndFailuresLead) {
  auto g = gate(GateType::row_count_reconciliation);
  const auto f = one(g, {facts("a", 3, 3), facts("b", 3, 2)});
  EXPECT_FALSE(f.passed);
  EXPECT_EQ(f.finding,
            "b: 3 messages read, 2 rows written (1 apart, 33.3%; tolerance 0); passed: a: 3 messages read, 3 rows "
            "written (0 apart, 0%; tolerance 0)");
  g.tables = {"topic.a"};  // by topic, or by table
  EXPECT_TRUE(one(g, {facts("a", 3, 3), facts("b", 3, 2)}).passed);
}

TEST(Gates, OnlyAFailingErrorGateBlocks) {
  QualityConfig q;
  auto warn = gate(GateType::min_rows);
  warn.severity = GateSeverity::warn;
  q.gates.push_back(warn);
  const std::vector<TableFacts> empty_run{facts("a", 0, 0)};
  EXPECT_FALSE(gates_block(evaluate_gates(q, empty_run, 0)));
  auto error = gate(GateType::min_rows);
  error.id = "e";
  q.gates.push_back(error);
  const auto out = evaluate_gates(q, empty_run, 0);
  EXPECT_TRUE(gates_block(out));
  EXPECT_FALSE(out[0].passed);
  EXPECT_EQ(out[0].severity, GateSeverity::warn);
}

TEST(Gates, ATableNameThatMatchesNothingIsRefused) {
  QualityConfig q;
  auto g = gate(GateType::min_rows);
  g.tables = {"orderz"};
  q.gates.push_back(g);
  EXPECT_THAT(check_gate_tables(q, {facts("orders", 0, 0)}),
              HasSubstr("quality gate 'g' names 'orderz' in tables, which is neither a table nor a topic of this sync "
                        "(its tables: orders)"));
  g.tables = {"topic.orders"};
  q.gates[0] = g;
  EXPECT_EQ(check_gate_tables(q, {facts("orders", 0, 0)}), "");
}

}  // namespace
}  // namespace krow
