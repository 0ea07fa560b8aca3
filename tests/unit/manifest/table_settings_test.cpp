// The manifest's `tables:` without a broker: strategies read per topic name or glob (an
// exact name before globs, then globs in manifest order), and what is refused.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "manifest/manifest.hpp"
#include "util/error.hpp"

namespace krow {
namespace {

using ::testing::HasSubstr;

Manifest with_tables(const std::string& tables) {
  return parse_manifest("source: {bootstrap_servers: 'k:9092'}\nwarehouse: {path: w.duckdb}\n" + tables, "/tmp/m.yaml");
}

std::string refusal(const std::string& tables) {
  try {
    with_tables(tables);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(TableSettings, ExactNamesWinOverGlobsAndGlobsMatchInOrder) {
  const auto m = with_tables(R"(tables:
  "customers.*": {strategy: latest_by_key, unique_key: [id, region], tombstones: keep}
  "*": {strategy: full_refresh}
  customers.vip: {strategy: append}
  "orders.*":
)");
  EXPECT_EQ(settings_for(m.tables, "customers.eu").strategy, Strategy::latest_by_key);
  EXPECT_EQ(settings_for(m.tables, "customers.eu").unique_key, (std::vector<std::string>{"id", "region"}));
  EXPECT_TRUE(settings_for(m.tables, "customers.eu").keep_tombstones);
  EXPECT_EQ(settings_for(m.tables, "customers.vip").strategy, Strategy::append);
  EXPECT_EQ(settings_for(m.tables, "snapshots").strategy, Strategy::full_refresh);
  EXPECT_EQ(settings_for(m.tables, "orders.eu").strategy, Strategy::full_refresh);  // "*" comes first
  EXPECT_EQ(settings_for({}, "anything").strategy, Strategy::append);
  EXPECT_TRUE(settings_for(m.tables, "snapshots").replaces(false));
  EXPECT_FALSE(settings_for(m.tables, "customers.eu").replaces(false));
  EXPECT_TRUE(settings_for(m.tables, "customers.eu").replaces(true));  // a full resync rebuilds it
}

TEST(TableSettings, RefusesWhatItCannotHonour) {
  EXPECT_THAT(refusal("tables: [a, b]"), HasSubstr("tables must map topic names or globs"));
  EXPECT_THAT(refusal("tables: {a: {strategy: upsert}}"),
              HasSubstr("'strategy' must be one of append, latest_by_key, full_refresh"));
  EXPECT_THAT(refusal("tables: {a: {stratgy: append}}"), HasSubstr("did you mean 'strategy'?"));
  EXPECT_THAT(refusal("tables: {a: {unique_key: [id]}}"),
              HasSubstr("unique_key and tombstones apply to strategy: latest_by_key only"));
  EXPECT_THAT(refusal("tables: {a: {strategy: latest_by_key, unique_key: [a.b]}}"),
              HasSubstr("must be a top-level field name"));
  EXPECT_THAT(refusal("tables: {a: {strategy: latest_by_key, unique_key: []}}"), HasSubstr("lists no field"));
  EXPECT_THAT(refusal("tables: {a: {strategy: latest_by_key, tombstones: drop}}"),
              HasSubstr("'tombstones' must be one of delete, keep"));
}

TEST(TableSettings, TypedColumnsFromSchema) {
  const auto m = with_tables(R"(tables:
  "orders.*": {columns: from_schema}
  payments: {columns: from_schema, nested: json, strategy: latest_by_key}
)");
  EXPECT_EQ(settings_for(m.tables, "orders.eu").columns, TypedColumns::from_schema);
  EXPECT_EQ(settings_for(m.tables, "orders.eu").nested, NestedColumns::flatten);
  EXPECT_EQ(settings_for(m.tables, "payments").nested, NestedColumns::json);
  EXPECT_EQ(settings_for(m.tables, "other").columns, TypedColumns::none);
  EXPECT_TRUE(settings_for(m.tables, "orders.eu").typed_columns.empty());  // planned later, from the registry
  EXPECT_THAT(refusal("tables: {a: {columns: guess}}"), HasSubstr("'columns' must be one of none, from_schema, infer"));
  EXPECT_EQ(settings_for(with_tables("tables: {a: {columns: infer, nested: json}}").tables, "a").columns,
            TypedColumns::infer);
  EXPECT_THAT(refusal("tables: {a: {columns: from_schema, nested: deep}}"),
              HasSubstr("'nested' must be one of flatten, json"));
  EXPECT_THAT(refusal("tables: {a: {nested: json}}"), HasSubstr("nested applies to typed columns only"));
  EXPECT_THAT(refusal("tables:\n  a:\n    columns: from_schema\n    nested: json\n    colums: x\n"), HasSubstr("did you mean 'columns'"));
}

TEST(TableSettings, OnBreaking) {
  const auto m = with_tables("tables:\n  a: {columns: from_schema, on_breaking: variant}\n  b: {columns: from_schema}\n");
  EXPECT_EQ(settings_for(m.tables, "a").on_breaking, columns::OnBreaking::variant);
  EXPECT_EQ(settings_for(m.tables, "b").on_breaking, columns::OnBreaking::fail);
  EXPECT_THAT(refusal("tables: {a: {columns: from_schema, on_breaking: drop}}"),
              HasSubstr("'on_breaking' must be one of fail, variant"));
  EXPECT_THAT(refusal("tables: {a: {on_breaking: variant}}"), HasSubstr("on_breaking applies to typed columns only"));
}

TEST(TableSettings, AColumnContractDeclaresColumnsAndHowValuesMeetThem) {
  const auto m = with_tables(R"(tables:
  orders:
    contract:
      enforce: coerce
      empty_strings: null
      columns:
        amount: decimal(12, 2)
        created_at: {type: TimestampTZ, from: meta.created}
        note: text
  "payments.*":
    columns: from_schema
    contract: {columns: {paid_at: timestamp}}
  events:
    columns: infer
    contract: {enforce: strict}
)");
  const auto orders = settings_for(m.tables, "orders");
  EXPECT_EQ(orders.columns, TypedColumns::contract);
  EXPECT_TRUE(orders.contract.given);
  EXPECT_TRUE(orders.contract.coerce);
  EXPECT_TRUE(orders.contract.empty_as_null);
  ASSERT_EQ(orders.contract.columns.size(), 3u);
  EXPECT_EQ(orders.contract.columns[0].name, "amount");
  EXPECT_EQ(orders.contract.columns[0].type, ColumnType::decimal);
  EXPECT_EQ(orders.contract.columns[0].precision, 12);
  EXPECT_EQ(orders.contract.columns[0].scale, 2);
  EXPECT_EQ(orders.contract.columns[0].path, (std::vector<std::string>{"amount"}));
  EXPECT_EQ(orders.contract.columns[1].type, ColumnType::timestamp);
  EXPECT_EQ(orders.contract.columns[1].path, (std::vector<std::string>{"meta", "created"}));
  EXPECT_EQ(settings_for(m.tables, "payments.eu").columns, TypedColumns::from_schema);
  EXPECT_FALSE(settings_for(m.tables, "payments.eu").contract.coerce);
  EXPECT_EQ(settings_for(m.tables, "events").columns, TypedColumns::infer);
  EXPECT_TRUE(settings_for(m.tables, "events").contract.columns.empty());
}

TEST(TableSettings, AContractThatCannotBeHonouredIsRefusedByLine) {
  EXPECT_THAT(refusal("tables: {a: {contract: {columns: {amount: money}}}}"),
              HasSubstr("'money' is no column type: write boolean, integer, bigint"));
  EXPECT_THAT(refusal("tables: {a: {contract: {columns: {amount: 'decimal(40,2)'}}}}"),
              HasSubstr("decimal needs a precision from 1 to 38"));
  EXPECT_THAT(refusal("tables: {a: {contract: {columns: {Amount: text}}}}"),
              HasSubstr("a column name is lower-case letters, digits and _"));
  EXPECT_THAT(refusal("tables: {a: {contract: {columns: {key: text}}}}"), HasSubstr("is one of krow's metadata columns"));
  EXPECT_THAT(refusal("tables: {a: {contract: {columns: {x: {type: text, from: a..b}}}}}"),
              HasSubstr("from must be field names joined by dots"));
  EXPECT_THAT(refusal("tables: {a: {contract: {enforce: lenient, columns: {x: text}}}}"),
              HasSubstr("'enforce' must be one of strict, coerce"));
  EXPECT_THAT(refusal("tables: {a: {contract: {empty_strings: drop, columns: {x: text}}}}"),
              HasSubstr("'empty_strings' must be one of keep, null"));
  EXPECT_THAT(refusal("tables: {a: {columns: none, contract: {columns: {x: text}}}}"),
              HasSubstr("columns: none leaves the table without typed columns"));
  EXPECT_THAT(refusal("tables: {a: {contract: {enforce: coerce}}}"),
              HasSubstr("a contract without columns applies to typed columns only"));
  EXPECT_THAT(refusal("tables: {a: {contract: {columns: {x: text}, checks: 1}}}"), HasSubstr("checks"));
}

}  // namespace
}  // namespace krow
