// The pure decisions of a continuous sync (sync/continuous.hpp): what it refuses, when a batch
// is due by time, when the selected topics grew, and its backoff.

#include "sync/continuous.hpp"

#include <gtest/gtest.h>

namespace krow {
namespace {

using namespace std::chrono_literals;
using Clock = BatchClock::Clock;

TEST(BatchClock, DueMaxWaitAfterTheBatchsFirstMessageOnly) {
  BatchClock clock(500ms);
  const auto t0 = Clock::now();
  EXPECT_FALSE(clock.due(t0 + 1h)) << "an empty batch is never due";
  clock.on_message(t0);
  clock.on_message(t0 + 400ms);  // later messages do not restart the clock
  EXPECT_FALSE(clock.due(t0 + 499ms));
  EXPECT_TRUE(clock.due(t0 + 500ms));
  clock.reset();  // handed over
  EXPECT_FALSE(clock.running());
  EXPECT_FALSE(clock.due(t0 + 2s));
  clock.on_message(t0 + 2s);
  EXPECT_FALSE(clock.due(t0 + 2s + 499ms));
  EXPECT_TRUE(clock.due(t0 + 2s + 500ms));
}

TEST(Topology, GrowsWithANewTopicARecreatedTopicOrMorePartitionsOnly) {
  const TopicId a("AAAAAAAAAAAAAAAAAAAAAA"), b("BBBBBBBBBBBBBBBBBBBBBB"),
      c("CCCCCCCCCCCCCCCCCCCCCC");
  const Topology before{{"orders", {a, 2}}, {"users", {b, 1}}};
  EXPECT_FALSE(topology_grew(before, before));
  EXPECT_FALSE(topology_grew(before, {{"orders", {a, 2}}})) << "a topic gone is not growth";
  EXPECT_TRUE(topology_grew(before, {{"orders", {a, 3}}, {"users", {b, 1}}})) << "a new partition";
  EXPECT_TRUE(topology_grew(before, {{"orders", {c, 2}}, {"users", {b, 1}}}))
      << "recreated under its name";
  EXPECT_TRUE(topology_grew(before, {{"orders", {a, 2}}, {"users", {b, 1}}, {"payments", {c, 1}}}))
      << "a new topic";
  EXPECT_TRUE(topology_grew({}, {{"payments", {c, 1}}}));
}

TEST(RetryBackoff, OneSecondDoublingToAMinute) {
  EXPECT_EQ(retry_backoff(1), 1s);
  EXPECT_EQ(retry_backoff(2), 2s);
  EXPECT_EQ(retry_backoff(6), 32s);
  EXPECT_EQ(retry_backoff(7), 60s);
  EXPECT_EQ(retry_backoff(1000), 60s);
  EXPECT_EQ(retry_backoff(0), 1s);
}

Manifest continuous_manifest() {
  Manifest m;
  m.name = "orders";
  return m;
}

TEST(ContinuousRefusal, RefusesBoundsStagedPublishGatesAndFullRefreshSayingWhy) {
  EXPECT_EQ(continuous_refusal(continuous_manifest()), "");

  auto started_late = continuous_manifest();
  started_late.bounds.start_from.kind = StartFrom::Kind::latest;
  EXPECT_EQ(continuous_refusal(started_late), "")
      << "start_from is where reading starts, not a bound";

  auto bounded = continuous_manifest();
  bounded.bounds.until_offset = Offset(10);
  EXPECT_NE(continuous_refusal(bounded).find("bounds"), std::string::npos);

  auto staged = continuous_manifest();
  staged.quality.publish = PublishMode::staged;
  EXPECT_NE(continuous_refusal(staged).find("publish: staged"), std::string::npos);

  auto gated = continuous_manifest();
  gated.quality.gates.emplace_back();
  EXPECT_NE(continuous_refusal(gated).find("quality gates"), std::string::npos);

  auto replaced = continuous_manifest();
  replaced.tables.push_back({"orders.*", TableSettings{}});
  EXPECT_EQ(continuous_refusal(replaced), "") << "append";
  replaced.tables.back().settings.strategy = Strategy::full_refresh;
  const auto why = continuous_refusal(replaced);
  EXPECT_NE(why.find("'orders.*'"), std::string::npos) << why;
  EXPECT_NE(why.find("full_refresh"), std::string::npos) << why;
}

TEST(DailyQuotaNote, OnlyWhenMaxWaitLetsTheSyncTakeHalfAnEnginesDailyBatches) {
  WarehouseCapabilities server{.engine = "PostgreSQL"};
  WarehouseCapabilities quota{.engine = "BigQuery",
                              .daily_table_batches = 100000,
                              .daily_table_batch_cost = "one load job"};
  auto m = continuous_manifest();
  m.topics.names = {"orders", "payments"};
  m.batch.max_wait_ms = 1000;
  EXPECT_EQ(daily_quota_note(m, server), "") << "no quota: nothing to say";
  // Two tables, one batch a second each: 172,800 a day.
  const auto note = daily_quota_note(m, quota);
  EXPECT_NE(note.find("172800 a day"), std::string::npos) << note;
  EXPECT_NE(note.find("batch.max_wait 1s"), std::string::npos) << note;
  EXPECT_NE(note.find("one load job"), std::string::npos) << note;
  EXPECT_NE(note.find("Raise batch.max_wait to 18s"), std::string::npos)
      << note;  // 2 * 86,400 / 10,000
  m.batch.max_wait_ms = 250;
  EXPECT_NE(daily_quota_note(m, quota).find("691200 a day"), std::string::npos);
  EXPECT_NE(daily_quota_note(m, quota).find("batch.max_wait 250ms"), std::string::npos);
  // 2 * 86,400 / 4 = 43,200: under half the quota.
  m.batch.max_wait_ms = 4000;
  EXPECT_EQ(daily_quota_note(m, quota), "");
  // A glob is one table at least.
  m.topics = {};
  m.topics.globs = {"orders.*"};
  m.batch.max_wait_ms = 1000;
  EXPECT_NE(daily_quota_note(m, quota).find("1 table(s)"), std::string::npos);
}

}  // namespace
}  // namespace krow
