#pragma once
// The BigQuery adapter's manifest keys:
//
//   warehouse:
//     type: bigquery
//     project: my-project          # the project that holds the dataset and runs krow's jobs
//     dataset: kafka_raw           # the dataset of the row tables (created when missing)
//     location: EU                 # where new datasets are created (default US)
//     credentials: sa-key.json     # a service-account key file, or adc (the default:
//                                  #   application default credentials)
//     endpoint: http://127.0.0.1:9050   # tests only: an emulator; requests go without auth
//                                       #   unless credentials are given too
//     partition_by: day            # day | hour | month | year | none: of kafka_timestamp
//     cluster_by: [kafka_topic_id, kafka_partition]   # at most 4 columns of the row contract
//     request_timeout: 120         # seconds one API request may take
//
// No secret is ever in the manifest: the key file is named, never inlined.

#include <memory>
#include <string>
#include <vector>

#include "settings/section.hpp"
#include "warehouse/warehouse_config.hpp"

namespace krow {

struct BigQuerySettings : AdapterSettings {
  std::string project;
  std::string location = "US";
  std::string credentials =
      "adc";             // a key file's path, "adc", or "none" (an emulator without auth)
  std::string endpoint;  // empty: https://bigquery.googleapis.com
  std::string partition_by = "day";
  std::vector<std::string> cluster_by{"kafka_topic_id", "kafka_partition"};
  int request_timeout_s = 120;

  // The REST API's root: the endpoint, or Google's.
  std::string api_root() const {
    return endpoint.empty() ? "https://bigquery.googleapis.com" : endpoint;
  }
  // "BigQuery dataset my-project.kafka_raw" (at the endpoint, when one is set): no credentials.
  std::string describe(const std::string& dataset) const;
};

std::shared_ptr<const AdapterSettings> parse_bigquery_settings(
    const Section& section, const std::vector<std::string>& common);

}  // namespace krow
