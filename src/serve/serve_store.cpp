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
  return r;
}

const char* const kRunColumns = "id, sync, trigger, started_ms, ended_ms, outcome, exit_code, pid, message, log";

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
  exec(
      "CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY AUTOINCREMENT, sync TEXT NOT NULL, trigger TEXT NOT "
      "NULL, started_ms INTEGER NOT NULL, ended_ms INTEGER, outcome TEXT NOT NULL DEFAULT '', exit_code INTEGER, pid "
      "INTEGER NOT NULL DEFAULT 0, message TEXT NOT NULL DEFAULT '', log TEXT NOT NULL DEFAULT '')");
  exec("CREATE INDEX IF NOT EXISTS runs_by_sync ON runs (sync, id)");
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
  Query q(db_.get(), "SELECT next_due_ms, failures FROM sync_state WHERE sync = ?", file_);
  q.bind(sync);
  if (q.step()) {
    s.next_due_ms = q.integer(0);
    s.failures = static_cast<int>(q.integer(1).value_or(0));
  }
  return s;
}

void ServeStore::save(const SyncState& s) {
  std::lock_guard lock(mu_);
  Query q(db_.get(),
          "INSERT INTO sync_state (sync, next_due_ms, failures) VALUES (?, ?, ?) ON CONFLICT (sync) DO UPDATE SET "
          "next_due_ms = excluded.next_due_ms, failures = excluded.failures",
          file_);
  q.bind(s.sync).bind(s.next_due_ms).bind(std::optional<int64_t>(s.failures));
  q.step();
}

int64_t ServeStore::run_started(const ServedRun& r) {
  std::lock_guard lock(mu_);
  Query q(db_.get(), "INSERT INTO runs (sync, trigger, started_ms, pid, log) VALUES (?, ?, ?, ?, ?)", file_);
  q.bind(r.sync).bind(r.trigger).bind(std::optional<int64_t>(r.started_ms)).bind(std::optional<int64_t>(r.pid)).bind(r.log);
  q.step();
  return sqlite3_last_insert_rowid(db_.get());
}

void ServeStore::run_ended(int64_t id, int64_t ended_ms, const std::string& outcome, std::optional<int> exit_code,
                           const std::string& message) {
  std::lock_guard lock(mu_);
  Query q(db_.get(), "UPDATE runs SET ended_ms = ?, outcome = ?, exit_code = ?, message = ? WHERE id = ?", file_);
  q.bind(std::optional<int64_t>(ended_ms)).bind(outcome);
  q.bind(exit_code ? std::optional<int64_t>(*exit_code) : std::nullopt).bind(message).bind(std::optional<int64_t>(id));
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

}  // namespace krow::serve
