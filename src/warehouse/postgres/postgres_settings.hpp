#pragma once
// The PostgreSQL adapter's manifest keys:
//
//   warehouse:
//     type: postgres
//     host: db.example.com        # or dsn: "host=... port=... dbname=... user=..." (no password in
//     it) port: 5432 database: analytics user: krow password: ${PGPASSWORD}     # always from the
//     environment (or a saved secret), never inline sslmode: verify-full        # libpq's: disable,
//     allow, prefer (libpq's default), require, sslrootcert: ca.pem         #   verify-ca,
//     verify-full; the CA file for the last two connect_timeout: 30         # seconds to keep
//     trying to reach the server at start schema: confluent           # shared by every adapter

#include <memory>
#include <string>
#include <vector>

#include "settings/section.hpp"
#include "util/secret.hpp"
#include "warehouse/warehouse_config.hpp"

namespace krow {

struct PostgresSettings : AdapterSettings {
  std::string dsn;  // a libpq connection string or URI without password; empty: the keys below
  std::string host;
  std::string port = "5432";
  std::string database;
  std::string user;
  Secret password;
  std::string sslmode;      // empty: libpq's default
  std::string sslrootcert;  // relative to the manifest's folder
  int connect_timeout_s = 30;

  // "PostgreSQL database analytics at db.example.com:5432": no credentials.
  std::string describe() const;
};

std::shared_ptr<const AdapterSettings> parse_postgres_settings(
    const Section& section, const std::vector<std::string>& common);

}  // namespace krow
