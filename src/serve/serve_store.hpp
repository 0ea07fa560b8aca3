#pragma once
// The service's own state, in one SQLite file (docs/serve.md): for each hosted sync, when its
// runs started and ended and how, when the next one is due, and the process of the run under
// way (so that a server restarted after kill -9 knows a run was cut short and starts no second
// one beside it); the syncs created through the API; users, API tokens, console sessions,
// sign-in failures and the audit log. Passwords and secrets are kept as hashes and digests
// only (secrets/credentials).
//
// SQLite's WAL journal: a crash (kill -9, power) loses at most the last change, never the file.
//
// Thread: one thread at a time (the scheduler's); readers (the HTTP server) take the mutex.

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "util/c_handle.hpp"

namespace krow::serve {

// One run of a hosted sync, as the service saw it.
struct ServedRun {
  int64_t id = 0;
  std::string sync;
  std::string trigger;  // "schedule", "missed" (due while the server was down), "continuous", "manual"
  int64_t started_ms = 0;
  std::optional<int64_t> ended_ms;
  std::string outcome;  // "" while running; success, partial, failed, retry_later, invalid, gate_failed, interrupted, killed
  std::optional<int> exit_code;
  int64_t pid = 0;
  std::string message;  // the run's last error line, or why it ended
  std::string log;      // the file holding its output
  std::string run_id;   // the run record's ID (`krow runs show`), once it ended and said it
};

// A hosted sync's schedule state.
struct SyncState {
  std::string sync;
  std::optional<int64_t> next_due_ms;
  int failures = 0;  // runs in a row that did not succeed
  bool paused = false;
};

// Who may do what (docs/serve.md): a viewer reads; an editor also connects sources and
// creates, edits and deletes syncs; an admin also runs, pauses, resumes and resyncs syncs,
// and manages users and tokens, and reads the audit log.
enum class Role { viewer = 0, editor = 1, admin = 2 };
const char* role_name(Role r);
std::optional<Role> parse_role(const std::string& text);

struct User {
  std::string name;
  Role role = Role::viewer;
  std::string password_hash;  // Argon2id, PHC string
  int64_t created_ms = 0;
};

// An API token: `krow_<id>_<secret>` is shown once; the digest of the secret is kept.
struct ApiToken {
  std::string id;
  std::string name;  // what it is for
  Role role = Role::viewer;
  std::string digest;
  std::string created_by;
  int64_t created_ms = 0;
  std::optional<int64_t> last_used_ms;
  std::optional<int64_t> revoked_ms;
};

// A console session: the cookie's secret is kept as its digest.
struct Session {
  std::string digest;
  std::string user;
  std::string csrf;  // sent back in X-CSRF-Token with every change
  int64_t created_ms = 0;
  int64_t expires_ms = 0;
};

// One line of the audit log: who did (or tried) what, to what, when, and how it went.
struct AuditEntry {
  int64_t id = 0;
  int64_t at_ms = 0;
  std::string actor;    // user name, "token:<id>", or "anonymous"
  std::string action;   // e.g. "sync.run", "user.create", "session.create"
  std::string target;   // e.g. the sync ID
  std::string outcome;  // "ok", or "refused: ..." / "failed: ..."
  std::string address;  // the client's IP address
};

// A sync created through the API: its manifest is a file the service wrote.
struct ApiSync {
  std::string id;
  std::string manifest;  // path
  std::string schedule;
  std::string created_by;
  int64_t created_ms = 0;
};

class ServeStore {
 public:
  // Opens (creating) the file. Throws Error(config) naming the file when it cannot.
  explicit ServeStore(const std::filesystem::path& file);

  SyncState state(const std::string& sync);
  void save(const SyncState& s);

  // Records a run's start; returns its ID.
  int64_t run_started(const ServedRun& r);
  // Records its end.
  void run_ended(int64_t id, int64_t ended_ms, const std::string& outcome,
                 std::optional<int> exit_code, const std::string& message,
                 const std::string& run_id = "");
  // Runs without an end (their server stopped while they ran), oldest first.
  std::vector<ServedRun> unfinished();
  // The latest `limit` runs of `sync` (every sync when empty), newest first.
  std::vector<ServedRun> runs(const std::string& sync, int limit);

  // Users. add_user is false when the name is taken; update_user and delete_user are false
  // when there is no such user (delete_user ends the user's sessions too).
  bool add_user(const User& u);
  bool update_user(const std::string& name, std::optional<Role> role,
                   const std::string& password_hash);
  bool delete_user(const std::string& name);
  std::optional<User> user(const std::string& name);
  std::vector<User> users();

  void add_token(const ApiToken& t);
  std::optional<ApiToken> token(const std::string& id);
  std::vector<ApiToken> tokens();
  bool revoke_token(const std::string& id, int64_t at_ms);  // false when none or revoked already
  void token_used(const std::string& id, int64_t at_ms);

  void add_session(const Session& s);
  std::optional<Session> session(const std::string& digest);
  void end_session(const std::string& digest);

  // Sign-in failures in a row under `key` (a user name, an address) and when the last was.
  std::pair<int, int64_t> failures(const std::string& key);
  void sign_in_failed(const std::string& key, int64_t at_ms);
  void sign_in_succeeded(const std::string& key);

  void audit(const AuditEntry& e);
  // The latest `limit` entries, newest first.
  std::vector<AuditEntry> audit_log(int limit);

  void save_api_sync(const ApiSync& s);
  void delete_api_sync(const std::string& id);
  std::vector<ApiSync> api_syncs();

 private:
  void exec(const std::string& sql);
  bool has_column(const std::string& table, const std::string& column);

  std::mutex mu_;
  CHandle<sqlite3, sqlite3_close_v2> db_;
  std::filesystem::path file_;
};

}  // namespace krow::serve
