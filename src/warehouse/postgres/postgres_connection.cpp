#include "warehouse/postgres/postgres_connection.hpp"

#include <algorithm>
#include <cstring>
#include <regex>
#include <thread>

#include "util/text.hpp"

namespace krow::pg {

namespace {

bool has(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

std::string field(const PGresult* r, int code) {
  const char* v = r ? PQresultErrorField(r, code) : nullptr;
  return v ? v : "";
}

// libpq messages end with a newline and may carry a "DETAIL:" line; one line reads better.
std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string role_of(const PostgresSettings& s, PGconn* conn) {
  if (conn && PQuser(conn)) return PQuser(conn);
  return s.user.empty() ? std::string("the role krow logs in as") : s.user;
}

}  // namespace

Error connect_error(const std::string& message, const PostgresSettings& s, bool starting) {
  const auto said = "cannot connect to " + s.describe() + ": " + one_line(message);
  const ErrorSource source{"PostgreSQL", "connection"};
  const auto fatal = [&](std::string fix) {
    return Error(ErrorClass::fatal_run, said, Fix{std::move(fix)}, source);
  };
  if (has(message, "password authentication failed") || has(message, "no password supplied") ||
      has(message, "authentication failed"))
    return fatal(
        "Check warehouse.user and the password (warehouse.password, from the environment)");
  if (has(message, "no pg_hba.conf entry"))
    return fatal(
        "The server does not accept this role from this host: add a pg_hba.conf entry for it (or "
        "connect with TLS if only that is allowed)");
  if (has(message, "does not exist"))
    return fatal(
        "Create it (CREATE DATABASE ... OWNER <role>; CREATE ROLE ... LOGIN) or fix "
        "warehouse.database and warehouse.user");
  // TLS set-up problems; a "SSL SYSCALL error" is a connection cut, which passes.
  if (has(message, "certificate") || has(message, "does not support SSL") ||
      has(message, "sslmode"))
    return fatal(
        "Check warehouse.sslmode and warehouse.sslrootcert (the CA that signed the server's "
        "certificate)");
  if (has(message, "could not translate host name")) return fatal("Check warehouse.host");
  if (has(message, "invalid") || has(message, "unrecognized"))
    return Error(ErrorClass::fatal_run, said, source);
  // Refused, timed out, starting up, shutting down, in recovery, too many clients: passes.
  if (starting)
    return fatal("Is the server running, and do warehouse.host and warehouse.port point at it?");
  return Error(ErrorClass::transient, said, source);
}

Connection::Connection(const PostgresSettings& settings, std::string application_name)
    : settings_(settings),
      application_name_(std::move(application_name)),
      where_(settings.describe()) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(settings_.connect_timeout_s);
  for (int attempt = 1;; ++attempt) {
    const auto failed = connect_once();
    if (!failed) return;
    auto error = connect_error(*failed, settings_, /*starting=*/false);
    if (error.error_class() != ErrorClass::transient ||
        std::chrono::steady_clock::now() >= deadline)
      throw connect_error(*failed, settings_, /*starting=*/true);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(250 * attempt, 2000)));
  }
}

