#include "pg_session.hpp"

#include <libpq-fe.h>

#include <cstdlib>
#include <stdexcept>

namespace krow::testkit {

namespace {
std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
}  // namespace

PgServer PgServer::from_env() {
  return {env_or("KROW_TEST_PG_HOST", "127.0.0.1"), env_or("KROW_TEST_PG_PORT", "55432"),
          env_or("KROW_TEST_PG_ADMIN_PASSWORD", "postgres-secret"), env_or("KROW_TEST_PG_PASSWORD", "krow-pg-secret")};
}

std::string PgServer::conninfo(const std::string& database, const std::string& user) const {
  return "host=" + host + " port=" + port + " dbname=" + database + " user=" + user +
         " password=" + (user == "postgres" ? admin_password : krow_password) + " connect_timeout=10";
}

PgSession::PgSession(const std::string& conninfo, const std::string& application_name) {
  const std::string info = conninfo + " application_name='" + application_name + "'";
  conn_ = PQconnectdb(info.c_str());
  if (PQstatus(conn_) != CONNECTION_OK) {
    std::string msg = PQerrorMessage(conn_);
    PQfinish(conn_);
    conn_ = nullptr;
    throw std::runtime_error("cannot connect to the test PostgreSQL server (scripts/postgres.sh start): " + msg);
  }
  PQclear(PQexec(conn_, "SET client_min_messages = warning"));
}

PgSession::~PgSession() {
  if (conn_) PQfinish(conn_);
}

QueryResult PgSession::query(const std::string& sql, const std::vector<std::optional<std::string>>& params) {
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  // A test that restarts the server finds its session broken: one reconnect.
  if (PQstatus(conn_) != CONNECTION_OK) PQreset(conn_);
  // Without parameters, several statements may be sent at once.
  PGresult* r = params.empty() ? PQexec(conn_, sql.c_str())
                               : PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                                              values.data(), nullptr, nullptr, 0);
  if (!r || PQstatus(conn_) != CONNECTION_OK) {
    PQclear(r);
    PQreset(conn_);
    r = params.empty() ? PQexec(conn_, sql.c_str())
                       : PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                                      nullptr, nullptr, 0);
  }
  const auto status = PQresultStatus(r);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    std::string msg = PQresultErrorMessage(r);
    PQclear(r);
    throw std::runtime_error("query failed: " + msg + "\n" + sql);
  }
  QueryResult out;
  for (int c = 0; c < PQnfields(r); ++c) out.columns.emplace_back(PQfname(r, c));
  for (int i = 0; i < PQntuples(r); ++i) {
    auto& row = out.rows.emplace_back();
    for (int c = 0; c < PQnfields(r); ++c)
      row.push_back(PQgetisnull(r, i, c) ? Cell() : Cell(std::string(PQgetvalue(r, i, c))));
  }
  PQclear(r);
  return out;
}

std::string PgSession::scalar(const std::string& sql, const std::vector<std::optional<std::string>>& params) {
  const auto r = query(sql, params);
  if (r.rows.size() != 1 || r.rows[0].size() != 1) throw std::runtime_error("not a scalar: " + sql);
  return r.rows[0][0].value_or("");
}

}  // namespace krow::testkit
