#pragma once
// A libpq connection to the warehouse server, with RAII for every libpq object and the one
// place where PostgreSQL's answers become krow error classes.
//
// Classes: a lost connection, a server shutting down or starting up, a serialization
// failure or deadlock, too many connections → transient (retried from the last committed
// batch); authentication, a missing privilege, a missing database, a full disk, a read-only
// server → fatal_run, naming the fix; a unique violation on krow's state → conflict.
//
// Thread: one thread at a time.

#include <libpq-fe.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/c_handle.hpp"
#include "util/error.hpp"
#include "warehouse/postgres/postgres_settings.hpp"

namespace krow::pg {

using ResultPtr = CHandle<PGresult, PQclear>;

// An error the server answered with (or a lost connection: empty sqlstate), already
// classified, with the fields the per-row path needs. Its source is {"PostgreSQL", sqlstate}.
class ServerError : public Error {
 public:
  ServerError(ErrorClass cls, std::string said, Fix fix, std::string sqlstate, std::string primary,
              std::string context)
      : Error(cls, std::move(said), std::move(fix), {"PostgreSQL", sqlstate}),
        sqlstate_(std::move(sqlstate)),
        primary_(std::move(primary)),
        context_(std::move(context)) {}
  const std::string& sqlstate() const { return sqlstate_; }
  const std::string& primary() const { return primary_; }  // the server's own sentence
  const std::string& context() const {
    return context_;
  }  // e.g. "COPY t, line 3, column value: ..."
  // A data exception (SQLSTATE class 22): the server refused a value.
  bool refused_value() const { return sqlstate_.rfind("22", 0) == 0; }

 private:
  std::string sqlstate_;
  std::string primary_;
  std::string context_;
};

class Connection {
 public:
  // Connects, retrying what can pass (server down or starting) for up to the settings'
  // connect timeout. Throws fatal_run naming the fix (authentication, no such database or
  // role, TLS) or when the server stays unreachable.
  Connection(const PostgresSettings& settings, std::string application_name);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // False once the connection broke; reconnect() makes a new one (a single attempt: throws
  // transient when the server is not back yet).
  bool ok() const;
  void reconnect();

  // Runs SQL; `params` are text values (nullopt: NULL). Throws ServerError, naming `what`.
  ResultPtr exec(const std::string& sql, const char* what);
  ResultPtr exec(const std::string& sql, const std::vector<std::optional<std::string>>& params,
                 const char* what);
  // Rows the last command touched (UPDATE, INSERT, DELETE).
  static int64_t affected(const ResultPtr& r);
  // The integer in a cell of `r` (NULL: `if_null`). Throws Error(fatal_run) naming `what` when
  // the server answered something else there.
  static int64_t integer(const ResultPtr& r, int row, int col, const char* what,
                         int64_t if_null = 0);

  // COPY ... FROM STDIN, streamed: start it, send the data in pieces as they are made (the
  // server works on one while the next is encoded), then finish. Each throws ServerError;
  // a refused row shows in finish_copy()'s error context.
  void start_copy(const std::string& copy_sql, const char* what);
  void send_copy(const std::string& data, const char* what);
  void finish_copy(const char* what);

  // "PostgreSQL database d at h:p", for messages.
  const std::string& where() const { return where_; }
  PGconn* get() { return conn_.get(); }

 private:
  // One attempt; returns the failure message on failure.
  std::optional<std::string> connect_once();
  // Asks the server to notice a vanished krow within about a minute (TCP keepalives and
  // timeouts on its side of the socket); best effort, never fails.
  void configure_session();
  ServerError failure(const PGresult* r, const std::string& what) const;

  const PostgresSettings& settings_;
  std::string application_name_;
  std::string where_;
  CHandle<PGconn, PQfinish> conn_;
};

// The class and the fix of a connection attempt that failed with libpq's `message`. libpq
// gives no SQLSTATE for a failed connection (PQconnectdb keeps only the text of the server's
// refusal, or of its own failure), so this is the one place that reads libpq's words.
Error connect_error(const std::string& message, const PostgresSettings& settings, bool starting);

}  // namespace krow::pg
