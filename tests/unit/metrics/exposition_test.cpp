// Expositions put together: each family once, its HELP and TYPE first, every text's samples.

#include "metrics/exposition.hpp"

#include <gtest/gtest.h>

namespace krow::metrics {
namespace {

TEST(Exposition, EachFamilyAppearsOnceWithTheSamplesOfEveryText) {
  const std::string service =
      "# HELP krow_serve_running 1 while a run is under way\n"
      "# TYPE krow_serve_running gauge\n"
      "krow_serve_running{sync=\"a\"} 0\n"
      "# HELP krow_messages_read_total Messages read\n"
      "# TYPE krow_messages_read_total counter\n"
      "krow_messages_read_total{sync=\"a\"} 10\n";
  const std::string child =
      "# HELP krow_messages_read_total Messages read, by topic\n"
      "# TYPE krow_messages_read_total counter\n"
      "krow_messages_read_total{sync=\"b\",topic=\"t\"} 7\n"
      "# HELP krow_commit_duration_seconds Commit time\n"
      "# TYPE krow_commit_duration_seconds histogram\n"
      "krow_commit_duration_seconds_bucket{sync=\"b\",le=\"+Inf\"} 2\n"
      "krow_commit_duration_seconds_sum{sync=\"b\"} 0.5\n"
      "krow_commit_duration_seconds_count{sync=\"b\"} 2\n";
  EXPECT_EQ(merge_expositions({service, child}),
            "# HELP krow_serve_running 1 while a run is under way\n"
            "# TYPE krow_serve_running gauge\n"
            "krow_serve_running{sync=\"a\"} 0\n"
            "# HELP krow_messages_read_total Messages read\n"
            "# TYPE krow_messages_read_total counter\n"
            "krow_messages_read_total{sync=\"a\"} 10\n"
            "krow_messages_read_total{sync=\"b\",topic=\"t\"} 7\n"
            "# HELP krow_commit_duration_seconds Commit time\n"
            "# TYPE krow_commit_duration_seconds histogram\n"
            "krow_commit_duration_seconds_bucket{sync=\"b\",le=\"+Inf\"} 2\n"
            "krow_commit_duration_seconds_sum{sync=\"b\"} 0.5\n"
            "krow_commit_duration_seconds_count{sync=\"b\"} 2\n");
}

TEST(Exposition, AFamilyOfAnotherTypeKeepsTheFirstAndDropsTheOthersSamples) {
  const auto merged =
      merge_expositions({"# TYPE x counter\nx{a=\"1\"} 1\n", "# TYPE x gauge\nx{a=\"2\"} 2\n"});
  EXPECT_EQ(merged, "# TYPE x counter\nx{a=\"1\"} 1\n");
}

TEST(Exposition, NothingAndGarbageGiveNoFamily) {
  EXPECT_EQ(merge_expositions({}), "");
  EXPECT_EQ(merge_expositions({"", "# just a comment\n\n"}), "");
}

}  // namespace
}  // namespace krow::metrics
