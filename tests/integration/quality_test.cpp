// Quality gates and staged publish on every warehouse engine, against a real broker: each
// gate type passing and failing; with `publish: staged` a failing gate of severity error
// leaves the table and the positions exactly as they were (exit code 4), a passing run
// publishes everything at once, and a kill -9 between staging and publishing publishes
// nothing and the next run starts over cleanly — checked against an independent consumer.

#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <ctime>
#include <map>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Quality : public EngineTest {
 protected:
  // `counts[p]` JSON messages into partition p, stamped `stamp_ms` when given (0: now).
  void fill(const std::string& topic, const std::vector<int>& counts, int64_t stamp_ms = 0,
            const std::string& value_pad = {}) {
    Producer p(bootstrap_);
    for (int part = 0; part < static_cast<int>(counts.size()); ++part)
      for (int i = 0; i < counts[part]; ++i) {
        Record r{"k" + std::to_string(i), "{\"p\": " + std::to_string(part) + ", \"i\": " + std::to_string(i) +
                                              value_pad + "}"};
        r.partition = part;
        r.timestamp_ms = stamp_ms;
        p.send(topic, r);
      }
    p.flush();
  }

  std::map<int32_t, int64_t> positions(const std::string& topic) {
    std::map<int32_t, int64_t> out;
    for (const auto& p : probe().positions())
      if (p.topic == topic) out[p.partition] = p.next_offset;
    return out;
  }

  // The newest run record's gates, as id -> passed.
  std::map<std::string, bool> gates_of_last_run() {
    std::map<std::string, bool> out;
    const auto records = probe().run_records();
    if (records.empty()) return out;
    simdjson::dom::parser parser;
    simdjson::dom::element r = parser.parse(records.front());
    for (auto g : r["gates"].get_array()) out[std::string(std::string_view(g["id"]))] = bool(g["passed"]);
    return out;
  }

  std::string last_record() {
    const auto records = probe().run_records();
    return records.empty() ? std::string() : records.front();
  }

  // The newest run record's status and whether it published.
  std::pair<std::string, bool> outcome_of_last_run() {
    simdjson::dom::parser parser;
    simdjson::dom::element r = parser.parse(last_record());
    return {std::string(std::string_view(r["status"])), bool(r["published"])};
  }

  static std::string gates(const std::string& publish, const std::string& list) {
    return "quality:\n  publish: " + publish + "\n  gates:\n" + list;
  }
};

constexpr int kExitGateFailed = 4;

TEST_P(Quality, EveryGatePassesAndAStagedRunPublishesEverything) {
  const auto topic = make_topic("q-pass", 3);
  fill(topic, {40, 30, 20});
  const auto manifest = write_manifest({topic}, gates("staged", R"(    - {id: rows_match, type: row_count_reconciliation}
    - {id: written, type: min_rows, min: 90}
    - {id: in_table, type: min_rows, side: target, min: 90}
    - {id: no_errors, type: max_decode_errors, max: 0}
    - {id: caught_up, type: max_lag_after, max: 0}
    - {id: fresh, type: freshness, max_age: 1h}
)") + "batch:\n  max_messages: 25\n");
  const auto table = table_of(topic);

  const auto r = krow({"sync", manifest});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("gate passed rows_match (row_count_reconciliation, error): " + table +
                       ": 90 messages read, 90 rows written"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("staged publish: the run's rows and positions reached the tables together"), std::string::npos);
  EXPECT_EQ(gates_of_last_run(), (std::map<std::string, bool>{{"rows_match", true}, {"written", true},
                                                                {"in_table", true}, {"no_errors", true},
                                                                {"caught_up", true}, {"fresh", true}}));
  EXPECT_EQ(positions(topic), (std::map<int32_t, int64_t>{{0, 40}, {1, 30}, {2, 20}}));
  EXPECT_EQ(probe().count(table), 90);
  EXPECT_EQ(probe().distinct_ids(table), 90);
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);
  EXPECT_EQ(outcome_of_last_run(), std::make_pair(std::string("success"), true));

  // The next run has nothing new: min_rows written fails, the table keeps its rows.
  const auto again = krow({"sync", manifest});
  EXPECT_EQ(again.exit_code, kExitGateFailed) << again.out << again.err;
  EXPECT_NE(again.err.find("quality gate 'written' (min_rows) failed: " + table + ": 0 rows written (min 90). "
                           "Nothing of this run was published"),
            std::string::npos)
      << again.err;
  EXPECT_EQ(probe().count(table), 90);
}

