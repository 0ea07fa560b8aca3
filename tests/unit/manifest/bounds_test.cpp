// Bounded runs without a broker: ISO times, the per-run share-out, and how bounds combine
// into each partition's boundary (capped by the last stable offset, never before the start).

#include <gtest/gtest.h>

#include <numeric>

#include "manifest/bounds.hpp"
#include "plan/plan.hpp"

namespace krow {
namespace {

TEST(IsoTime, FormsAndZones) {
  EXPECT_EQ(parse_iso_time_ms("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_iso_time_ms("2026-03-01T12:00:00Z"), 1772366400000);
  EXPECT_EQ(parse_iso_time_ms("2026-03-01 12:00Z"), 1772366400000);
  EXPECT_EQ(parse_iso_time_ms("2026-03-01T14:00:00+02:00"), 1772366400000);
  EXPECT_EQ(parse_iso_time_ms("2026-03-01T07:30:00-0430"), 1772366400000);
  EXPECT_EQ(parse_iso_time_ms("2026-03-01T12:00:00.5Z"), 1772366400500);
  EXPECT_EQ(parse_iso_time_ms("2026-03-01T12:00:00.123456789Z"), 1772366400123);
  EXPECT_EQ(parse_iso_time_ms("2026-03-01"), 1772323200000);  // midnight UTC
  EXPECT_EQ(parse_iso_time_ms("2024-02-29T00:00:00Z"), 1709164800000);
}

TEST(IsoTime, NotATime) {
  for (const char* bad : {"", "now", "2026-03-01T12:00:00", "2026-13-01", "2023-02-29", "2026-03-01T12:60Z",
                          "2026-03-01T12:00:00+25:00", "1969-12-31T23:59:59Z", "1772366400000", "2026-3-1"})
    EXPECT_FALSE(parse_iso_time_ms(bad).has_value()) << bad;
}

TEST(ShareOut, EvenWithTheRemainderToTheFirstPartitions) {
  EXPECT_EQ(share_out(10, {100, 100, 100}), (std::vector<int64_t>{4, 3, 3}));
  EXPECT_EQ(share_out(2, {100, 100, 100}), (std::vector<int64_t>{1, 1, 0}));
  EXPECT_EQ(share_out(9, {100, 100, 100}), (std::vector<int64_t>{3, 3, 3}));
}

TEST(ShareOut, APartitionWithFewerGivesTheRestToTheOthers) {
  EXPECT_EQ(share_out(30, {2, 100, 100}), (std::vector<int64_t>{2, 14, 14}));
  EXPECT_EQ(share_out(30, {0, 5, 100}), (std::vector<int64_t>{0, 5, 25}));
  EXPECT_EQ(share_out(31, {2, 100, 100}), (std::vector<int64_t>{2, 15, 14}));
}

TEST(ShareOut, MoreThanThereIsReadsEverything) {
  EXPECT_EQ(share_out(1000, {2, 7, 0}), (std::vector<int64_t>{2, 7, 0}));
  EXPECT_EQ(share_out(5, {}), (std::vector<int64_t>{}));
}

TEST(ShareOut, NeverMoreThanAvailableAndSumsToTheSmallerTotal) {
  for (int64_t total : {1, 3, 17, 64, 250, 1000})
    for (const auto& available : std::vector<std::vector<int64_t>>{{1, 2, 3, 4}, {50, 0, 7}, {33}, {9, 9, 9, 9, 9}}) {
      const auto shares = share_out(total, available);
      ASSERT_EQ(shares.size(), available.size());
      for (size_t i = 0; i < shares.size(); ++i) EXPECT_LE(shares[i], available[i]);
      EXPECT_EQ(std::accumulate(shares.begin(), shares.end(), int64_t{0}),
                std::min(total, std::accumulate(available.begin(), available.end(), int64_t{0})));
    }
}

// A topic with three partitions starting at `starts`, last stable offsets `ends`.
std::vector<TopicPlan> topic(const std::vector<int64_t>& starts, const std::vector<int64_t>& ends) {
  TopicPlan t;
  t.topic = "orders";
  for (size_t i = 0; i < starts.size(); ++i) {
    PartitionPlan p{Partition(static_cast<int32_t>(i))};
    p.start = Offset(starts[i]);
    p.last_stable = Offset(ends[i]);
    t.partitions.push_back(p);
  }
  return {t};
}

std::vector<int64_t> boundaries(const std::vector<TopicPlan>& topics) {
  std::vector<int64_t> out;
  for (const auto& p : topics[0].partitions) out.push_back(p.boundary.value());
  return out;
}

TEST(ApplyBounds, NoBoundsReadsToTheLastStableOffset) {
  auto t = topic({0, 5, 10}, {10, 20, 10});
  apply_bounds(t, {}, {});
  EXPECT_EQ(boundaries(t), (std::vector<int64_t>{10, 20, 10}));
  for (const auto& p : t[0].partitions) EXPECT_EQ(p.bounded_by, BoundedBy::last_stable_offset);
}

TEST(ApplyBounds, TheSmallestBoundWinsAndTheLastStableOffsetCapsEveryOne) {
  BoundsConfig b;
  b.until_offset = Offset(15);
  b.max_messages_per_partition = 8;
  auto t = topic({0, 10, 2}, {100, 100, 12});
  apply_bounds(t, b, {});
  EXPECT_EQ(boundaries(t), (std::vector<int64_t>{8, 15, 10}));
  EXPECT_EQ(t[0].partitions[0].bounded_by, BoundedBy::max_messages_per_partition);
  EXPECT_EQ(t[0].partitions[1].bounded_by, BoundedBy::until_offset);
  EXPECT_EQ(t[0].partitions[2].bounded_by, BoundedBy::max_messages_per_partition);

  b.until_offset = Offset(500);  // beyond the log: the last stable offset stands
  b.max_messages_per_partition.reset();
  t = topic({0, 10, 2}, {100, 100, 12});
  apply_bounds(t, b, {});
  EXPECT_EQ(boundaries(t), (std::vector<int64_t>{100, 100, 12}));
  for (const auto& p : t[0].partitions) EXPECT_EQ(p.bounded_by, BoundedBy::last_stable_offset);
}

TEST(ApplyBounds, UntilUsesTheOffsetFoundForEachPartition) {
  BoundsConfig b;
  b.until_ms = 1000;
  auto t = topic({0, 0, 0}, {50, 50, 50});
  // Partition 2 has no message that late: it reads to its last stable offset.
  apply_bounds(t, b, {{{"orders", Partition(0)}, Offset(20)}, {{"orders", Partition(1)}, Offset(0)}});
  EXPECT_EQ(boundaries(t), (std::vector<int64_t>{20, 0, 50}));
  EXPECT_EQ(t[0].partitions[0].bounded_by, BoundedBy::until);
  EXPECT_EQ(t[0].partitions[2].bounded_by, BoundedBy::last_stable_offset);
}

TEST(ApplyBounds, ABoundBehindTheStartReadsNothing) {
  BoundsConfig b;
  b.until_offset = Offset(5);
  auto t = topic({10, 0}, {20, 20});
  apply_bounds(t, b, {});
  EXPECT_EQ(boundaries(t), (std::vector<int64_t>{10, 5}));
  EXPECT_EQ(t[0].partitions[0].to_read(), 0);
}

TEST(ApplyBounds, MaxMessagesIsSharedAfterTheOtherBounds) {
  BoundsConfig b;
  b.max_messages = 20;
  b.max_messages_per_partition = 4;
  auto t = topic({0, 0, 0}, {100, 100, 100});
  apply_bounds(t, b, {});
  // Per partition caps first (4 each, 12 in all < 20): the run share cuts nothing off.
  EXPECT_EQ(boundaries(t), (std::vector<int64_t>{4, 4, 4}));

  b.max_messages_per_partition.reset();
  t = topic({3, 0, 90}, {100, 100, 92});
  apply_bounds(t, b, {});
  // 20 over available {97, 100, 2}: 2 to the last, 9 each to the others.
  EXPECT_EQ(boundaries(t), (std::vector<int64_t>{12, 9, 92}));
  EXPECT_EQ(t[0].partitions[0].bounded_by, BoundedBy::max_messages);
  EXPECT_EQ(t[0].partitions[2].bounded_by, BoundedBy::last_stable_offset);
}

TEST(ApplyBounds, StoppedTablesTakeNoShare) {
  BoundsConfig b;
  b.max_messages = 10;
  auto topics = topic({0, 0}, {100, 100});
  TopicPlan stopped = topics[0];
  stopped.topic = "denied";
  stopped.error = "no READ permission";
  topics.insert(topics.begin(), stopped);
  apply_bounds(topics, b, {});
  EXPECT_EQ(topics[1].partitions[0].boundary, Offset(5));
  EXPECT_EQ(topics[1].partitions[1].boundary, Offset(5));
}

}  // namespace
}  // namespace krow