std::optional<std::string> Connection::connect_once() {
  // krow notices a dead server within about a minute instead of never: TCP keepalives (idle
  // 30 s, then 3 probes 10 s apart) and a bound on unacknowledged writes (tcp_user_timeout).
  // The server's side of the same socket is set alike once connected (configure_session).
  const std::string timeout = std::to_string(std::min(settings_.connect_timeout_s, 10));
  std::vector<const char*> keys;
  std::vector<std::string> values;
  auto add = [&](const char* k, std::string v) {
    if (v.empty()) return;
    keys.push_back(k);
    values.push_back(std::move(v));
  };
  if (!settings_.dsn.empty()) {
    add("dbname", settings_.dsn);  // expanded as a connection string (expand_dbname below)
  } else {
    add("host", settings_.host);
    add("port", settings_.port);
    add("dbname", settings_.database);
    add("user", settings_.user);
    add("sslmode", settings_.sslmode);
    add("sslrootcert", settings_.sslrootcert);
  }
  add("password", settings_.password.reveal());
  add("application_name", application_name_);
  add("connect_timeout", timeout);
  add("client_encoding", "UTF8");
  add("keepalives", "1");
  add("keepalives_idle", "30");
  add("keepalives_interval", "10");
  add("keepalives_count", "3");
  add("tcp_user_timeout", "60000");
  std::vector<const char*> value_ptrs;
  for (const auto& v : values) value_ptrs.push_back(v.c_str());
  keys.push_back(nullptr);
  value_ptrs.push_back(nullptr);
  conn_.reset(PQconnectdbParams(keys.data(), value_ptrs.data(),
                                /*expand_dbname=*/settings_.dsn.empty() ? 0 : 1));
  if (!conn_) return std::string("out of memory");
  if (PQstatus(conn_.get()) == CONNECTION_OK) {
    configure_session();
    return std::nullopt;
  }
  std::string msg = PQerrorMessage(conn_.get());
  conn_.reset();
  return msg;
}

void Connection::configure_session() {
  // What the server holds for this session — the sync lock above all — it keeps until it
  // notices that krow is gone. A krow that was killed on a live host closes its socket, and the
  // server notices once it reads from it: at once when idle, after the COPY data still in
  // flight, and during a long statement within a second (client_connection_check_interval,
  // PostgreSQL 14 and later). A krow whose host died or was cut off closes nothing: by the
  // server's defaults (the OS's keepalive, about 2 h 11 min on Linux) its session would hold
  // the lock for hours; with these the server drops it within about a minute.
  // Each is a user setting, so no privilege is needed; one the server lacks (an older version)
  // is left out, and a server that refuses them all still works, as before.
  ResultPtr r(PQexec(
      conn_.get(),
      "SELECT set_config(s.name, s.value, false) FROM (VALUES ('tcp_keepalives_idle', '30'), "
      "('tcp_keepalives_interval', '10'), ('tcp_keepalives_count', '3'), "
      "('tcp_user_timeout', '60000'), ('client_connection_check_interval', '1000')) "
      "AS s(name, value) "
      "WHERE s.name IN (SELECT name FROM pg_settings)"));
  (void)r;
}

bool Connection::ok() const {
  return conn_ && PQstatus(conn_.get()) == CONNECTION_OK;
}

void Connection::reconnect() {
  if (const auto failed = connect_once())
    throw connect_error(*failed, settings_, /*starting=*/false);
}

ServerError Connection::failure(const PGresult* r, const std::string& what) const {
  const std::string state = field(r, PG_DIAG_SQLSTATE);
  std::string msg = field(r, PG_DIAG_MESSAGE_PRIMARY);
  if (msg.empty()) msg = one_line(conn_ ? PQerrorMessage(conn_.get()) : "no connection");
  const std::string context = field(r, PG_DIAG_CONTEXT);
  const std::string said = what + " failed in " + where_ + ": " + msg +
                           (state.empty() ? "" : " (SQLSTATE " + state + ")");
  const std::string kept = ". What was committed is kept; run the sync again afterwards";
  auto make = [&](ErrorClass c, std::string fix = {}) {
    return ServerError(c, said, Fix{std::move(fix)}, state, msg, context);
  };
  const bool lost = !conn_ || PQstatus(conn_.get()) != CONNECTION_OK;
  if (state.empty() || lost) return make(ErrorClass::transient);
  const std::string cls = state.substr(0, 2);
  if (cls == "08" || cls == "40" || state == "57P01" || state == "57P02" || state == "57P03" ||
      state == "57014" || state == "53300" || state == "53200" || state == "55P03" ||
      state == "55006" || state == "42P07" || state == "42P06" || state == "42710")
    return make(ErrorClass::transient);
  if (state == "53100")
    return make(
        ErrorClass::fatal_run,
        "The PostgreSQL server's disk is full: free space on its data volume (or grow it)" + kept);
  if (state == "42501") {
    const auto role = role_of(settings_, conn_.get());
    // Which object lacks the privilege is in the server's words only (the SQLSTATE says that
    // one lacks it): named in the fix when it can be read, else the fix names them all.
    static const std::regex denied(
        R"(permission denied for (schema|database|table|relation) (\S+))");
    std::smatch m;
    std::string grant =
        "USAGE and CREATE on the warehouse schema and on _krow, or CREATE on the database so that "
        "krow creates both itself";
    if (std::regex_search(msg, m, denied)) {
      const std::string kind = m[1], name = m[2];
      if (kind == "schema")
        grant = "GRANT USAGE, CREATE ON SCHEMA " + name + " TO " + role;
      else if (kind == "database")
        grant = "GRANT CREATE ON DATABASE " + name + " TO " + role;
      else
        grant = "GRANT SELECT, INSERT, UPDATE, DELETE ON " + name + " TO " + role + " (or let " +
                role + " own it)";
    }
    return make(ErrorClass::fatal_run, "Grant " + role + " what krow needs: " + grant + kept);
  }
  if (state == "28P01" || state == "28000")
    return make(ErrorClass::fatal_run, "Check warehouse.user and the password");
  if (state == "3D000" || state == "3F000")
    return make(ErrorClass::fatal_run, "Create it, or fix the manifest's warehouse section");
  if (state == "25006")
    return make(ErrorClass::fatal_run,
                "The server is read-only (a standby?): point warehouse.host at the primary" + kept);
  if (state == "23505") return make(ErrorClass::conflict);
  return make(ErrorClass::fatal_run);
}

