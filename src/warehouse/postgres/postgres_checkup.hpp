#pragma once
// `krow doctor` for a PostgreSQL warehouse: the login (address, TLS, role and password), a
// UTF8 database, and the privileges krow needs to create its tables: CREATE on the warehouse
// schema and on krow's state schema `_krow`, or on the database while they do not exist.
// The server's free disk space is not visible to a client, so none is reported.

#include <chrono>

#include "warehouse/warehouse_checkup.hpp"
#include "warehouse/warehouse_config.hpp"

namespace krow {

// Reads only (privilege functions of the catalog); waits at most `timeout` for the server.
WarehouseCheckup check_postgres(const WarehouseConfig& config, std::chrono::seconds timeout);

}  // namespace krow
