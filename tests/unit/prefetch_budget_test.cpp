// The reader's prefetch budget: shared by every partition read, so that memory does not
// grow with the partition count, down to a floor per partition.

#include <gtest/gtest.h>

#include "kafka/reader.hpp"

namespace krow {
namespace {

TEST(PrefetchBudget, OneBudgetSharedDownToAFloor) {
  EXPECT_EQ(kafka::prefetch_kib_per_partition(1), 16384);
  EXPECT_EQ(kafka::prefetch_kib_per_partition(6), 2730);
  EXPECT_EQ(kafka::prefetch_kib_per_partition(256), 64);
  EXPECT_EQ(kafka::prefetch_kib_per_partition(1000), 64);  // 1,000 partitions: 64 MiB in all, not 1 GiB
  EXPECT_EQ(kafka::prefetch_kib_per_partition(0), 16384);
}

}  // namespace
}  // namespace krow