ResultPtr Connection::exec(const std::string& sql, const char* what) {
  return exec(sql, {}, what);
}

ResultPtr Connection::exec(const std::string& sql,
                           const std::vector<std::optional<std::string>>& params,
                           const char* what) {
  if (!ok()) throw failure(nullptr, what);
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  ResultPtr r(PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                           values.data(), nullptr, nullptr, 0));
  const auto status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return r;
  throw failure(r.get(), what);
}

int64_t Connection::affected(const ResultPtr& r) {
  const char* n = PQcmdTuples(r.get());
  if (!n || !*n) return 0;
  if (const auto count = parse_int64(n)) return *count;
  throw Error(ErrorClass::fatal_run,
              std::string("PostgreSQL answered a command with \"") + n +
                  "\" as the count of rows it touched, not an integer",
              ErrorSource{"PostgreSQL", "not an integer"});
}

int64_t Connection::integer(const ResultPtr& r, int row, int col, const char* what,
                            int64_t if_null) {
  if (PQgetisnull(r.get(), row, col)) return if_null;
  const std::string_view text = PQgetvalue(r.get(), row, col);
  if (const auto n = parse_int64(text)) return *n;
  throw Error(ErrorClass::fatal_run,
              "PostgreSQL answered \"" + std::string(text.substr(0, 40)) + "\" for " + what +
                  ", not an integer",
              ErrorSource{"PostgreSQL", "not an integer"});
}

void Connection::start_copy(const std::string& copy_sql, const char* what) {
  if (!ok()) throw failure(nullptr, what);
  ResultPtr start(PQexec(conn_.get(), copy_sql.c_str()));
  if (!start || PQresultStatus(start.get()) != PGRES_COPY_IN) throw failure(start.get(), what);
}

void Connection::send_copy(const std::string& data, const char* what) {
  // A refusal arrives with the result (finish_copy); a failure here is a lost connection.
  if (PQputCopyData(conn_.get(), data.data(), static_cast<int>(data.size())) != 1)
    throw failure(nullptr, what);
}

void Connection::finish_copy(const char* what) {
  if (PQputCopyEnd(conn_.get(), nullptr) != 1) throw failure(nullptr, what);
  ResultPtr end(PQgetResult(conn_.get()));
  const bool good = end && PQresultStatus(end.get()) == PGRES_COMMAND_OK;
  auto error =
      good ? std::optional<ServerError>() : std::optional<ServerError>(failure(end.get(), what));
  while (ResultPtr more{PQgetResult(conn_.get())}) {
  }
  if (error) throw *error;
}

}  // namespace krow::pg
