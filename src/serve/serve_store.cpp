#include "serve/serve_store.hpp"

#include "util/error.hpp"

namespace krow::serve {

namespace {

using Statement = CHandle<sqlite3_stmt, sqlite3_finalize>;

// One prepared statement, its values bound in order (text, or integers; nullopt for NULL).
class Query {
 public:
  Query(sqlite3* db, const std::string& sql, const std::filesystem::path& file) : db_(db), file_(file) {
    sqlite3_stmt* raw = nullptr;
    check(sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr));
    stmt_.reset(raw);
  }
  Query& bind(const std::string& v) {
    check(sqlite3_bind_text(stmt_.get(), ++at_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Query& bind(std::optional<int64_t> v) {
    check(v ? sqlite3_bind_int64(stmt_.get(), ++at_, *v) : sqlite3_bind_null(stmt_.get(), ++at_));
    return *this;
  }
  // Steps once: true while there is a row.
  bool step() {
    const int rc = sqlite3_step(stmt_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) check(rc);
    return false;
  }
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(stmt_.get(), col);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  std::optional<int64_t> integer(int col) const {
    if (sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_int64(stmt_.get(), col);
  }

 private:
  void check(int rc) const {
    if (rc == SQLITE_OK) return;
    throw Error(ErrorClass::fatal_run, "the service's state file " + file_.string() + ": " + sqlite3_errmsg(db_),
                ErrorSource{"SQLite", std::to_string(rc), "", std::nullopt, std::nullopt});
  }
  sqlite3* db_;
  const std::filesystem::path& file_;
  Statement stmt_;
  int at_ = 0;
};

ServedRun read_run(const Query& q) {
  ServedRun r;
  r.id = q.integer(0).value_or(0);
  r.sync = q.text(1);
  r.trigger = q.text(2);
  r.started_ms = q.integer(3).value_or(0);
  r.ended_ms = q.integer(4);
  r.outcome = q.text(5);
  if (const auto e = q.integer(6)) r.exit_code = static_cast<int>(*e);
  r.pid = q.integer(7).value_or(0);
  r.message = q.text(8);
  r.log = q.text(9);
  r.run_id = q.text(10);
  return r;
}

User read_user(const Query& q) {
  return User{q.text(0), parse_role(q.text(1)).value_or(Role::viewer), q.text(2),
              q.integer(3).value_or(0)};
}

ApiToken read_token(const Query& q) {
  ApiToken t;
  t.id = q.text(0);
  t.name = q.text(1);
  t.role = parse_role(q.text(2)).value_or(Role::viewer);
  t.digest = q.text(3);
  t.created_by = q.text(4);
  t.created_ms = q.integer(5).value_or(0);
  t.last_used_ms = q.integer(6);
  t.revoked_ms = q.integer(7);
  return t;
}

const char* const kTokenColumns =
    "id, name, role, digest, created_by, created_ms, last_used_ms, revoked_ms";

const char* const kRunColumns =
    "id, sync, trigger, started_ms, ended_ms, outcome, exit_code, pid, message, log, run_id";

}  // namespace

ServeStore::ServeStore(const std::filesystem::path& file) : file_(file) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                                 nullptr);
  db_.reset(raw);
  if (rc != SQLITE_OK)
    throw Error(ErrorClass::config, "cannot open the service's state file " + file.string() + " (" +
                                        (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)) +
                                        "): check that its folder exists and is writable (state: in the config)");
  sqlite3_busy_timeout(raw, 5000);
  exec("PRAGMA journal_mode = WAL");
  exec("PRAGMA synchronous = NORMAL");
  exec(
      "CREATE TABLE IF NOT EXISTS sync_state (sync TEXT PRIMARY KEY, next_due_ms INTEGER, failures INTEGER NOT NULL "
      "DEFAULT 0)");
  // Added after the first release of the file: a state file of that release gains it.
  if (!has_column("sync_state", "paused"))
    exec("ALTER TABLE sync_state ADD COLUMN paused INTEGER NOT NULL DEFAULT 0");
  exec(
      "CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY AUTOINCREMENT, sync TEXT NOT NULL, trigger TEXT NOT "
      "NULL, started_ms INTEGER NOT NULL, ended_ms INTEGER, outcome TEXT NOT NULL DEFAULT '', exit_code INTEGER, pid "
      "INTEGER NOT NULL DEFAULT 0, message TEXT NOT NULL DEFAULT '', log TEXT NOT NULL DEFAULT '')");
  exec("CREATE INDEX IF NOT EXISTS runs_by_sync ON runs (sync, id)");
  if (!has_column("runs", "run_id"))
    exec("ALTER TABLE runs ADD COLUMN run_id TEXT NOT NULL DEFAULT ''");
  exec(
      "CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY, role TEXT NOT NULL, password_hash "
      "TEXT NOT NULL, "
      "created_ms INTEGER NOT NULL)");
  exec(
      "CREATE TABLE IF NOT EXISTS tokens (id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT "
      "NULL, digest TEXT NOT "
      "NULL, created_by TEXT NOT NULL, created_ms INTEGER NOT NULL, last_used_ms INTEGER, "
      "revoked_ms INTEGER)");
  exec(
      "CREATE TABLE IF NOT EXISTS sessions (digest TEXT PRIMARY KEY, user TEXT NOT NULL, csrf TEXT "
      "NOT NULL, "
      "created_ms INTEGER NOT NULL, expires_ms INTEGER NOT NULL)");
  exec(
      "CREATE TABLE IF NOT EXISTS sign_in_failures (key TEXT PRIMARY KEY, count INTEGER NOT NULL, "
      "last_ms INTEGER NOT NULL)");
  exec(
      "CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY AUTOINCREMENT, at_ms INTEGER NOT "
      "NULL, actor TEXT NOT "
      "NULL, action TEXT NOT NULL, target TEXT NOT NULL, outcome TEXT NOT NULL, address TEXT NOT "
      "NULL)");
  exec(
      "CREATE TABLE IF NOT EXISTS api_syncs (id TEXT PRIMARY KEY, manifest TEXT NOT NULL, schedule "
      "TEXT NOT NULL, "
      "created_by TEXT NOT NULL, created_ms INTEGER NOT NULL)");
}

bool ServeStore::has_column(const std::string& table, const std::string& column) {
  Query q(db_.get(), "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", file_);
  q.bind(table).bind(column);
  return q.step();
}

void ServeStore::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string what = err ? err : "unknown error";
    sqlite3_free(err);
    throw Error(ErrorClass::config, "the service's state file " + file_.string() + ": " + what +
                                        " (is it a krow serve state file, on a local disk?)");
  }
}

