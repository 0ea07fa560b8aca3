// BigQuery's physical design as DDL (warehouse/bigquery/bigquery_design): a table's own
// partitioning and clustering, or the warehouse's defaults, in GoogleSQL's words; what the
// emulator the integration suites run against keeps of DDL it does not show (it records
// neither clause of a CREATE TABLE statement).

#include <gtest/gtest.h>

#include "warehouse/bigquery/bigquery_design.hpp"

namespace krow::bigquery {
namespace {

TableSettings with_date_column() {
  TableSettings s;
  columns::ColumnSpec c;
  c.name = "order_date";
  c.path = {"order_date"};
  c.type = ColumnType::date;
  s.typed_columns.push_back(c);
  return s;
}

TEST(BigQueryDesign, TheWarehouseDefaultsUnlessTheTableSaysOtherwise) {
  BigQuerySettings defaults;  // partition_by: day, cluster_by: kafka_topic_id, kafka_partition
  TableSettings settings;
  TableLayout layout;
  design_layout(settings, defaults, layout);
  EXPECT_EQ(layout.partition_field, "kafka_timestamp");
  EXPECT_EQ(layout.partition_type, "DAY");
  EXPECT_EQ(layout.cluster_by, (std::vector<std::string>{"kafka_topic_id", "kafka_partition"}));
  EXPECT_EQ(design_clauses(settings, layout),
            " PARTITION BY TIMESTAMP_TRUNC(`kafka_timestamp`, DAY) CLUSTER BY `kafka_topic_id`, "
            "`kafka_partition`");
  EXPECT_EQ(describe_partitioning(layout), "partitioned by day of kafka_timestamp");
  EXPECT_EQ(describe_clustering(layout), "clustered by kafka_topic_id, kafka_partition");

  defaults.partition_by = "none";
  design_layout(settings, defaults, layout);
  EXPECT_EQ(layout.partition_type, "");
  EXPECT_EQ(describe_partitioning(layout), "not partitioned");

  settings.design.partition_set = true;
  settings.design.partition = PartitionSpec{"kafka_timestamp", TimeGrain::hour};
  settings.design.cluster_by = std::vector<std::string>{};
  design_layout(settings, defaults, layout);
  EXPECT_EQ(layout.partition_type, "HOUR");
  EXPECT_TRUE(layout.cluster_by.empty());
  EXPECT_EQ(design_clauses(settings, layout),
            " PARTITION BY TIMESTAMP_TRUNC(`kafka_timestamp`, HOUR)");
  EXPECT_EQ(describe_clustering(layout), "not clustered");
}

TEST(BigQueryDesign, ATypedDateColumnIsPartitionedByItselfOrItsMonthOrYear) {
  BigQuerySettings defaults;
  auto settings = with_date_column();
  settings.design.partition_set = true;
  settings.design.partition = PartitionSpec{"order_date", TimeGrain::day};
  settings.design.cluster_by = std::vector<std::string>{"order_date", "key"};
  TableLayout layout;
  design_layout(settings, defaults, layout);
  EXPECT_EQ(layout.partition_field, "order_date");
  EXPECT_EQ(design_clauses(settings, layout),
            " PARTITION BY `order_date` CLUSTER BY `order_date`, `key`");
  settings.design.partition->grain = TimeGrain::month;
  design_layout(settings, defaults, layout);
  EXPECT_EQ(design_clauses(settings, layout),
            " PARTITION BY DATE_TRUNC(`order_date`, MONTH) CLUSTER BY `order_date`, `key`");
  EXPECT_EQ(describe_partitioning(layout), "partitioned by month of order_date");
  // Ingestion-time partitioning (a table krow did not make): a type without a field.
  layout.partition_field.clear();
  EXPECT_EQ(describe_partitioning(layout), "partitioned by ingestion time (month)");
}

TEST(BigQueryDesign, ChangesClusteringInPlaceAndPartitioningByMakingTheTableAgain) {
  BigQuerySettings defaults;
  auto settings = with_date_column();
  TableLayout have;
  have.fields = {{"id", "STRING", true},
                 {"kafka_timestamp", "TIMESTAMP"},
                 {"order_date", "DATE"},
                 {"amount", "NUMERIC", false, false, 12, 2}};
  design_layout(settings, defaults, have);  // as made with the defaults
  TableLayout wanted = have;
  EXPECT_TRUE(design_changes("`p.d.t`", settings, have, wanted).empty());

  settings.design.cluster_by = std::vector<std::string>{"order_date"};
  design_layout(settings, defaults, wanted);
  auto changes = design_changes("`p.d.t`", settings, have, wanted);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].what, "cluster the table by order_date");
  EXPECT_EQ(changes[0].ddl,
            "tables.patch `p.d.t` {\"clustering\": {\"fields\": [\"order_date\"]}}");
  settings.design.cluster_by = std::vector<std::string>{};
  design_layout(settings, defaults, wanted);
  changes = design_changes("`p.d.t`", settings, have, wanted);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].ddl, "tables.patch `p.d.t` {\"clustering\": null}");

  // Partitioning: the table again, its columns as they are (NOT NULL, NUMERIC(12,2)).
  settings.design.partition_set = true;
  settings.design.partition = PartitionSpec{"order_date", TimeGrain::month};
  design_layout(settings, defaults, wanted);
  changes = design_changes("`p.d.t`", settings, have, wanted);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].what,
            "make the table again partitioned by month of order_date and not clustered (BigQuery "
            "cannot change "
            "the partitioning of a table)");
  EXPECT_EQ(changes[0].ddl,
            "CREATE OR REPLACE TABLE `p.d.t` (`id` STRING NOT NULL, `kafka_timestamp` TIMESTAMP, "
            "`order_date` DATE, "
            "`amount` NUMERIC(12,2)) PARTITION BY DATE_TRUNC(`order_date`, MONTH) AS SELECT * FROM "
            "`p.d.t`");
  EXPECT_NE(changes[0].cost.find("billed for all its bytes"), std::string::npos);
}

}  // namespace
}  // namespace krow::bigquery
