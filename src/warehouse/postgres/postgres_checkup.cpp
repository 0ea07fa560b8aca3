#include "warehouse/postgres/postgres_checkup.hpp"

#include <algorithm>

#include "warehouse/postgres/postgres_connection.hpp"
#include "warehouse/postgres/postgres_settings.hpp"

namespace krow {

namespace {

std::string value(const pg::ResultPtr& r, int row, int col) {
  return PQgetisnull(r.get(), row, col) ? std::string()
                                        : std::string(PQgetvalue(r.get(), row, col));
}

}  // namespace

WarehouseCheckup check_postgres(const WarehouseConfig& config, std::chrono::seconds timeout) {
  WarehouseCheckup out;
  auto settings = config.settings_as<PostgresSettings>();
  settings.connect_timeout_s =
      std::max(1, std::min(settings.connect_timeout_s, static_cast<int>(timeout.count())));
  const std::string login =
      "warehouse login " + (settings.user.empty() ? std::string("(dsn)") : settings.user);
  std::unique_ptr<pg::Connection> conn;
  try {
    conn = std::make_unique<pg::Connection>(settings, "krow doctor");
  } catch (const Error& e) {
    out.checks.push_back(
        Check::fail(login, e.said(),
                    e.fix().empty() ? "check the warehouse settings of the manifest" : e.fix()));
    out.skipped = "warehouse encoding and schemas: krow could not log in";
    return out;
  }
  try {
    const auto who = conn->exec(
        "SELECT current_user, current_database(), current_setting('server_version'), "
        "current_setting('server_encoding')",
        "reading the session");
    const auto user = value(who, 0, 0), database = value(who, 0, 1), encoding = value(who, 0, 3);
    out.checks.push_back(Check::pass(login, "logged in to " + settings.describe() + " as " + user +
                                                " (PostgreSQL " + value(who, 0, 2) + ")"));
    bool ok = true;
    if (encoding != "UTF8" && encoding != "SQL_ASCII") {
      ok = false;
      out.checks.push_back(
          Check::fail("warehouse encoding", "database " + database + " is encoded in " + encoding,
                      "krow needs a UTF8 database: CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE "
                      "template0, and point warehouse.database at it"));
    } else {
      out.checks.push_back(Check::pass("warehouse encoding", encoding));
    }
    for (const std::string& schema : {config.schema, std::string("_krow")}) {
      const auto r = conn->exec(
          "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1), "
          "CASE WHEN EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) "
          "THEN has_schema_privilege($1, 'USAGE') AND has_schema_privilege($1, 'CREATE') END, "
          "has_database_privilege(current_database(), 'CREATE')",
          {schema}, "reading privileges");
      const bool exists = value(r, 0, 0) == "t";
      const bool may = exists ? value(r, 0, 1) == "t" : value(r, 0, 2) == "t";
      const std::string name = "warehouse schema " + schema;
      const std::string role = user;
      if (may) {
        out.checks.push_back(Check::pass(
            name, exists
                      ? "exists; " + role + " may create tables in it"
                      : "does not exist yet; " + role + " may create it in database " + database));
      } else {
        ok = false;
        out.checks.push_back(Check::fail(
            name,
            exists
                ? role + " lacks USAGE or CREATE on schema " + schema
                : "does not exist, and " + role + " may not create schemas in database " + database,
            exists ? "GRANT USAGE, CREATE ON SCHEMA " + schema + " TO " + role
                   : "GRANT CREATE ON DATABASE " + database + " TO " + role +
                         " (or create schema " + schema + " for it: CREATE SCHEMA " + schema +
                         " AUTHORIZATION " + role + ")"));
      }
    }
    out.usable = ok;
  } catch (const Error& e) {
    out.checks.push_back(
        Check::fail("warehouse privileges", e.said(),
                    e.fix().empty() ? "check the role's privileges on the database" : e.fix()));
    out.skipped = "the warehouse checks after it: reading the session or the privileges failed";
  }
  return out;
}

}  // namespace krow
