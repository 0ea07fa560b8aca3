// RowBatch: one slot per topic ID, memory kept across clear().

#include <gtest/gtest.h>

#include "rows/row_batch.hpp"

namespace krow {
namespace {

TEST(RowBatch, OneSlotPerTopicId) {
  RowBatch b;
  const size_t a = b.table_slot("orders", "orders", TopicId("id-A"));
  EXPECT_EQ(b.table_slot("orders", "orders", TopicId("id-A")), a);
  // A topic deleted and recreated has a new ID: its rows are kept apart.
  const size_t a2 = b.table_slot("orders", "orders", TopicId("id-B"));
  EXPECT_NE(a2, a);
  const size_t p = b.table_slot("payments", "payments", TopicId("id-C"));
  ASSERT_EQ(b.tables().size(), 3u);
  EXPECT_EQ(b.tables()[a].topic_id.str(), "id-A");
  EXPECT_EQ(b.tables()[a2].topic_id.str(), "id-B");
  EXPECT_EQ(b.tables()[p].table, "payments");
  EXPECT_EQ(b.tables()[p].topic, "payments");
}

TEST(RowBatch, CountsRowsAndBytes) {
  RowBatch b;
  EXPECT_EQ(b.row_count(), 0u);
  EXPECT_EQ(b.byte_size(), 0u);
  const size_t t = b.table_slot("t", "t", TopicId("id"));
  b.tables()[t].rows.push_back(Row{});
  b.count_row();
  b.arena() += "0123456789";
  EXPECT_EQ(b.row_count(), 1u);
  EXPECT_EQ(b.byte_size(), 10u);  // row text only: the fixed part is bounded by the row count
}

TEST(RowBatch, ClearEmptiesRowsButKeepsSlots) {
  RowBatch b;
  const size_t t = b.table_slot("t", "t", TopicId("id"));
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
  EXPECT_EQ(b.table_slot("t", "t", TopicId("id")), t);
}

// A batch holding one row whose value and headers are `value` and `headers` (JSON text).
RowBatch one_row(const std::string& value, const std::string& headers, const std::string& error = {}) {
  RowBatch b;
  const size_t t = b.table_slot("t", "t", TopicId("id"));
  Row& r = b.tables()[t].rows.emplace_back();
  b.count_row();
  auto put = [&](const std::string& text) {
    const size_t start = b.arena().size();
    b.arena() += text;
    return slice_since(b.arena(), start);
  };
  r.value.format = Format::json;
  r.value.schema_id = SchemaId(7);
  r.value.text = put(value);
  r.headers = put(headers);
  if (!error.empty()) r.decode_error = put(error);
  return b;
}

TEST(RowBatch, RefusedJsonValueKeepsItsTextAsAJsonString) {
  auto b = one_row(R"({"a":"x\u0000y"})", "[]");
  b.replace_unstorable(0, 0, contract::kValue, RowBatch::Fallback::as_text, "no NUL here");
  const Row& r = b.tables()[0].rows[0];
  EXPECT_EQ(r.value.text.view(b.arena()), R"("{\"a\":\"x\\u0000y\"}")");
  EXPECT_EQ(r.value.format, Format::string);
  EXPECT_EQ(r.value.schema_id, SchemaId(7));  // still says how it was decoded
  EXPECT_EQ(r.decode_error.view(b.arena()), "value stored as its JSON text in a string: no NUL here");
  EXPECT_EQ(r.headers.view(b.arena()), "[]");
}

TEST(RowBatch, RefusedHeadersAndAnEarlierErrorAreBothKept) {
  auto b = one_row("1", R"([{"key":"k","value":"\u0000"}])", "key looked framed");
  b.replace_unstorable(0, 0, contract::kHeaders, RowBatch::Fallback::as_text, "why");
  const Row& r = b.tables()[0].rows[0];
  EXPECT_EQ(r.headers.view(b.arena()), R"("[{\"key\":\"k\",\"value\":\"\\u0000\"}]")");
  EXPECT_EQ(r.decode_error.view(b.arena()), "key looked framed; headers stored as their JSON text in a string: why");
  EXPECT_EQ(r.value.text.view(b.arena()), "1");
}

TEST(RowBatch, SecondRefusalStoresNull) {
  auto b = one_row("1e999999", "[]");
  b.replace_unstorable(0, 0, contract::kValue, RowBatch::Fallback::as_text, "first");
  b.replace_unstorable(0, 0, contract::kValue, RowBatch::Fallback::as_null, "second");
  const Row& r = b.tables()[0].rows[0];
  EXPECT_FALSE(r.value.text.present);
  EXPECT_EQ(r.decode_error.view(b.arena()),
            "value stored as its JSON text in a string: first; value not stored: second");
}

TEST(RowBatch, NotNullColumnsAreNeverReplaced) {
  auto b = one_row("1", "[]");
  b.replace_unstorable(0, 0, contract::kId, RowBatch::Fallback::as_null, "x");
  EXPECT_FALSE(b.tables()[0].rows[0].decode_error.present);
}

TEST(RowBatch, EncodedRowsStopBeingCurrentWhenTheRowsChange) {
  RowBatch b = one_row(R"({"a":1})", "[]");
  const size_t slot = 0;
  auto& t = b.tables()[slot];
  t.encoded = std::make_unique<EncodedRows>();
  t.encoded->current = true;
  b.replace_unstorable(slot, 0, contract::kValue, RowBatch::Fallback::as_text, "refused");
  EXPECT_FALSE(t.encoded->current);  // the adapter builds its form again
  t.encoded->current = true;
  b.clear();
  EXPECT_FALSE(t.encoded->current);
}

}  // namespace
}  // namespace krow