TEST_P(Quality, AFailingErrorGateLeavesTheTableAndPositionsExactlyAsTheyWere) {
  const auto topic = make_topic("q-block", 2);
  fill(topic, {10, 10});
  const auto plain = write_manifest({topic});
  ASSERT_EQ(krow({"sync", plain}).exit_code, 0);
  const auto table = table_of(topic);
  const auto rows_before = probe().rows(table);
  const auto positions_before = positions(topic);

  fill(topic, {15, 5});
  const auto gated = write_manifest({topic}, gates("staged", "    - {id: huge, type: min_rows, min: 1000}\n") +
                                                 "batch:\n  max_messages: 7\n",
                                    "gated.yaml");
  const auto r = krow({"sync", gated});
  EXPECT_EQ(r.exit_code, kExitGateFailed) << r.out << r.err;
  EXPECT_NE(r.out.find("sync 'it' gate_failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gate FAILED huge (min_rows, error): " + table + ": 20 rows written (min 1,000)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("nothing of this run was published"), std::string::npos) << r.out;
  EXPECT_EQ(probe().count(table), 20);
  EXPECT_EQ(probe().rows(table).size(), rows_before.size());
  EXPECT_EQ(positions(topic), positions_before);
  EXPECT_EQ(gates_of_last_run(), (std::map<std::string, bool>{{"huge", false}}));
  EXPECT_EQ(outcome_of_last_run(), std::make_pair(std::string("gate_failed"), false));

  // A warn gate only reports: the same run publishes.
  const auto warned = write_manifest({topic}, gates("staged", "    - {id: huge, type: min_rows, min: 1000, "
                                                              "severity: warn}\n"),
                                     "warned.yaml");
  const auto w = krow({"sync", warned});
  EXPECT_EQ(w.exit_code, 0) << w.out << w.err;
  EXPECT_NE(w.out.find("gate FAILED huge (min_rows, warn)"), std::string::npos) << w.out;
  EXPECT_EQ(probe().count(table), 40);
  EXPECT_EQ(probe().distinct_ids(table), 40);
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);
}

TEST_P(Quality, KilledBetweenStagingAndPublishingPublishesNothingAndTheNextRunStartsOver) {
  const auto topic = make_topic("q-kill", 3);
  fill(topic, {300, 200, 100});
  const auto manifest = write_manifest(
      {topic}, gates("staged", "    - {id: rows_match, type: row_count_reconciliation}\n") + "batch:\n  max_messages: 50\n");
  const auto table = table_of(topic);

  set_env("KROW_TEST_STOP_BEFORE_PUBLISH", "1");  // krow stops itself with SIGSTOP right before publishing
  const pid_t pid = start_krow({"sync", manifest});
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, WUNTRACED), pid);
  ASSERT_TRUE(WIFSTOPPED(status)) << "krow ended instead of stopping before the publish";
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  set_env("KROW_TEST_STOP_BEFORE_PUBLISH", "0");

  // Every batch was staged, and nothing reached the table or the positions.
  EXPECT_EQ(probe().count(table), 0);
  EXPECT_TRUE(positions(topic).empty());

  const auto r = krow({"sync", manifest});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(table + ": 600 messages read, 600 rows written"), std::string::npos) << r.out;
  EXPECT_EQ(probe().count(table), 600);
  EXPECT_EQ(probe().distinct_ids(table), 600);
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);
  EXPECT_EQ(positions(topic), (std::map<int32_t, int64_t>{{0, 300}, {1, 200}, {2, 100}}));
}