SyncState ServeStore::state(const std::string& sync) {
  std::lock_guard lock(mu_);
  SyncState s;
  s.sync = sync;
  Query q(db_.get(), "SELECT next_due_ms, failures, paused FROM sync_state WHERE sync = ?", file_);
  q.bind(sync);
  if (q.step()) {
    s.next_due_ms = q.integer(0);
    s.failures = static_cast<int>(q.integer(1).value_or(0));
    s.paused = q.integer(2).value_or(0) != 0;
  }
  return s;
}

void ServeStore::save(const SyncState& s) {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          "INSERT INTO sync_state (sync, next_due_ms, failures, paused) VALUES (?, ?, ?, ?) ON "
          "CONFLICT (sync) DO "
          "UPDATE SET next_due_ms = excluded.next_due_ms, failures = excluded.failures, paused = "
          "excluded.paused",
          file_);
  q.bind(s.sync).bind(s.next_due_ms).bind(std::optional<int64_t>(s.failures));
  q.bind(std::optional<int64_t>(s.paused ? 1 : 0));
  q.step();
}

int64_t ServeStore::run_started(const ServedRun& r) {
  std::lock_guard lock(mu_);
  Query q(db_.get(), "INSERT INTO runs (sync, trigger, started_ms, pid, log) VALUES (?, ?, ?, ?, ?)", file_);
  q.bind(r.sync).bind(r.trigger).bind(std::optional<int64_t>(r.started_ms)).bind(std::optional<int64_t>(r.pid)).bind(r.log);
  q.step();
  return sqlite3_last_insert_rowid(db_.get());
}

void ServeStore::run_ended(int64_t id, int64_t ended_ms, const std::string& outcome,
                           std::optional<int> exit_code, const std::string& message,
                           const std::string& run_id) {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          "UPDATE runs SET ended_ms = ?, outcome = ?, exit_code = ?, message = ?, run_id = ? WHERE "
          "id = ?",
          file_);
  q.bind(std::optional<int64_t>(ended_ms)).bind(outcome);
  q.bind(exit_code ? std::optional<int64_t>(*exit_code) : std::nullopt).bind(message).bind(run_id);
  q.bind(std::optional<int64_t>(id));
  q.step();
}

std::vector<ServedRun> ServeStore::unfinished() {
  std::lock_guard lock(mu_);
  Query q(db_.get(), std::string("SELECT ") + kRunColumns + " FROM runs WHERE ended_ms IS NULL ORDER BY id", file_);
  std::vector<ServedRun> out;
  while (q.step()) out.push_back(read_run(q));
  return out;
}

