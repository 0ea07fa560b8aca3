// Run summaries and artifact files: the Markdown rendered from a run record, the listing of
// `krow runs`, and the files under .krow/runs (written whole, listed newest first, found by
// run ID, and a folder in the way reported with its fix).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "report/run_artifacts.hpp"
#include "report/run_summary.hpp"
#include "util/error.hpp"

namespace krow {
namespace {

namespace fs = std::filesystem;

// A record as sync/run_recorder writes it (fields the summary uses, and one it ignores).
std::string record(const std::string& run_id, int64_t started_ms, const std::string& status = "partial") {
  return R"({"run_id":")" + run_id + R"(","sync_id":"orders","status":")" + status +
         R"(","warehouse_schema":"kafka","started_at_ms":)" + std::to_string(started_ms) +
         R"(,"finished_at_ms":)" + std::to_string(started_ms + 61500) +
         R"(,"duration_ms":61500,"phases":{"connect_plan_ms":120,"read_write_ms":61000,"final_drain_ms":300,)"
         R"("lag_report_ms":null},"messages":1234567,"rows_published":1000000,"bytes":4096,"batches":31,"decode_errors":2,)"
         R"("warehouse_retries":0,"mode":"sync","retry_later":false,"registry_requests":0,"lag_group":"krow-orders",)"
         R"("lag_reporting_off":"no READ on group krow-orders;\ngrant it","bounds":null,"tables":[)"
         R"({"topic":"orders.eu","table":"orders_eu","topic_id":"x","messages":1234567,"bytes":4096,)"
         R"("decode_errors":2,"tombstones":0,"error":null,"partitions":[{"partition":0,"from":5,"boundary":800,)"
         R"("started_by":"stored","bounded_by":"last_stable_offset","last_stable_offset":800}]},)"
         R"({"topic":"orders.us","table":"orders_us","topic_id":"y","messages":0,"bytes":0,"decode_errors":0,)"
         R"("tombstones":0,"error":"no READ on topic orders.us: grant it to User:krow","partitions":[]}],)"
         R"("gaps":[{"topic":"orders.eu","partition":0,"from":0,"to":5,"reason":"expired by retention"}],)"
         R"("errors":["no READ on topic orders.us: grant it to User:krow"],"gates":[]})";
}

TEST(RunSummary, SaysWhatTheRecordHolds) {
  const auto md = render_run_summary(record("20261204T180441Z-0a1b2c", 1'796'407'481'000));
  for (const char* expected : {
           "# krow run 20261204T180441Z-0a1b2c: partial\n",
           "- Sync ID: `orders` (warehouse schema `kafka`)\n",
           "- Mode: sync\n",
           "- Started 2026-12-04T18:04:41Z, finished 2026-12-04T18:05:42Z, took 1 min 1 s\n",
           "- Phases: connect and plan 0.120 s, read and write 1 min 1 s, final drain 0.300 s\n",
           "- Messages read: 1,234,567, rows published: 1,000,000, bytes: 4,096, batches: 31, "
           "decode errors: 2\n",
           "- Lag reporting was off: no READ on group krow-orders; grant it\n",
           "- `orders.eu` -> table `orders_eu`: 1,234,567 messages read, 2 decode errors\n",
           "  - partition 0: 5 -> 800 (last_stable_offset)\n",
           "  - Stopped: no READ on topic orders.us: grant it to User:krow\n",
           "- `orders.eu` partition 0, offsets 0 to 5: expired by retention\n",
           "## Errors\n\n- no READ on topic orders.us",
           "## Quality gates\n\nNone ran",
       })
    EXPECT_NE(md.find(expected), std::string::npos) << expected << "\n---\n" << md;
}

TEST(RunSummary, PhasesLineHasEveryPhaseTheRecordHas) {
  auto json = record("r3", 1'796'407'481'000);
  json.replace(json.find(R"("lag_report_ms":null)"), 20,
               R"("gates_publish_ms":2500,"lag_report_ms":40,"later_phase_ms":7)");
  const auto md = render_run_summary(json);
  const std::string expected =
      "- Phases: connect and plan 0.120 s, read and write 1 min 1 s, final drain 0.300 s, gates "
      "and publish 2.500 s, "
      "lag report 0.040 s, later phase 0.007 s\n";
  EXPECT_NE(md.find(expected), std::string::npos) << expected << "\n---\n" << md;
}

TEST(RunSummary, ListsEachGateAndThePublishMode) {
  auto json = record("r2", 1'796'407'481'000);
  json.replace(json.rfind(R"("gates":[])"), 10,
               R"("publish":"staged","published":false,"publish_note":"staged: nothing of this run reached the tables",)"
               R"("gates":[{"id":"rows_match","type":"row_count_reconciliation","severity":"error","passed":false,)"
               R"("finding":"orders_eu: 10 messages read, 9 rows written"},{"id":"fresh","type":"freshness",)"
               R"("severity":"warn","passed":true,"finding":"orders_eu: newest 5s old"}])");
  const auto md = render_run_summary(json);
  for (const char* expected : {
           "Publish: staged: nothing of this run reached the tables.\n",
           "- **failed**: `rows_match` (row_count_reconciliation, error): orders_eu: 10 messages read, 9 rows written\n",
           "- passed: `fresh` (freshness, warn): orders_eu: newest 5s old\n",
       })
    EXPECT_NE(md.find(expected), std::string::npos) << expected << "\n---\n" << md;
}