TEST_P(Quality, KilledWhileStagingPublishesNothingAndTheNextRunStartsOver) {
  const auto topic = make_topic("q-kill-mid", 2);
  fill(topic, {500, 500});
  const auto manifest = write_manifest({topic}, gates("staged", "") + "batch:\n  max_messages: 20\n");
  const auto table = table_of(topic);

  const pid_t pid = start_krow_frozen_after_first_batch({"sync", manifest});  // one batch staged
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  EXPECT_EQ(probe().count(table), 0);
  EXPECT_TRUE(positions(topic).empty());

  ASSERT_EQ(krow({"sync", manifest}).exit_code, 0);
  EXPECT_EQ(probe().count(table), 1000);
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);
}

TEST_P(Quality, PerBatchGatesRunAfterTheBatchesAndSaySoWhenTheyFail) {
  const auto topic = make_topic("q-per-batch", 2);
  fill(topic, {30, 30});
  const auto manifest = write_manifest({topic}, gates("per_batch", "    - {id: caught_up, type: max_lag_after, max: 0}\n"
                                                                   "    - {id: some, type: min_rows, min: 1}\n") +
                                                    "bounds:\n  max_messages: 20\n");
  const auto table = table_of(topic);

  const auto plan = krow({"plan", manifest});
  EXPECT_NE(plan.out.find("publish: per_batch: each batch is queryable once committed; the gates run after the last "
                          "batch and a failing one cannot undo the batches"),
            std::string::npos)
      << plan.out;

  const auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, kExitGateFailed) << r.out << r.err;
  EXPECT_NE(r.out.find("gate FAILED caught_up (max_lag_after, error): " + table +
                       ": 40 offsets left behind the boundary (max 0)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("This run's batches were committed as they were written (quality.publish: per_batch) and stay"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(probe().count(table), 20);  // committed before the gates ran
  EXPECT_EQ(gates_of_last_run(), (std::map<std::string, bool>{{"caught_up", false}, {"some", true}}));
  EXPECT_NE(last_record().find("cannot undo them"), std::string::npos);

  // Reading the rest leaves nothing behind.
  const auto rest = krow({"sync", manifest, "--max-messages", "1000"});
  EXPECT_EQ(rest.exit_code, 0) << rest.out << rest.err;
  EXPECT_EQ(probe().count(table), 60);
}

TEST_P(Quality, MaxDecodeErrorsCountsTheRowsThatCouldNotBeDecoded) {
  const auto topic = make_topic("q-errors", 1);
  fill(topic, {8});
  fill(topic, {2}, 0, ", \"pad\": \"" + std::string(200, 'x') + "\"");  // over limits.max_value_bytes
  const auto manifest = write_manifest({topic}, gates("staged", "    - {id: few, type: max_decode_errors, max_ratio: 0.1}\n") +
                                                    "limits:\n  max_value_bytes: 100\n");
  const auto table = table_of(topic);
  const auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, kExitGateFailed) << r.out << r.err;
  EXPECT_NE(r.out.find(table + ": 2 decode errors in 10 messages (20%; max_ratio 10%)"), std::string::npos) << r.out;
  EXPECT_EQ(probe().count(table), 0);

  const auto tolerant = write_manifest(
      {topic}, gates("staged", "    - {id: few, type: max_decode_errors, max: 2}\n") + "limits:\n  max_value_bytes: 100\n",
      "tolerant.yaml");
  EXPECT_EQ(krow({"sync", tolerant}).exit_code, 0);
  EXPECT_EQ(probe().count(table), 10);
}

TEST_P(Quality, FreshnessLooksAtTheNewestTimestampInTheTable) {
  const auto topic = make_topic("q-fresh", 1);
  const int64_t three_hours_ago = (static_cast<int64_t>(std::time(nullptr)) - 3 * 3600) * 1000;
  fill(topic, {5}, three_hours_ago);
  const auto manifest = write_manifest({topic}, gates("per_batch", "    - {id: fresh, type: freshness, max_age: 1h}\n"));
  const auto table = table_of(topic);
  const auto stale = krow({"sync", manifest});
  EXPECT_EQ(stale.exit_code, kExitGateFailed) << stale.out << stale.err;
  EXPECT_NE(stale.out.find(", 3h 0m old (max_age 1h)"), std::string::npos) << stale.out;

  fill(topic, {1});  // stamped now
  const auto fresh = krow({"sync", manifest});
  EXPECT_EQ(fresh.exit_code, 0) << fresh.out << fresh.err;
  EXPECT_EQ(gates_of_last_run(), (std::map<std::string, bool>{{"fresh", true}}));
  EXPECT_EQ(probe().count(table), 6);
}

