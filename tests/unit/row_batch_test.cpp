// RowBatch: one slot per topic ID, memory kept across clear().

#include <gtest/gtest.h>

#include "rows/row_batch.hpp"

namespace krow {
namespace {

TEST(RowBatch, OneSlotPerTopicId) {
  RowBatch b;
  const size_t a = b.table_slot("orders", "orders", "id-A");
  EXPECT_EQ(b.table_slot("orders", "orders", "id-A"), a);
  // A topic deleted and recreated has a new ID: its rows are kept apart.
  const size_t a2 = b.table_slot("orders", "orders", "id-B");
  EXPECT_NE(a2, a);
  const size_t p = b.table_slot("payments", "payments", "id-C");
  ASSERT_EQ(b.tables().size(), 3u);
  EXPECT_EQ(b.tables()[a].topic_id, "id-A");
  EXPECT_EQ(b.tables()[a2].topic_id, "id-B");
  EXPECT_EQ(b.tables()[p].table, "payments");
  EXPECT_EQ(b.tables()[p].topic, "payments");
}

TEST(RowBatch, CountsRowsAndBytes) {
  RowBatch b;
  EXPECT_EQ(b.row_count(), 0u);
  EXPECT_EQ(b.byte_size(), 0u);
  const size_t t = b.table_slot("t", "t", "id");
  b.tables()[t].rows.push_back(Row{});
  b.count_row();
  b.arena() += "0123456789";
  EXPECT_EQ(b.row_count(), 1u);
  EXPECT_EQ(b.byte_size(), 10u);  // row text only: the fixed part is bounded by the row count
}

TEST(RowBatch, ClearEmptiesRowsButKeepsSlots) {
  RowBatch b;
  const size_t t = b.table_slot("t", "t", "id");
  b.tables()[t].rows.resize(3);
  b.count_row();
  b.count_row();
  b.count_row();
  b.arena() = "text";
  b.clear();
  EXPECT_EQ(b.row_count(), 0u);
  EXPECT_TRUE(b.arena().empty());
  ASSERT_EQ(b.tables().size(), 1u);
  EXPECT_TRUE(b.tables()[0].rows.empty());
  EXPECT_EQ(b.table_slot("t", "t", "id"), t);
}

}  // namespace
}  // namespace krow
