// PostgreSQL's physical design as DDL (warehouse/postgres/postgres_design): index names that
// say which index they are, deterministic and within PostgreSQL's 63 bytes.

#include <gtest/gtest.h>

#include "warehouse/postgres/postgres_design.hpp"

namespace krow {
namespace {

TEST(PostgresDesign, IndexNamesAreDeterministicAndTellIndexesApart) {
  const IndexSpec by_customer{{"customer_id"}, "btree"};
  const auto name = postgres_index_name("orders", by_customer);
  EXPECT_EQ(name.rfind("krow_ix_customer_id_", 0), 0u) << name;
  EXPECT_EQ(name.size(), std::string("krow_ix_customer_id_").size() + 8);
  EXPECT_EQ(postgres_index_name("orders", by_customer), name);
  // Another table, method or column list: another name (index names are unique per schema).
  EXPECT_NE(postgres_index_name("payments", by_customer), name);
  EXPECT_NE(postgres_index_name("orders", {{"customer_id"}, "hash"}), name);
  EXPECT_NE(postgres_index_name("orders", {{"customer_id", "region"}, "btree"}), name);
  // Names of any length and characters fit an identifier.
  const auto odd = postgres_index_name("t", {{"Ünïcode Column", std::string(100, 'x')}, "btree"});
  EXPECT_LE(odd.size(), 63u);
  EXPECT_EQ(odd.rfind("krow_ix___n__code_column_xxx", 0), 0u) << odd;  // two bytes of UTF-8: two _
  for (char c : odd) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '_') << odd;
}

TEST(PostgresDesign, IndexDDL) {
  EXPECT_EQ(
      postgres_index_sql("confluent", "orders", {{"customer_id", "kafka_timestamp"}, "btree"}),
      "CREATE INDEX \"" +
          postgres_index_name("orders", {{"customer_id", "kafka_timestamp"}, "btree"}) +
          "\" ON \"confluent\".\"orders\" USING btree (\"customer_id\", \"kafka_timestamp\")");
  EXPECT_EQ(postgres_index_sql("s", "t", {{"value"}, "gin"}),
            "CREATE INDEX \"" + postgres_index_name("t", {{"value"}, "gin"}) +
                "\" ON \"s\".\"t\" USING gin (\"value\")");
  // A name with a quote stays one identifier.
  EXPECT_NE(postgres_index_sql("s", "t", {{"a\"b"}, "btree"}).find("(\"a\"\"b\")"),
            std::string::npos);
}

}  // namespace
}  // namespace krow