TEST_P(Quality, AGateNamingNoTableOfTheSyncIsRefusedBeforeReading) {
  const auto topic = make_topic("q-typo", 1);
  fill(topic, {3});
  const auto manifest = write_manifest({topic}, gates("staged", "    - {id: g, type: min_rows, tables: [ordrs]}\n"));
  const auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("quality gate 'g' names 'ordrs' in tables, which is neither a table nor a topic of this sync"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(positions(topic).empty());
}

// A staged first sync that publishes nothing leaves the warehouse as it found it: no table,
// not even the schema (BigQuery: dataset) the tables would go in, and no table name recorded.
// That holds for a table staged because of its strategy (full_refresh) in a per_batch run
// too, and for a run killed right before it publishes. The run that passes creates them.
TEST_P(Quality, AStagedFirstSyncThatPublishesNothingCreatesNoTableAndNoSchema) {
  const auto topic = make_topic("q-first", 2);
  const auto refreshed = make_topic("q-first-refresh", 1);
  fill(topic, {10, 10});
  fill(refreshed, {5});
  const std::string refresh_rule = "tables:\n  \"" + refreshed + "\": {strategy: full_refresh}\n";
  auto nothing_created = [&](const char* after) {
    EXPECT_FALSE(probe().has_table(table_of(topic))) << after;
    EXPECT_FALSE(probe().has_table(table_of(refreshed))) << after;
    EXPECT_FALSE(probe().has_schema()) << after;
    EXPECT_TRUE(probe().tables().empty()) << after;
    EXPECT_TRUE(probe().positions().empty()) << after;
  };

  const auto blocked = write_manifest(
      {topic, refreshed},
      gates("staged", "    - {id: huge, type: min_rows, min: 1000}\n") + refresh_rule,
      "blocked.yaml");
  const auto r = krow({"sync", blocked});
  EXPECT_EQ(r.exit_code, kExitGateFailed) << r.out << r.err;
  EXPECT_EQ(outcome_of_last_run(), std::make_pair(std::string("gate_failed"), false));
  nothing_created("a staged run blocked by its gate");

  // publish: per_batch, but the full_refresh table makes the run stage: blocked all the same.
  const auto per_batch = write_manifest(
      {refreshed},
      gates("per_batch", "    - {id: huge, type: min_rows, min: 1000}\n") + refresh_rule,
      "per_batch.yaml");
  const auto p = krow({"sync", per_batch});
  EXPECT_EQ(p.exit_code, kExitGateFailed) << p.out << p.err;
  EXPECT_EQ(outcome_of_last_run(), std::make_pair(std::string("gate_failed"), false));
  nothing_created("a full_refresh run blocked by its gate");

  const auto passing = write_manifest(
      {topic, refreshed},
      gates("staged", "    - {id: rows_match, type: row_count_reconciliation}\n") + refresh_rule,
      "passing.yaml");
  // krow stops itself with SIGSTOP right before publishing.
  set_env("KROW_TEST_STOP_BEFORE_PUBLISH", "1");
  const pid_t pid = start_krow({"sync", passing});
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, WUNTRACED), pid);
  ASSERT_TRUE(WIFSTOPPED(status)) << "krow ended instead of stopping before the publish";
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  set_env("KROW_TEST_STOP_BEFORE_PUBLISH", "0");
  nothing_created("a staged run killed before publishing");

  const auto ok = krow({"sync", passing});
  ASSERT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_TRUE(probe().has_schema());
  EXPECT_EQ(probe().tables().size(), 2u);
  EXPECT_EQ(probe().count(table_of(topic)), 20);
  EXPECT_EQ(probe().count(table_of(refreshed)), 5);
  EXPECT_EQ(differences(probe().rows(table_of(topic)), consume_all(bootstrap_, topic)), 0u);
  EXPECT_EQ(differences(probe().rows(table_of(refreshed)), consume_all(bootstrap_, refreshed)), 0u);
  EXPECT_EQ(positions(topic), (std::map<int32_t, int64_t>{{0, 10}, {1, 10}}));
}

