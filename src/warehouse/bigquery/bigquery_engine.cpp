#include "warehouse/bigquery/bigquery_engine.hpp"

#include <openssl/crypto.h>

#include "warehouse/bigquery/bigquery_checkup.hpp"
#include "warehouse/bigquery/bigquery_settings.hpp"
#include "warehouse/bigquery/bigquery_warehouse.hpp"

namespace krow {

const Engine& bigquery_engine() {
  static const Engine engine{
      .type = "bigquery",
      .what = "a BigQuery dataset",
      .doctor_checks = "BigQuery: the credentials, the dataset and a query job",
      // BigQuery calls the schema a dataset: either key names it.
      .schema_key_alias = "dataset",
      // Typed columns and the newest row per key go through the same load table and
      // transaction as every batch (bigquery_warehouse.hpp).
      .capabilities = {.engine = "BigQuery",
                       .typed_columns = true,
                       .latest_by_key = true,
                       // Column names: 300 characters (table names may be longer, but Kafka's
                       // topic names stop at 249).
                       .names = {.max_identifier_bytes = 300},
                       // Time partitioning on a DATE or TIMESTAMP column (by the hour on a
                       // TIMESTAMP only), clustering by up to 4 columns of the types BigQuery
                       // clusters by (not FLOAT64, BYTES, TIME or JSON) — as krow maps them.
                       .design = {.partition_types = {ColumnType::date, ColumnType::timestamp},
                                  .hourly_partition_types = {ColumnType::timestamp},
                                  .max_cluster_columns = 4,
                                  .cluster_types = {ColumnType::boolean, ColumnType::int32,
                                                    ColumnType::int64, ColumnType::uint64,
                                                    ColumnType::decimal, ColumnType::text,
                                                    ColumnType::date, ColumnType::timestamp},
                                  .keys = "partition_by and cluster_by"},
                       // Each worker's commits mutate a positions table of its own
                       // (bigquery_warehouse.hpp): they never abort each other.
                       .concurrent_writers = true,
                       // Each table's rows of a batch are one load job; a project may run
                       // 100,000 a day (docs/warehouses/bigquery.md#quotas).
                       .daily_table_batches = 100000,
                       .daily_table_batch_cost = "one load job"},
      .parse_settings = parse_bigquery_settings,
      .open = [](const WarehouseConfig& config, const std::string& sync_id, OpenMode mode,
                 const std::string& worker_id) -> std::unique_ptr<Warehouse> {
        return std::make_unique<BigQueryWarehouse>(config, sync_id, mode, worker_id);
      },
      .check = [](const WarehouseConfig& config, const std::string&,
                  std::chrono::seconds timeout) { return check_bigquery(config, timeout); },
      // The JWT of service-account keys is signed with OpenSSL; requests go over the HTTP
      // module's libcurl, which `krow doctor` lists on its own.
      .library_versions = []() -> std::vector<std::pair<std::string, std::string>> {
        return {{"openssl", OpenSSL_version(OPENSSL_VERSION)}};
      },
  };
  return engine;
}

}  // namespace krow
