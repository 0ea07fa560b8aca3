#pragma once
// `krow doctor` for a BigQuery warehouse: the credentials give a token, the API answers for
// the project, the dataset exists (or krow may create it), and krow may run query jobs
// there (roles/bigquery.jobUser). Writes nothing. BigQuery's storage has no free-space
// figure, so none is reported.

#include <chrono>

#include "warehouse/warehouse_checkup.hpp"
#include "warehouse/warehouse_config.hpp"

namespace krow {

WarehouseCheckup check_bigquery(const WarehouseConfig& config, std::chrono::seconds timeout);

}  // namespace krow