// What a run read is counted the same way in its record, its summary, `krow runs` and the
// sync's own line, whether or not anything was published; what reached the tables is
// counted beside it.
TEST_P(Quality, ABlockedStagedRunCountsWhatItReadTheSameWayEverywhere) {
  const auto topic = make_topic("q-count", 3);
  fill(topic, {40, 30, 20});
  const auto table = table_of(topic);
  const auto blocked =
      write_manifest({topic}, gates("staged", "    - {id: huge, type: min_rows, min: 1000}\n") +
                                  "batch:\n  max_messages: 25\n");
  const auto r = krow({"sync", blocked});
  ASSERT_EQ(r.exit_code, kExitGateFailed) << r.out << r.err;
  EXPECT_NE(r.out.find("sync 'it' gate_failed: 90 messages read in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", 0 rows published, "), std::string::npos) << r.out;

  simdjson::dom::parser parser;
  const auto json = last_record();
  simdjson::dom::element record = parser.parse(json);
  EXPECT_EQ(int64_t(record["messages"]), 90) << json;
  EXPECT_EQ(int64_t(record["rows_published"]), 0) << json;
  EXPECT_GT(int64_t(record["bytes"]), 0) << json;
  EXPECT_GE(int64_t(record["batches"]), 4) << json;
  EXPECT_EQ(int64_t(record["tables"].at(0)["messages"]), 90) << json;
  EXPECT_FALSE(bool(record["published"])) << json;
  const auto run_id = std::string(std::string_view(record["run_id"]));

  const auto md = krow({"runs", "show", run_id, blocked});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("- Messages read: 90, rows published: 0, bytes: "), std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("`" + topic + "` -> table `" + table + "`: 90 messages read, "),
            std::string::npos)
      << md.out;
  const auto listed = krow({"runs", blocked, "--limit", "1", "--format", "json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find(R"("messages":90,"rows_published":0,)"), std::string::npos)
      << listed.out;
  EXPECT_EQ(probe().count(table), 0);

  // The same messages again, published this time: read and published agree.
  const auto passing = write_manifest(
      {topic}, gates("staged", "    - {id: some, type: min_rows, min: 1}\n"), "ok.yaml");
  const auto ok = krow({"sync", passing});
  ASSERT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("sync 'it' success: 90 messages read in "), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find(", 90 rows published, "), std::string::npos) << ok.out;
  simdjson::dom::element published = parser.parse(last_record());
  EXPECT_EQ(int64_t(published["messages"]), 90);
  EXPECT_EQ(int64_t(published["rows_published"]), 90);
  EXPECT_TRUE(bool(published["published"]));
  EXPECT_EQ(probe().count(table), 90);
}

// A manifest that every sync would refuse is refused by `plan` and `doctor` alike, with the
// same exit code (3) and message, so that a CI that runs them first learns it there: a gate
// naming no table of the sync, and bounds on a full_refresh table.
TEST_P(Quality, PlanAndDoctorRefuseWhatSyncRefusesInTheManifest) {
  const auto topic = make_topic("q-refused", 1);
  fill(topic, {3});
  const auto typo = write_manifest(
      {topic}, gates("staged", "    - {id: g, type: min_rows, tables: [ordrs]}\n"), "typo.yaml");
  const auto bounded = write_manifest(
      {topic},
      "tables:\n  \"" + topic + "\": {strategy: full_refresh}\n" + "bounds:\n  max_messages: 2\n",
      "bounded.yaml");
  for (const auto& [manifest, message] : std::vector<std::pair<std::string, std::string>>{
           {typo,
            "quality gate 'g' names 'ordrs' in tables, which is neither a table nor a topic of "
            "this sync"},
           {bounded, "is full_refresh: every run re-reads the whole retained topic"}})
    for (const char* command : {"plan", "doctor", "sync"}) {
      const auto r = krow({command, manifest});
      EXPECT_EQ(r.exit_code, 3) << command << " " << manifest << "\n" << r.out << r.err;
      EXPECT_NE((r.out + r.err).find(message), std::string::npos) << command << "\n"
                                                                  << r.out << r.err;
    }
  EXPECT_TRUE(positions(topic).empty());
  EXPECT_FALSE(probe().has_table(table_of(topic)));
}

TEST_P(Quality, PlanAsMarkdownIsAReviewDocument) {
  const auto topic = make_topic("q-plan", 2);
  fill(topic, {4, 6});
  const auto manifest = write_manifest(
      {topic}, gates("staged", "    - {id: rows_match, type: row_count_reconciliation, tolerance: {pct: 0.5}}\n") +
                   "bounds:\n  max_messages_per_partition: 5\n");
  const auto md = krow({"plan", manifest, "--format", "md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  for (const std::string& expected : std::vector<std::string>{
           "# Plan for sync `it`\n",
           "- bounds: max_messages_per_partition 5",
           "## Boundary\n",
           "| `" + topic + "` | `" + table_of(topic) + "` | ",
           "| 5 | max_messages_per_partition | 6 | 5 |",
           "## Quality gates\n\n- publish: staged: batches go to staging tables",
           "- rows_match: row_count_reconciliation, tolerance 0.5% (error: fails the run)\n",
           "## State\n\n- positions stored for 0 of 2 partition(s)",
           "- last run: none yet\n",
       })
    EXPECT_NE(md.out.find(expected), std::string::npos) << expected << "\n---\n" << md.out;
  const auto json = krow({"plan", manifest, "--format", "json"});
  EXPECT_NE(json.out.find(R"("publish":"staged")"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find(R"("gates":[{"id":"rows_match","type":"row_count_reconciliation","severity":"error")"),
            std::string::npos)
      << json.out;
}

INSTANTIATE_TEST_SUITE_P(Engines, Quality, KROW_ALL_ENGINES);

// Rows that vanish between krow's write and the table: only an engine with triggers (or
// rules) can do that to a real table, so this one runs on PostgreSQL. A BEFORE INSERT
// trigger a DBA left on the table drops every other row; the reconciliation gate sees it.
class QualityPostgres : public SyncTest {
 protected:
  std::string engine() const override { return "postgres"; }
};

TEST_F(QualityPostgres, RowCountReconciliationCatchesRowsTheTableDidNotKeep) {
  const auto topic = make_topic("q-trigger", 1);
  const auto manifest = write_manifest(
      {topic}, "quality:\n  gates:\n    - {id: rows_match, type: row_count_reconciliation, tolerance: {abs: 2}}\n");
  ASSERT_EQ(krow({"sync", manifest}).exit_code, 0);  // creates the table
  const auto table = table_of(topic);
  pg_admin().exec(
      "CREATE FUNCTION confluent.drop_odd() RETURNS trigger LANGUAGE plpgsql AS "
      "$$ BEGIN IF NEW.kafka_offset % 2 = 1 THEN RETURN NULL; END IF; RETURN NEW; END $$");
  pg_admin().exec("CREATE TRIGGER drop_odd BEFORE INSERT ON confluent.\"" + table +
                  "\" FOR EACH ROW EXECUTE FUNCTION confluent.drop_odd()");
  Producer p(bootstrap_);
  for (int i = 0; i < 10; ++i) p.send(topic, Record{std::nullopt, "{\"i\": " + std::to_string(i) + "}"});
  p.flush();

  const auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("gate FAILED rows_match (row_count_reconciliation, error): " + table +
                       ": 10 messages read, 5 rows written (5 apart, 50%; tolerance 2)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(probe().count(table), 5);
}

}  // namespace
}  // namespace krow::testkit
