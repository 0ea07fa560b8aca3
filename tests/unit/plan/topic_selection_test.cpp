// Topic selection and topic -> table names (docs/row-contract.md, "Topics and tables").

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "plan/topic_selection.hpp"

namespace krow {
namespace {

using ::testing::MatchesRegex;
using Names = std::map<std::string, std::string>;

TEST(InternalTopics, KafkaAndConfluentTopicsAreInternal) {
  EXPECT_TRUE(is_internal_topic("__consumer_offsets"));
  EXPECT_TRUE(is_internal_topic("__transaction_state"));
  EXPECT_TRUE(is_internal_topic("_schemas"));
  EXPECT_TRUE(is_internal_topic("_confluent-foo"));
  EXPECT_TRUE(is_internal_topic("_confluent-command"));
}

TEST(InternalTopics, OrdinaryTopicsAreNot) {
  EXPECT_FALSE(is_internal_topic("orders"));
  EXPECT_FALSE(is_internal_topic("orders__v1"));
  EXPECT_FALSE(is_internal_topic("confluent-audit"));
  EXPECT_FALSE(is_internal_topic(""));
}

TEST(Selection, EmptySelectionTakesEveryTopic) {
  const TopicSelection all;
  EXPECT_TRUE(all.selects_all());
  EXPECT_TRUE(is_selected(all, "orders"));
  EXPECT_TRUE(is_selected(all, "anything.else"));
}

TEST(Selection, ExactNames) {
  TopicSelection s;
  s.names = {"orders", "payments"};
  EXPECT_TRUE(is_selected(s, "orders"));
  EXPECT_TRUE(is_selected(s, "payments"));
  EXPECT_FALSE(is_selected(s, "orders2"));
  EXPECT_FALSE(is_selected(s, "Orders"));
  EXPECT_FALSE(is_selected(s, "order"));
}

TEST(Selection, Prefixes) {
  TopicSelection s;
  s.prefixes = {"orders."};
  EXPECT_TRUE(is_selected(s, "orders.v1"));
  EXPECT_TRUE(is_selected(s, "orders."));
  EXPECT_FALSE(is_selected(s, "orders"));
  EXPECT_FALSE(is_selected(s, "old.orders.v1"));
}

TEST(Selection, Globs) {
  TopicSelection s;
  s.globs = {"inv-*", "log.?", "[ab]-x"};
  EXPECT_TRUE(is_selected(s, "inv-eu"));
  EXPECT_TRUE(is_selected(s, "inv-"));
  EXPECT_TRUE(is_selected(s, "log.1"));
  EXPECT_FALSE(is_selected(s, "log.12"));
  EXPECT_TRUE(is_selected(s, "a-x"));
  EXPECT_TRUE(is_selected(s, "b-x"));
  EXPECT_FALSE(is_selected(s, "c-x"));
  EXPECT_FALSE(is_selected(s, "xinv-eu"));  // a glob matches the whole name
}

TEST(Selection, ExcludeWinsOverEveryRule) {
  TopicSelection s;
  s.names = {"orders.dlq"};
  s.prefixes = {"orders."};
  s.exclude = {"*.dlq"};
  EXPECT_TRUE(is_selected(s, "orders.v1"));
  EXPECT_FALSE(is_selected(s, "orders.dlq"));

  TopicSelection all_but;
  all_but.exclude = {"test-*"};
  EXPECT_TRUE(all_but.selects_all());
  EXPECT_TRUE(is_selected(all_but, "orders"));
  EXPECT_FALSE(is_selected(all_but, "test-1"));
}

TEST(TableNames, SanitizesToLowerCaseIdentifiers) {
  const Names n = table_names("s", {"orders.v1", "Payments-EU", "select", "1-drop.table--x"}, {});
  EXPECT_EQ(n.at("orders.v1"), "orders_v1");
  EXPECT_EQ(n.at("Payments-EU"), "payments_eu");
  EXPECT_EQ(n.at("select"), "select");
  EXPECT_EQ(n.at("1-drop.table--x"), "1_drop_table__x");
  for (const auto& [topic, table] : n) EXPECT_THAT(table, MatchesRegex("[a-z0-9_]+")) << topic;
}

TEST(TableNames, CollisionGivesAHashSuffixToTheTopicThatIsNotItsOwnName) {
  for (const auto& topics : {std::vector<std::string>{"Orders", "orders"},
                             std::vector<std::string>{"orders", "Orders"}}) {
    const Names n = table_names("s", topics, {});
    EXPECT_EQ(n.at("orders"), "orders");
    EXPECT_THAT(n.at("Orders"), MatchesRegex("orders_[0-9a-f]{8}"));
  }
}

TEST(TableNames, CollisionWithoutAnOwnerGoesToTheFirstInByteOrder) {
  const Names n = table_names("s", {"orders.v1", "orders-v1"}, {});
  // '-' (0x2d) sorts before '.' (0x2e).
  EXPECT_EQ(n.at("orders-v1"), "orders_v1");
  EXPECT_THAT(n.at("orders.v1"), MatchesRegex("orders_v1_[0-9a-f]{8}"));
}

TEST(TableNames, SuffixDependsOnTheExactTopicName) {
  const Names n = table_names("s", {"a.b", "a-b", "A_B", "a_b"}, {});
  const std::set<std::string> tables = {n.at("a.b"), n.at("a-b"), n.at("A_B"), n.at("a_b")};
  EXPECT_EQ(tables.size(), 4u);
  EXPECT_EQ(n.at("a_b"), "a_b");
}

TEST(TableNames, DeterministicWhateverTheInputOrder) {
  std::vector<std::string> topics = {"Orders", "orders", "orders.v1", "orders_v1", "ORDERS",
                                     "pay-ments", "pay.ments"};
  std::sort(topics.begin(), topics.end());
  const Names first = table_names("s", topics, {});
  do {
    ASSERT_EQ(table_names("s", topics, {}), first);
  } while (std::next_permutation(topics.begin(), topics.end()));
}

TEST(TableNames, RecordedMappingsAreKept) {
  const std::vector<TableMapping> recorded = {{"s", "orders", "legacy_orders"},
                                              {"s", "Orders", "orders"}};
  const Names n = table_names("s", {"orders", "Orders", "new.topic"}, recorded);
  EXPECT_EQ(n.at("orders"), "legacy_orders");
  EXPECT_EQ(n.at("Orders"), "orders");  // even though `orders` would own that name today
  EXPECT_EQ(n.at("new.topic"), "new_topic");
}

TEST(TableNames, FreshTopicNeverTakesARecordedTable) {
  // `orders` was recorded by this sync for topic `Orders`: the new topic `orders` must not
  // share it. Tables of another sync in the same schema are taken too.
  const std::vector<TableMapping> recorded = {{"s", "Orders", "orders"},
                                              {"other", "payments", "payments"}};
  const Names n = table_names("s", {"orders", "payments"}, recorded);
  EXPECT_THAT(n.at("orders"), MatchesRegex("orders_[0-9a-f]{8}"));
  EXPECT_THAT(n.at("payments"), MatchesRegex("payments_[0-9a-f]{8}"));
}

TEST(TableNames, CollisionFreeEvenWhenATopicIsNamedLikeASuffixedTable) {
  // Find the name `Orders` gets next to `orders`, then add a topic with exactly that name.
  const std::string suffixed = table_names("s", {"Orders", "orders"}, {}).at("Orders");
  const Names n = table_names("s", {"Orders", "orders", suffixed}, {});
  std::set<std::string> tables;
  for (const auto& [topic, table] : n) tables.insert(table);
  EXPECT_EQ(tables.size(), 3u) << "two topics share a table: " << ::testing::PrintToString(n);
}

TEST(TableNames, LongNamesAreCutToTheEngineLimitWithAHashSuffix) {
  // Kafka allows 249 characters; PostgreSQL identifiers end at 63 bytes.
  const std::string a = "orders." + std::string(80, 'x') + ".eu", b = "orders." + std::string(80, 'x') + ".us";
  const Names n = table_names("s", {a, b, "short"}, {}, NameRules{63});
  EXPECT_EQ(n.at("short"), "short");
  EXPECT_EQ(n.at(a).size(), 63u);
  EXPECT_EQ(n.at(b).size(), 63u);
  EXPECT_NE(n.at(a), n.at(b));  // same first 54 characters, different suffixes
  EXPECT_THAT(n.at(a), MatchesRegex("orders_x+_[0-9a-f]{8}"));
  // No limit: the whole name.
  EXPECT_EQ(table_names("s", {a}, {}).at(a).size(), a.size());
  // A name of exactly the limit is kept as it is.
  const std::string exact(63, 'q');
  EXPECT_EQ(table_names("s", {exact}, {}, NameRules{63}).at(exact), exact);
}

}  // namespace
}  // namespace krow