TEST(RunSummary, EarlyFailureAndUnreadableRecord) {
  const auto md = render_run_summary(
      R"({"run_id":"r1","sync_id":"s","status":"failed","started_at_ms":0,"finished_at_ms":2000,"duration_ms":2000,)"
      R"("messages":0,"retry_later":true,"lag_group":"krow-s","lag_reporting_off":null,"tables":[],"gaps":[],)"
      R"("errors":["check that bootstrap_servers is reachable"],"gates":[]})");
  EXPECT_NE(md.find("# krow run r1: failed"), std::string::npos) << md;
  EXPECT_NE(md.find("run again later"), std::string::npos) << md;
  EXPECT_NE(md.find("None: the run stopped before planning any."), std::string::npos) << md;
  EXPECT_EQ(md.find("Lag reporting"), std::string::npos) << "the run never reached it\n" << md;
  EXPECT_NE(render_run_summary("{not json").find("could not be read"), std::string::npos);
}

// Records written before rows_published was counted say nothing of it rather than 0.
TEST(RunSummary, RecordsWithoutRowsPublished) {
  auto old = record("r0", 1'796'407'481'000);
  old.erase(old.find(R"("rows_published":1000000,)"), 25);
  EXPECT_NE(render_run_summary(old).find("- Messages read: 1,234,567, bytes: 4,096,"),
            std::string::npos)
      << render_run_summary(old);
  RunListing r;
  ASSERT_TRUE(parse_run_listing(old, r));
  EXPECT_EQ(r.rows_published, std::nullopt);
  EXPECT_NE(format_run_listings({r}, true).find(R"("messages":1234567,"rows_published":null,)"),
            std::string::npos);
}

TEST(RunSummary, ListingAsTextAndJson) {
  RunListing r;
  ASSERT_TRUE(parse_run_listing(record("r2", 1'796'407'481'000, "success"), r));
  EXPECT_EQ(r.run_id, "r2");
  EXPECT_EQ(r.messages, 1234567);
  EXPECT_EQ(r.rows_published, 1000000);
  EXPECT_EQ(r.errors, 1);
  EXPECT_FALSE(parse_run_listing("[]", r));
  r.file = "/x/r2.json";
  const auto text = format_run_listings({r}, false);
  EXPECT_NE(text.find("RUN ID"), std::string::npos) << text;
  EXPECT_NE(text.find("2026-12-04T18:04:41Z"), std::string::npos) << text;
  EXPECT_NE(text.find("1,234,567"), std::string::npos) << text;
  EXPECT_NE(text.find("1,000,000"), std::string::npos) << text;
  EXPECT_EQ(
      format_run_listings({r}, true),
      R"([{"run_id":"r2","sync_id":"orders","started_at":"2026-12-04T18:04:41Z","started_at_ms":1796407481000,)"
      R"("status":"success","mode":"sync","messages":1234567,"rows_published":1000000,"duration_ms":61500,"errors":1,)"
      R"("file":"/x/r2.json"}])"
      "\n");
}

class RunArtifactFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("krow-artifacts-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(RunArtifactFiles, WrittenListedAndFound) {
  const auto root = runs_root(dir_ / "orders.yaml");
  EXPECT_EQ(root, dir_ / ".krow" / "runs");
  write_run_artifacts(root, "orders", "r-old", record("r-old", 1000));
  write_run_artifacts(root, "orders", "r-new", record("r-new", 3000));
  write_run_artifacts(root, "other", "r-mid", R"({"run_id":"r-mid","started_at_ms":2000})");
  std::ofstream(root / "orders" / "notes.json") << "not a record";
  EXPECT_EQ(read_text_file(root / "orders" / "r-new.json"), record("r-new", 3000) + "\n");
  EXPECT_TRUE(fs::exists(root / "orders" / "r-new.md"));

  const auto orders = list_runs(root, "orders");
  ASSERT_EQ(orders.size(), 2u);
  EXPECT_EQ(orders[0].run_id, "r-new");
  EXPECT_EQ(orders[1].run_id, "r-old");
  const auto all = list_runs(root, "");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[1].run_id, "r-mid");
  EXPECT_TRUE(list_runs(dir_ / "nowhere", "").empty());

  EXPECT_EQ(find_run(root, "", "r-mid"), root / "other" / "r-mid.json");
  EXPECT_EQ(find_run(root, "orders", "r-mid"), std::nullopt);
  EXPECT_EQ(find_run(root, "", "../orders/r-new"), std::nullopt);
}

TEST_F(RunArtifactFiles, AFileInTheWayNamesTheFolderAndTheFix) {
  std::ofstream(dir_ / ".krow") << "in the way";
  try {
    write_run_artifacts(runs_root(dir_ / "orders.yaml"), "orders", "r1", record("r1", 0));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((dir_ / ".krow" / "runs" / "orders").string()), std::string::npos) << what;
    EXPECT_NE(what.find("writable directory"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace krow
