#include "warehouse/bigquery/bigquery_checkup.hpp"

#include <algorithm>

#include "util/error.hpp"
#include "warehouse/bigquery/bigquery_client.hpp"
#include "warehouse/bigquery/bigquery_settings.hpp"

namespace krow {

WarehouseCheckup check_bigquery(const WarehouseConfig& config, std::chrono::seconds timeout) {
  WarehouseCheckup out;
  auto settings = config.settings_as<BigQuerySettings>();
  settings.request_timeout_s =
      std::max(5, std::min(settings.request_timeout_s, static_cast<int>(timeout.count())));
  const std::string fix =
      "see the message; docs/warehouses/bigquery.md lists the roles krow needs (IAM roles)";
  std::unique_ptr<bigquery::Client> client;
  try {
    client = std::make_unique<bigquery::Client>(settings, config.schema);
    out.checks.push_back(Check::pass("BigQuery credentials", client->describe_auth()));
  } catch (const Error& e) {
    out.checks.push_back(Check::fail("BigQuery credentials", e.said(),
                                     e.fix().empty() ? "check warehouse.credentials" : e.fix()));
    out.skipped = "the BigQuery dataset and query jobs: the credentials must work first";
    return out;
  }
  bool dataset_checked = false;
  try {
    const auto location = client->dataset_location(config.schema);
    out.checks.push_back(Check::pass(
        "dataset " + settings.project + "." + config.schema,
        location ? "exists, in location " + *location
                 : "does not exist yet: krow creates it in " + settings.location +
                       " (its account needs roles/bigquery.dataEditor on the project for that)"));
    dataset_checked = true;
    client->query("SELECT 1", {}, location.value_or(settings.location), "running a query job");
    out.checks.push_back(Check::pass("query jobs in project " + settings.project, "allowed"));
  } catch (const Error& e) {
    out.checks.push_back(Check::fail("BigQuery API", e.said(), e.fix().empty() ? fix : e.fix()));
    if (!dataset_checked)
      out.skipped = "query jobs in project " + settings.project + ": the dataset lookup failed";
    return out;
  }
  out.usable = true;
  return out;
}

}  // namespace krow
