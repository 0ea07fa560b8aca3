// The physical design keys of the manifest's `tables:` (manifest/physical_design), without a
// broker or a warehouse: each engine's own keys read, every other engine refusing them at load
// (naming the engines that take them and its own keys), and column names checked against the
// columns the table has — at load for a table of metadata columns only, once planned for one
// with typed columns (design_problem, which plan/table_designs calls).

#include "manifest/physical_design.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engines/engines.hpp"
#include "manifest/manifest.hpp"
#include "util/error.hpp"

namespace krow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const std::string kDuckDB = "warehouse: {path: w.duckdb}\n";
const std::string kPostgres = "warehouse: {type: postgres, dsn: \"host=h dbname=d user=u\"}\n";
const std::string kBigQuery = "warehouse: {type: bigquery, project: my-project}\n";

Manifest load(const std::string& warehouse, const std::string& tables) {
  return parse_manifest(
      "source: {bootstrap_servers: 'k:9092'}\n" + warehouse + "tables:\n" + tables, "/tmp/m.yaml");
}

std::string refusal(const std::string& warehouse, const std::string& tables) {
  try {
    load(warehouse, tables);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TableDesign design_of(const std::string& warehouse, const std::string& tables,
                      const std::string& topic = "t") {
  return settings_for(load(warehouse, tables).tables, topic).design;
}

TEST(PhysicalDesign, BigQueryPartitioningAndClustering) {
  auto d = design_of(kBigQuery, "  t: {partition_by: month, cluster_by: [kafka_partition, key]}\n");
  ASSERT_TRUE(d.partition_set);
  ASSERT_TRUE(d.partition);
  EXPECT_EQ(d.partition->column, "kafka_timestamp");
  EXPECT_EQ(d.partition->grain, TimeGrain::month);
  EXPECT_EQ(*d.cluster_by, (std::vector<std::string>{"kafka_partition", "key"}));

  d = design_of(kBigQuery, "  t: {partition_by: none, cluster_by: none}\n");
  EXPECT_TRUE(d.partition_set);
  EXPECT_FALSE(d.partition);
  ASSERT_TRUE(d.cluster_by);
  EXPECT_TRUE(d.cluster_by->empty());

  // A typed column, named before its columns are planned: checked when the plan is made.
  d = design_of(
      kBigQuery,
      "  t:\n    columns: infer\n    partition_by: {column: order_date, granularity: year}\n"
      "    cluster_by: [customer_id]\n");
  EXPECT_EQ(d.partition->column, "order_date");
  EXPECT_EQ(d.partition->grain, TimeGrain::year);
  d = design_of(kBigQuery, "  t: {columns: infer, partition_by: {column: order_date}}\n");
  EXPECT_EQ(d.partition->grain, TimeGrain::day);

  // Nothing said: the warehouse's defaults apply (warehouse.partition_by, cluster_by).
  EXPECT_TRUE(design_of(kBigQuery, "  t: {strategy: append}\n").empty());
  EXPECT_TRUE(design_of(kBigQuery, "  other: {partition_by: day}\n").empty());
}

TEST(PhysicalDesign, PostgresIndexes) {
  const auto d = design_of(
      kPostgres,
      "  t:\n    strategy: latest_by_key\n    indexes:\n      - key\n"
      "      - {columns: [kafka_timestamp, kafka_partition]}\n"
      "      - {columns: [value], using: gin}\n      - {columns: [kafka_offset], using: brin}\n");
  ASSERT_EQ(d.indexes.size(), 4u);
  EXPECT_EQ(d.indexes[0], (IndexSpec{{"key"}, "btree"}));
  EXPECT_EQ(d.indexes[1], (IndexSpec{{"kafka_timestamp", "kafka_partition"}, "btree"}));
  EXPECT_EQ(d.indexes[2], (IndexSpec{{"value"}, "gin"}));
  EXPECT_EQ(d.indexes[3], (IndexSpec{{"kafka_offset"}, "brin"}));
}

TEST(PhysicalDesign, DuckDBSortOrder) {
  EXPECT_EQ(design_of(kDuckDB, "  t: {sort_by: [key, kafka_timestamp]}\n").sort_by,
            (std::vector<std::string>{"key", "kafka_timestamp"}));
  EXPECT_EQ(design_of(kDuckDB, "  t: {columns: infer, sort_by: page}\n").sort_by,
            (std::vector<std::string>{"page"}));
}

TEST(PhysicalDesign, AnEngineRefusesAnotherEnginesKeysNamingWhoTakesThemAndItsOwn) {
  EXPECT_THAT(
      refusal(kDuckDB, "  t: {cluster_by: [key]}\n"),
      AllOf(HasSubstr(
                "m.yaml:4: tables.\"t\": cluster_by (clustering) is not taken by DuckDB (BigQuery "
                "takes it)"),
            HasSubstr("DuckDB's physical design is sort_by: [columns]"),
            HasSubstr("leave cluster_by out")));
  EXPECT_THAT(refusal(kDuckDB, "  t: {partition_by: day}\n"),
              HasSubstr("partition_by (time partitioning) is not "
                        "taken by DuckDB (BigQuery takes it)"));
  EXPECT_THAT(
      refusal(kDuckDB, "  t: {indexes: [key]}\n"),
      HasSubstr("indexes (secondary indexes) is not taken by DuckDB (PostgreSQL takes it)"));
  EXPECT_THAT(
      refusal(kPostgres, "  t: {sort_by: [key]}\n"),
      AllOf(HasSubstr("sort_by (a sort order) is not taken by PostgreSQL (DuckDB takes it)"),
            HasSubstr("PostgreSQL's physical design is indexes:")));
  EXPECT_THAT(refusal(kPostgres, "  t: {cluster_by: [key]}\n"),
              HasSubstr("not taken by PostgreSQL (BigQuery takes it)"));
  EXPECT_THAT(
      refusal(kBigQuery, "  t: {indexes: [key]}\n"),
      AllOf(HasSubstr("indexes (secondary indexes) is not taken by BigQuery (PostgreSQL takes it)"),
            HasSubstr("BigQuery's physical design is partition_by and cluster_by")));
  EXPECT_THAT(refusal(kBigQuery, "  t: {sort_by: [key]}\n"),
              HasSubstr("not taken by BigQuery (DuckDB takes it)"));
  // Refused whether or not a topic matches the rule, so that plan, doctor and sync refuse alike.
  EXPECT_THAT(refusal(kDuckDB, "  \"no-such-topic-*\": {cluster_by: [key]}\n"),
              HasSubstr("not taken by DuckDB"));
}

TEST(PhysicalDesign, AWrongColumnNameNamesTheColumnsThereAre) {
  // No typed columns: the metadata columns are all there is.
  EXPECT_THAT(
      refusal(kBigQuery, "  t: {cluster_by: [customer_id]}\n"),
      AllOf(
          HasSubstr(
              "m.yaml:4: tables.\"t\": cluster_by: 'customer_id' is not a column of the table; its "
              "columns are id, kafka_topic_id, kafka_partition, kafka_offset, kafka_timestamp"),
          HasSubstr("decode_error"),
          HasSubstr("typed columns come with columns: from_schema or infer")));
  EXPECT_THAT(refusal(kPostgres, "  t: {indexes: [{columns: [key, kafka_ofset]}]}\n"),
              HasSubstr("indexes: 'kafka_ofset' is not a column of the table"));
  EXPECT_THAT(refusal(kDuckDB, "  t: {sort_by: [Key]}\n"),
              HasSubstr("sort_by: 'Key' is not a column of the table"));
  EXPECT_THAT(refusal(kBigQuery, "  t: {partition_by: {column: created}}\n"),
              HasSubstr("partition_by: 'created' is not a column of the table"));
  // With typed columns, an unknown name waits for the plan; a metadata column is checked now.
  EXPECT_EQ(refusal(kBigQuery, "  t: {columns: infer, cluster_by: [customer_id]}\n"), "accepted");
  EXPECT_THAT(
      refusal(kBigQuery, "  t: {columns: infer, cluster_by: [value]}\n"),
      HasSubstr(
          "cluster_by: column 'value' is json, and BigQuery clusters by columns of type boolean, "
          "int32, int64, uint64, decimal, text, date or timestamp only"));
}

TEST(PhysicalDesign, MalformedValuesAndWhatAnEngineCannotDo) {
  EXPECT_THAT(refusal(kBigQuery, "  t: {partition_by: weekly}\n"),
              HasSubstr("'partition_by' must be one of hour, day, month, year, none"));
  EXPECT_THAT(refusal(kBigQuery, "  t: {partition_by: {granularity: day}}\n"),
              HasSubstr("partition_by needs its column"));
  EXPECT_THAT(refusal(kBigQuery, "  t: {partition_by: {column: kafka_timestamp, grain: day}}\n"),
              HasSubstr("unknown key 'grain' in partition_by (allowed: column, granularity)"));
  EXPECT_THAT(
      refusal(kBigQuery, "  t: {partition_by: {column: key}}\n"),
      HasSubstr(
          "partition_by: column 'key' is text, and BigQuery partitions by columns of type date or "
          "timestamp only"));
  EXPECT_THAT(
      refusal(kBigQuery,
              "  t: {cluster_by: [id, key, kafka_partition, kafka_offset, kafka_timestamp]}\n"),
      HasSubstr("cluster_by: BigQuery clusters by at most 4 columns, not 5"));
  EXPECT_THAT(refusal(kBigQuery, "  t: {cluster_by: [key, key]}\n"),
              HasSubstr("cluster_by names column 'key' twice"));
  EXPECT_THAT(refusal(kPostgres, "  t: {indexes: key}\n"), HasSubstr("indexes is a list"));
  EXPECT_THAT(refusal(kPostgres, "  t: {indexes: [{columns: [key], using: gist}]}\n"),
              HasSubstr("'using' must be one of btree, hash, brin, gin"));
  EXPECT_THAT(refusal(kPostgres, "  t: {indexes: [{columns: [key, kafka_offset], using: hash}]}\n"),
              HasSubstr("an index using hash takes at most 1 column(s), not 2"));
  EXPECT_THAT(
      refusal(kPostgres, "  t: {indexes: [{columns: [value]}]}\n"),
      HasSubstr(
          "indexes: column 'value' is json, and PostgreSQL indexes (using btree) columns of type"));
  EXPECT_THAT(refusal(kPostgres, "  t: {indexes: [{columns: [key], using: gin}]}\n"),
              HasSubstr("PostgreSQL indexes (using gin) columns of type json only"));
  EXPECT_THAT(refusal(kPostgres, "  t: {indexes: [key, {columns: [key]}]}\n"),
              HasSubstr("the index on (key) using btree is listed twice"));
  EXPECT_THAT(refusal(kPostgres, "  t: {indexes: [{columns: []}]}\n"),
              HasSubstr("an index needs at least one column"));
  EXPECT_THAT(refusal(kDuckDB, "  t: {sort_by: []}\n"), HasSubstr("sort_by lists no column"));
  EXPECT_THAT(refusal(kDuckDB, "  t: {sort_by: [headers]}\n"),
              HasSubstr("sort_by: column 'headers' is json, and DuckDB sorts by columns of type"));
}

TEST(PhysicalDesign, PlannedTypedColumnsAreCheckedByNameAndType) {
  const auto& bigquery = engine_of("bigquery").capabilities;
  auto columns = metadata_design_columns();
  columns.push_back({"order_date", ColumnType::date});
  columns.push_back({"price", ColumnType::float64});
  columns.push_back({"customer_id", ColumnType::int64});
  TableDesign d;
  d.partition_set = true;
  d.partition = PartitionSpec{"order_date", TimeGrain::month};
  d.cluster_by = std::vector<std::string>{"customer_id", "kafka_partition"};
  EXPECT_EQ(design_problem(d, columns, true, bigquery), "");
  d.partition->grain = TimeGrain::hour;
  EXPECT_THAT(
      design_problem(d, columns, true, bigquery),
      HasSubstr("partition_by: column 'order_date' is a date: partition it by day, month or year "
                "(BigQuery partitions by the hour on timestamp columns only)"));
  d.partition->grain = TimeGrain::day;
  d.cluster_by = std::vector<std::string>{"price"};
  EXPECT_THAT(
      design_problem(d, columns, true, bigquery),
      HasSubstr("cluster_by: column 'price' is float64, and BigQuery clusters by columns of type"));
  d.cluster_by = std::vector<std::string>{"customer"};
  EXPECT_THAT(
      design_problem(d, columns, true, bigquery),
      AllOf(HasSubstr("cluster_by: 'customer' is not a column of the table; its columns are id,"),
            HasSubstr("decode_error, order_date, price, customer_id")));
  EXPECT_EQ(design_problem(d, metadata_design_columns(), false, bigquery), "");  // not planned yet

  TableDesign s;
  s.sort_by = {"customer_id", "price"};
  EXPECT_EQ(design_problem(s, columns, true, engine_of("duckdb").capabilities), "");
  TableDesign i;
  i.indexes = {{{"order_date", "customer_id"}, "btree"}, {{"value"}, "gin"}};
  EXPECT_EQ(design_problem(i, columns, true, engine_of("postgres").capabilities), "");
  EXPECT_THAT(design_problem(i, columns, true, bigquery),
              HasSubstr("BigQuery takes no index using btree"));
}

TEST(PhysicalDesign, EveryEngineTakesItsOwnKeysAndNoOthers) {
  // Each key is taken by exactly one engine today: the capabilities say which, and the refusals
  // above are made from them.
  EXPECT_EQ(engines_that([](const WarehouseCapabilities& c) { return c.design.partition_by(); }),
            "BigQuery");
  EXPECT_EQ(engines_that([](const WarehouseCapabilities& c) { return c.design.cluster_by(); }),
            "BigQuery");
  EXPECT_EQ(engines_that([](const WarehouseCapabilities& c) { return c.design.indexes(); }),
            "PostgreSQL");
  EXPECT_EQ(engines_that([](const WarehouseCapabilities& c) { return c.design.sort_by(); }),
            "DuckDB");
  EXPECT_THAT(design_keys(),
              ::testing::ElementsAre("partition_by", "cluster_by", "indexes", "sort_by"));
}

}  // namespace
}  // namespace krow