std::vector<ServedRun> ServeStore::runs(const std::string& sync, int limit) {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          std::string("SELECT ") + kRunColumns + " FROM runs WHERE (? = '' OR sync = ?) ORDER BY id DESC LIMIT ?",
          file_);
  q.bind(sync).bind(sync).bind(std::optional<int64_t>(limit));
  std::vector<ServedRun> out;
  while (q.step()) out.push_back(read_run(q));
  return out;
}

const char* role_name(Role r) {
  switch (r) {
    case Role::admin:
      return "admin";
    case Role::editor:
      return "editor";
    default:
      return "viewer";
  }
}

std::optional<Role> parse_role(const std::string& text) {
  if (text == "admin") return Role::admin;
  if (text == "editor") return Role::editor;
  if (text == "viewer") return Role::viewer;
  return std::nullopt;
}

bool ServeStore::add_user(const User& u) {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          "INSERT INTO users (name, role, password_hash, created_ms) VALUES (?, ?, ?, ?) ON "
          "CONFLICT DO NOTHING",
          file_);
  q.bind(u.name)
      .bind(role_name(u.role))
      .bind(u.password_hash)
      .bind(std::optional<int64_t>(u.created_ms));
  q.step();
  return sqlite3_changes(db_.get()) == 1;
}

bool ServeStore::update_user(const std::string& name, std::optional<Role> role,
                             const std::string& password_hash) {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          "UPDATE users SET role = coalesce(?, role), password_hash = coalesce(nullif(?, ''), "
          "password_hash) WHERE "
          "name = ?",
          file_);
  if (role)
    q.bind(role_name(*role));
  else
    q.bind(std::optional<int64_t>());
  q.bind(password_hash).bind(name);
  q.step();
  const bool changed = sqlite3_changes(db_.get()) == 1;
  if (changed && !password_hash.empty()) {
    // A new password ends the sessions signed in with the old one.
    Query end(db_.get(), "DELETE FROM sessions WHERE user = ?", file_);
    end.bind(name);
    end.step();
  }
  return changed;
}

bool ServeStore::delete_user(const std::string& name) {
  std::lock_guard lock(mu_);
  Query q(db_.get(), "DELETE FROM users WHERE name = ?", file_);
  q.bind(name);
  q.step();
  const bool deleted = sqlite3_changes(db_.get()) == 1;
  Query end(db_.get(), "DELETE FROM sessions WHERE user = ?", file_);
  end.bind(name);
  end.step();
  return deleted;
}

std::optional<User> ServeStore::user(const std::string& name) {
  std::lock_guard lock(mu_);
  Query q(db_.get(), "SELECT name, role, password_hash, created_ms FROM users WHERE name = ?",
          file_);
  q.bind(name);
  if (!q.step()) return std::nullopt;
  return read_user(q);
}

std::vector<User> ServeStore::users() {
  std::lock_guard lock(mu_);
  Query q(db_.get(), "SELECT name, role, password_hash, created_ms FROM users ORDER BY name",
          file_);
  std::vector<User> out;
  while (q.step()) out.push_back(read_user(q));
  return out;
}

void ServeStore::add_token(const ApiToken& t) {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          "INSERT INTO tokens (id, name, role, digest, created_by, created_ms) VALUES (?, ?, ?, ?, "
          "?, ?)",
          file_);
  q.bind(t.id).bind(t.name).bind(role_name(t.role)).bind(t.digest).bind(t.created_by);
  q.bind(std::optional<int64_t>(t.created_ms));
  q.step();
}

std::optional<ApiToken> ServeStore::token(const std::string& id) {
  std::lock_guard lock(mu_);
  Query q(db_.get(), std::string("SELECT ") + kTokenColumns + " FROM tokens WHERE id = ?", file_);
  q.bind(id);
  if (!q.step()) return std::nullopt;
  return read_token(q);
}

std::vector<ApiToken> ServeStore::tokens() {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          std::string("SELECT ") + kTokenColumns + " FROM tokens ORDER BY created_ms, id", file_);
  std::vector<ApiToken> out;
  while (q.step()) out.push_back(read_token(q));
  return out;
}

bool ServeStore::revoke_token(const std::string& id, int64_t at_ms) {
  std::lock_guard lock(mu_);
  Query q(db_.get(), "UPDATE tokens SET revoked_ms = ? WHERE id = ? AND revoked_ms IS NULL", file_);
  q.bind(std::optional<int64_t>(at_ms)).bind(id);
  q.step();
  return sqlite3_changes(db_.get()) == 1;
}

void ServeStore::token_used(const std::string& id, int64_t at_ms) {
  std::lock_guard lock(mu_);
  // At most one write a minute per token: a busy automation does not write on every call.
  Query q(
      db_.get(),
      "UPDATE tokens SET last_used_ms = ? WHERE id = ? AND coalesce(last_used_ms, 0) < ? - 60000",
      file_);
  q.bind(std::optional<int64_t>(at_ms)).bind(id).bind(std::optional<int64_t>(at_ms));
  q.step();
}

