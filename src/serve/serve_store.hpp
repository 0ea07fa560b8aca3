#pragma once
// The service's own state, in one SQLite file (docs/serve.md): for each hosted sync, when its
// runs started and ended and how, when the next one is due, and the process of the run under
// way (so that a server restarted after kill -9 knows a run was cut short and starts no second
// one beside it). Users, tokens and the audit log will live here too.
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
};

// A hosted sync's schedule state.
struct SyncState {
  std::string sync;
  std::optional<int64_t> next_due_ms;
  int failures = 0;  // runs in a row that did not succeed
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
  void run_ended(int64_t id, int64_t ended_ms, const std::string& outcome, std::optional<int> exit_code,
                 const std::string& message);
  // Runs without an end (their server stopped while they ran), oldest first.
  std::vector<ServedRun> unfinished();
  // The latest `limit` runs of `sync` (every sync when empty), newest first.
  std::vector<ServedRun> runs(const std::string& sync, int limit);

 private:
  void exec(const std::string& sql);

  std::mutex mu_;
  CHandle<sqlite3, sqlite3_close_v2> db_;
  std::filesystem::path file_;
};

}  // namespace krow::serve
