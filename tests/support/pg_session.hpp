#pragma once
// Test support: a plain libpq session to the local PostgreSQL server (scripts/postgres.sh),
// results as text. No krow code: what it reads was written by krow, and is checked.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "duckdb_query.hpp"

struct pg_conn;

namespace krow::testkit {

// Where the local server listens and its passwords, from the environment that
// scripts/test.sh sets (KROW_TEST_PG_HOST, _PORT, _ADMIN_PASSWORD, _PASSWORD), else the
// defaults of scripts/postgres.sh.
struct PgServer {
  std::string host, port, admin_password, krow_password;
  static PgServer from_env();
  // A libpq connection string for `user` on `database` (password included: tests only).
  std::string conninfo(const std::string& database, const std::string& user = "postgres") const;
};

class PgSession {
 public:
  explicit PgSession(const std::string& conninfo, const std::string& application_name = "krow-test");
  ~PgSession();
  PgSession(const PgSession&) = delete;
  PgSession& operator=(const PgSession&) = delete;

  // Runs SQL with text parameters; throws std::runtime_error with the server's message.
  QueryResult query(const std::string& sql, const std::vector<std::optional<std::string>>& params = {});
  void exec(const std::string& sql) { query(sql); }
  std::string scalar(const std::string& sql, const std::vector<std::optional<std::string>>& params = {});

 private:
  pg_conn* conn_ = nullptr;
};

}  // namespace krow::testkit