void ServeStore::add_session(const Session& s) {
  std::lock_guard lock(mu_);
  Query clean(db_.get(), "DELETE FROM sessions WHERE expires_ms < ?", file_);
  clean.bind(std::optional<int64_t>(s.created_ms));
  clean.step();
  Query q(
      db_.get(),
      "INSERT INTO sessions (digest, user, csrf, created_ms, expires_ms) VALUES (?, ?, ?, ?, ?)",
      file_);
  q.bind(s.digest).bind(s.user).bind(s.csrf).bind(std::optional<int64_t>(s.created_ms));
  q.bind(std::optional<int64_t>(s.expires_ms));
  q.step();
}

std::optional<Session> ServeStore::session(const std::string& digest) {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          "SELECT digest, user, csrf, created_ms, expires_ms FROM sessions WHERE digest = ?",
          file_);
  q.bind(digest);
  if (!q.step()) return std::nullopt;
  return Session{q.text(0), q.text(1), q.text(2), q.integer(3).value_or(0),
                 q.integer(4).value_or(0)};
}

void ServeStore::end_session(const std::string& digest) {
  std::lock_guard lock(mu_);
  Query q(db_.get(), "DELETE FROM sessions WHERE digest = ?", file_);
  q.bind(digest);
  q.step();
}

std::pair<int, int64_t> ServeStore::failures(const std::string& key) {
  std::lock_guard lock(mu_);
  Query q(db_.get(), "SELECT count, last_ms FROM sign_in_failures WHERE key = ?", file_);
  q.bind(key);
  if (!q.step()) return {0, 0};
  return {static_cast<int>(q.integer(0).value_or(0)), q.integer(1).value_or(0)};
}

void ServeStore::sign_in_failed(const std::string& key, int64_t at_ms) {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          "INSERT INTO sign_in_failures (key, count, last_ms) VALUES (?, 1, ?) ON CONFLICT (key) "
          "DO UPDATE SET count = "
          "count + 1, last_ms = excluded.last_ms",
          file_);
  q.bind(key).bind(std::optional<int64_t>(at_ms));
  q.step();
}

void ServeStore::sign_in_succeeded(const std::string& key) {
  std::lock_guard lock(mu_);
  Query q(db_.get(), "DELETE FROM sign_in_failures WHERE key = ?", file_);
  q.bind(key);
  q.step();
}

void ServeStore::audit(const AuditEntry& e) {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          "INSERT INTO audit (at_ms, actor, action, target, outcome, address) VALUES (?, ?, ?, ?, "
          "?, ?)",
          file_);
  q.bind(std::optional<int64_t>(e.at_ms))
      .bind(e.actor)
      .bind(e.action)
      .bind(e.target)
      .bind(e.outcome)
      .bind(e.address);
  q.step();
}

std::vector<AuditEntry> ServeStore::audit_log(int limit) {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          "SELECT id, at_ms, actor, action, target, outcome, address FROM audit ORDER BY id DESC "
          "LIMIT ?",
          file_);
  q.bind(std::optional<int64_t>(limit));
  std::vector<AuditEntry> out;
  while (q.step())
    out.push_back(AuditEntry{q.integer(0).value_or(0), q.integer(1).value_or(0), q.text(2),
                             q.text(3), q.text(4), q.text(5), q.text(6)});
  return out;
}

void ServeStore::save_api_sync(const ApiSync& s) {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          "INSERT INTO api_syncs (id, manifest, schedule, created_by, created_ms) VALUES (?, ?, ?, "
          "?, ?) ON CONFLICT "
          "(id) DO UPDATE SET manifest = excluded.manifest, schedule = excluded.schedule",
          file_);
  q.bind(s.id)
      .bind(s.manifest)
      .bind(s.schedule)
      .bind(s.created_by)
      .bind(std::optional<int64_t>(s.created_ms));
  q.step();
}

void ServeStore::delete_api_sync(const std::string& id) {
  std::lock_guard lock(mu_);
  Query q(db_.get(), "DELETE FROM api_syncs WHERE id = ?", file_);
  q.bind(id);
  q.step();
  Query state(db_.get(), "DELETE FROM sync_state WHERE sync = ?", file_);
  state.bind(id);
  state.step();
}

std::vector<ApiSync> ServeStore::api_syncs() {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          "SELECT id, manifest, schedule, created_by, created_ms FROM api_syncs ORDER BY id",
          file_);
  std::vector<ApiSync> out;
  while (q.step())
    out.push_back(ApiSync{q.text(0), q.text(1), q.text(2), q.text(3), q.integer(4).value_or(0)});
  return out;
}

}  // namespace krow::serve
