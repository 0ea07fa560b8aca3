// A failed PostgreSQL connection becomes krow's Error with its fix apart (for `krow doctor`).
// libpq gives no SQLSTATE for a failed connection, so these are libpq's own sentences.

#include <gtest/gtest.h>

#include "warehouse/postgres/postgres_connection.hpp"

namespace krow::pg {
namespace {

PostgresSettings settings() {
  PostgresSettings s;
  s.host = "db.example";
  s.database = "analytics";
  s.user = "krow";
  return s;
}

TEST(PgConnectError, ARefusedPasswordNamesTheSettingApart) {
  const auto e = connect_error(
      "connection to server at \"db.example\" (10.0.0.1), port 5432 failed: FATAL:  password "
      "authentication failed for user \"krow\"\n",
      settings(), true);
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run);
  EXPECT_EQ(e.said().rfind("cannot connect to PostgreSQL database analytics", 0), 0u) << e.said();
  EXPECT_EQ(e.fix(),
            "Check warehouse.user and the password (warehouse.password, from the environment)");
  EXPECT_EQ(std::string(e.what()), e.said() + ". " + e.fix());
  EXPECT_EQ(e.source().system, "PostgreSQL");
}

TEST(PgConnectError, AServerNotUpIsRetriedAndOnlyAtStartNamesTheFix) {
  const std::string refused =
      "connection to server at \"db.example\" (10.0.0.1), port 5432 failed: Connection refused\n";
  const auto retry = connect_error(refused, settings(), false);
  EXPECT_EQ(retry.error_class(), ErrorClass::transient);
  EXPECT_EQ(retry.fix(), "");
  const auto start = connect_error(refused, settings(), true);
  EXPECT_EQ(start.error_class(), ErrorClass::fatal_run);
  EXPECT_EQ(start.fix().rfind("Is the server running", 0), 0u) << start.what();
}

}  // namespace
}  // namespace krow::pg
