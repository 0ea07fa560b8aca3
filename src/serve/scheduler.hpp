#pragma once
// Runs the hosted syncs when their schedules say (docs/serve.md). Each run is a child process
// of this binary — `krow sync -q MANIFEST`, or with `--follow` for a continuous sync — so a run
// is exactly what the command line does (its run record and artifacts too), and a run that
// crashes never takes the service down. At most one run per sync at a time.
//
// - A run due while the service was down runs once when it starts (never one per missed
//   time), and the schedule goes on from there.
// - A run that does not succeed makes the next one wait: at least 30 s after it ended,
//   doubling with each failure in a row, at most an hour (the schedule's own time when that
//   is later). `status()` says why it failed, from its last error line.
// - A run past `run_timeout` is reported (stuck), not killed.
// - A continuous sync that ends is started again after the same backoff.
// - Children get SIGTERM when the service ends, however it ends (PR_SET_PDEATHSIG): they
//   commit what they read and record the run as interrupted. A service restarted after
//   kill -9 finds the runs it never saw end, marks them interrupted, and waits for a child
//   that is still finishing before starting that sync again.
//
// Thread: construct, run_due() and stop() from one thread (the service's scheduling loop);
// status() from any.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "serve/serve_config.hpp"
#include "serve/serve_store.hpp"

namespace krow::serve {

// What the service knows of one hosted sync, for its API and metrics.
struct SyncStatusView {
  std::string id;
  std::string schedule;
  std::string manifest;
  bool from_api = false;
  bool paused = false;
  bool running = false;
  int metrics_port = 0;         // where a continuous run serves its figures (127.0.0.1), once known
  bool stuck = false;           // running past run_timeout
  std::optional<Clock::time_point> next_due;
  int failures = 0;
  std::optional<ServedRun> last;  // the last run that ended
  std::optional<ServedRun> current;
};

class Scheduler {
 public:
  // Hosts `syncs` (the config's and those created through the API). `program`: the krow
  // binary to run (this one). `on_run_end` is told of every run that ends (called with the
  // scheduler's lock held: it must not call the scheduler).
  Scheduler(const ServeConfig& config, std::vector<HostedSync> syncs, ServeStore& store,
            std::string program,
            std::function<void(const ServedRun&, const HostedSync&)> on_run_end = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Reaps the runs that ended and starts the ones that are due. Call often (every ~200 ms).
  void tick(Clock::time_point now);

  // SIGTERM to every child, then waits up to `grace` for them (SIGKILL after).
  void stop(std::chrono::seconds grace);

  std::vector<SyncStatusView> status() const;
  std::optional<SyncStatusView> status(const std::string& id) const;

  // What the API asks of a sync (any thread).
  enum class Action { run, resync, pause, resume };
  enum class Answer { done, no_such_sync, running, paused_already, not_paused };
  // run: a run now (trigger "manual"), whatever the schedule and even when paused; resync:
  // `krow resync --full` now (trigger "resync"); pause: no more runs until resume (a
  // continuous run is stopped as SIGTERM stops it: what it read is committed); resume: the
  // schedule again (a run due meanwhile runs once).
  Answer act(const std::string& id, Action action, Clock::time_point now);

  // Hosts one more sync; false when its ID is hosted already.
  bool add(const HostedSync& sync);
  // Changes a hosted sync's manifest and schedule; `running` when a run is under way.
  Answer replace(const HostedSync& sync);
  // Stops hosting a sync; `running` when a run is under way.
  Answer remove(const std::string& id);

 private:
  struct Hosted {
    HostedSync sync;
    SyncState state;
    std::optional<ServedRun> current;
    std::string trigger;   // of the run under way
    pid_t pid = -1;        // our child; -1 when none
    pid_t orphan = -1;     // a child of a previous service process, still finishing
    int metrics_port = 0;  // of the continuous run under way
    bool stuck = false;
    std::optional<ServedRun> last;
    Clock::time_point not_before{};  // backoff after a failure
  };
  Hosted make_hosted(const HostedSync& s, Clock::time_point now);
  void start(Hosted& h, const std::string& trigger, Clock::time_point now);
  SyncStatusView view(const Hosted& h) const;
  Hosted* find(const std::string& id);
  void finished(Hosted& h, int wait_status, Clock::time_point now);
  void schedule_next(Hosted& h, Clock::time_point from, bool failed, Clock::time_point now);

  const ServeConfig& config_;
  ServeStore& store_;
  std::string program_;
  std::function<void(const ServedRun&, const HostedSync&)> on_run_end_;
  mutable std::mutex mu_;
  std::vector<Hosted> hosted_;
};

// The outcome word for a `krow sync` exit code (docs: README's exit codes).
std::string outcome_of_exit(int code);

}  // namespace krow::serve
