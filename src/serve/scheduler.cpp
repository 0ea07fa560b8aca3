#include "serve/scheduler.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <regex>
#include <thread>

#include "serve/child.hpp"
#include "util/error.hpp"
#include "util/process.hpp"

namespace krow::serve {

namespace {

int64_t to_ms(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
Clock::time_point from_ms(int64_t ms) {
  return Clock::time_point(std::chrono::milliseconds(ms));
}

std::string file_stamp(Clock::time_point t) {
  const std::time_t secs = Clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &utc);
  return buf;
}

// What a run's output says at its end: its last "krow: error: ..." line (what stopped it) and
// its run ID (every outcome prints it).
struct RunEnd {
  std::string error, run_id;
};
RunEnd read_run_end(const std::string& log) {
  std::ifstream in(log, std::ios::binary);
  in.seekg(0, std::ios::end);
  const auto size = static_cast<int64_t>(in.tellg());
  in.seekg(std::max<int64_t>(0, size - 65536));
  static const std::regex run_id(R"(\brun ([0-9]{8}T[0-9]{6}Z-[0-9a-f]+))");
  std::string line;
  RunEnd found;
  while (std::getline(in, line)) {
    if (line.rfind("krow: error: ", 0) == 0) found.error = line.substr(13);
    std::smatch m;
    if (std::regex_search(line, m, run_id)) found.run_id = m[1];
  }
  return found;
}

// The port a continuous run serves its figures on, once its output says (0 until then).
int metrics_port_in(const std::string& log) {
  std::ifstream in(log, std::ios::binary);
  std::string head(16384, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  static const std::regex said(R"(krow: metrics at http://127\.0\.0\.1:([0-9]+)/metrics)");
  std::smatch m;
  return std::regex_search(head, m, said) ? std::stoi(m[1]) : 0;
}

// Backoff after `failures` runs in a row that did not succeed: 30 s, doubling, at most 1 h.
std::chrono::seconds backoff(int failures) {
  if (failures <= 0) return std::chrono::seconds(0);
  return std::chrono::seconds(std::min<int64_t>(3600, int64_t(30) << std::min(failures - 1, 7)));
}

}  // namespace

std::string outcome_of_exit(int code) {
  switch (code) {
    case 0: return "success";
    case 1: return "failed";
    case 2: return "partial";
    case 3: return "invalid";
    case 4: return "gate_failed";
    case 75: return "retry_later";
    case 130: return "interrupted";
    default: return "exit " + std::to_string(code);
  }
}

Scheduler::Hosted Scheduler::make_hosted(const HostedSync& s, Clock::time_point now) {
  Hosted h;
  h.sync = s;
  h.state = store_.state(s.id);
  if (!h.state.next_due_ms) {
    // Never scheduled before: a continuous sync and one run `every` so often start now.
    if (s.schedule.kind() == Schedule::Kind::continuous ||
        s.schedule.kind() == Schedule::Kind::every)
      h.state.next_due_ms = to_ms(now);
    else if (const auto next = s.schedule.next_after(now))
      h.state.next_due_ms = to_ms(*next);
  } else if (s.schedule.kind() == Schedule::Kind::continuous) {
    h.state.next_due_ms = to_ms(now);
  }
  if (s.schedule.kind() == Schedule::Kind::manual) h.state.next_due_ms.reset();
  store_.save(h.state);
  if (const auto last = store_.runs(s.id, 1); !last.empty() && last.front().ended_ms)
    h.last = last.front();
  return h;
}

Scheduler::Scheduler(const ServeConfig& config, std::vector<HostedSync> syncs, ServeStore& store,
                     std::string program,
                     std::function<void(const ServedRun&, const HostedSync&)> on_run_end)
    : config_(config),
      store_(store),
      program_(std::move(program)),
      on_run_end_(std::move(on_run_end)) {
  const auto now = Clock::now();
  for (const auto& s : syncs) hosted_.push_back(make_hosted(s, now));
  // Runs this service never saw end: the previous service process stopped (kill -9, a
  // crash) while they ran. Their children got SIGTERM then; one may still be finishing.
  for (auto& r : store_.unfinished()) {
    std::string message = "the service stopped while this run was under way";
    for (auto& h : hosted_)
      if (h.sync.id == r.sync && r.pid > 0 && process_alive(r.pid) && process_name(r.pid) == "krow") {
        h.orphan = static_cast<pid_t>(r.pid);
        message += " (its process was still finishing when the service started again)";
      }
    store_.run_ended(r.id, to_ms(now), "interrupted", std::nullopt, message);
    r.ended_ms = to_ms(now);
    r.outcome = "interrupted";
    r.message = message;
    for (auto& h : hosted_)
      if (h.sync.id == r.sync) h.last = r;
  }
}

Scheduler::~Scheduler() {
  stop(std::chrono::seconds(60));
}

void Scheduler::start(Hosted& h, const std::string& trigger, Clock::time_point now) {
  const auto dir = config_.logs / h.sync.id;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto log = (dir / (file_stamp(now) + "-" + trigger + ".log")).string();
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
  if (fd < 0) {
    std::fprintf(stderr, "krow serve: cannot write the log of sync '%s' to %s; not started\n", h.sync.id.c_str(),
                 log.c_str());
    h.not_before = now + std::chrono::seconds(30);
    return;
  }
  std::vector<std::string> args{program_, "sync", "-q", h.sync.manifest.string()};
  if (trigger == "resync")
    args = {program_, "resync", "--full", "-q", h.sync.manifest.string()};
  else if (h.sync.schedule.kind() == Schedule::Kind::continuous && trigger != "manual")
    // Its figures on a port of its own, which the service's /metrics takes in.
    args.insert(args.end(), {"--follow", "--metrics-address", "127.0.0.1:0"});
  const pid_t pid = spawn_child(std::move(args), fd);
  ::close(fd);
  if (pid < 0) {
    std::fprintf(stderr, "krow serve: cannot start a run of sync '%s' (fork failed)\n", h.sync.id.c_str());
    h.not_before = now + std::chrono::seconds(30);
    return;
  }
  h.pid = pid;
  h.trigger = trigger;
  ServedRun r;
  r.sync = h.sync.id;
  r.trigger = trigger;
  r.started_ms = to_ms(now);
  r.pid = pid;
  r.log = log;
  r.id = store_.run_started(r);
  h.current = r;
  // `every` counts from the start of a run; cron goes to its next time; a run asked for
  // through the API leaves the schedule as it was.
  if (trigger != "manual" && trigger != "resync") schedule_next(h, now, false, now);
}

void Scheduler::schedule_next(Hosted& h, Clock::time_point from, bool failed, Clock::time_point now) {
  const auto& schedule = h.sync.schedule;
  std::optional<Clock::time_point> next;
  if (schedule.kind() == Schedule::Kind::continuous)
    next = now;
  else
    next = schedule.next_after(from);
  if (failed) h.not_before = now + backoff(h.state.failures);
  h.state.next_due_ms = next ? std::optional<int64_t>(to_ms(*next)) : std::nullopt;
  store_.save(h.state);
}

void Scheduler::finished(Hosted& h, int wait_status, Clock::time_point now) {
  auto r = *h.current;
  if (WIFEXITED(wait_status)) {
    r.exit_code = WEXITSTATUS(wait_status);
    r.outcome = outcome_of_exit(*r.exit_code);
  } else {
    r.outcome = "killed";
    r.message = std::string("ended by signal ") + std::to_string(WTERMSIG(wait_status));
  }
  const auto said = read_run_end(r.log);
  if (r.message.empty()) r.message = said.error;
  r.run_id = said.run_id;
  r.ended_ms = to_ms(now);
  store_.run_ended(r.id, *r.ended_ms, r.outcome, r.exit_code, r.message, r.run_id);
  // A continuous run stopped by a pause ended as asked: no failure.
  const bool ok = r.outcome == "success" || (h.state.paused && r.outcome == "interrupted");
  h.state.failures = ok ? 0 : h.state.failures + 1;
  if (!ok) h.not_before = now + backoff(h.state.failures);
  if (h.sync.schedule.kind() == Schedule::Kind::continuous) h.state.next_due_ms = to_ms(now);
  store_.save(h.state);
  h.pid = -1;
  h.metrics_port = 0;
  h.trigger.clear();
  h.stuck = false;
  h.current.reset();
  h.last = r;
  if (on_run_end_) on_run_end_(r, h.sync);
}

void Scheduler::tick(Clock::time_point now) {
  std::lock_guard lock(mu_);
  for (auto& h : hosted_) {
    if (h.pid > 0) {
      int status = 0;
      if (waitpid(h.pid, &status, WNOHANG) == h.pid) finished(h, status, now);
    }
    if (h.orphan > 0 && !process_alive(h.orphan)) h.orphan = -1;
    if (h.pid > 0 && h.trigger == "continuous" && h.metrics_port == 0)
      h.metrics_port = metrics_port_in(h.current->log);
    if (h.current && !h.stuck && now - from_ms(h.current->started_ms) > config_.run_timeout &&
        h.sync.schedule.kind() != Schedule::Kind::continuous) {
      h.stuck = true;
      std::fprintf(stderr, "krow serve: the run of sync '%s' has gone on for longer than run_timeout; see %s\n",
                   h.sync.id.c_str(), h.current->log.c_str());
    }
    if (h.pid > 0 || h.orphan > 0 || h.state.paused || !h.state.next_due_ms || now < h.not_before)
      continue;
    const auto due = from_ms(*h.state.next_due_ms);
    if (now < due) continue;
    // Due before the last run ended long ago: the service was down then. One run, not a burst.
    const bool missed = h.sync.schedule.kind() != Schedule::Kind::continuous &&
                        now - due > std::chrono::seconds(60);
    start(h, h.sync.schedule.kind() == Schedule::Kind::continuous ? "continuous" : missed ? "missed" : "schedule",
          now);
  }
}

void Scheduler::stop(std::chrono::seconds grace) {
  std::lock_guard lock(mu_);
  for (auto& h : hosted_)
    if (h.pid > 0) kill(h.pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (;;) {
    bool left = false;
    for (auto& h : hosted_) {
      if (h.pid <= 0) continue;
      int status = 0;
      if (waitpid(h.pid, &status, WNOHANG) == h.pid)
        finished(h, status, Clock::now());
      else
        left = true;
    }
    if (!left) return;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (auto& h : hosted_)
    if (h.pid > 0) {
      kill(h.pid, SIGKILL);
      int status = 0;
      waitpid(h.pid, &status, 0);
      finished(h, status, Clock::now());
    }
}

SyncStatusView Scheduler::view(const Hosted& h) const {
  SyncStatusView v;
  v.id = h.sync.id;
  v.schedule = h.sync.schedule.text();
  v.manifest = h.sync.manifest.string();
  v.from_api = h.sync.from_api;
  v.paused = h.state.paused;
  v.running = h.pid > 0 || h.orphan > 0;
  v.metrics_port = h.metrics_port;
  v.stuck = h.stuck;
  if (h.state.next_due_ms && !h.state.paused)
    v.next_due = std::max(from_ms(*h.state.next_due_ms), h.not_before);
  v.failures = h.state.failures;
  v.last = h.last;
  v.current = h.current;
  return v;
}

std::vector<SyncStatusView> Scheduler::status() const {
  std::lock_guard lock(mu_);
  std::vector<SyncStatusView> out;
  for (const auto& h : hosted_) out.push_back(view(h));
  return out;
}

std::optional<SyncStatusView> Scheduler::status(const std::string& id) const {
  std::lock_guard lock(mu_);
  for (const auto& h : hosted_)
    if (h.sync.id == id) return view(h);
  return std::nullopt;
}

Scheduler::Hosted* Scheduler::find(const std::string& id) {
  for (auto& h : hosted_)
    if (h.sync.id == id) return &h;
  return nullptr;
}

Scheduler::Answer Scheduler::act(const std::string& id, Action action, Clock::time_point now) {
  std::lock_guard lock(mu_);
  auto* h = find(id);
  if (!h) return Answer::no_such_sync;
  switch (action) {
    case Action::run:
    case Action::resync:
      if (h->pid > 0 || h->orphan > 0) return Answer::running;
      start(*h, action == Action::run ? "manual" : "resync", now);
      return h->pid > 0 ? Answer::done : Answer::running;
    case Action::pause:
      if (h->state.paused) return Answer::paused_already;
      h->state.paused = true;
      store_.save(h->state);
      // A continuous run stops as SIGTERM stops it (what it read is committed); a
      // scheduled run under way ends as it would.
      if (h->pid > 0 && h->trigger == "continuous") kill(h->pid, SIGTERM);
      return Answer::done;
    case Action::resume:
      if (!h->state.paused) return Answer::not_paused;
      h->state.paused = false;
      h->not_before = {};
      if (h->sync.schedule.kind() == Schedule::Kind::continuous) h->state.next_due_ms = to_ms(now);
      store_.save(h->state);
      return Answer::done;
  }
  return Answer::done;
}

bool Scheduler::add(const HostedSync& sync) {
  std::lock_guard lock(mu_);
  if (find(sync.id)) return false;
  hosted_.push_back(make_hosted(sync, Clock::now()));
  return true;
}

Scheduler::Answer Scheduler::replace(const HostedSync& sync) {
  std::lock_guard lock(mu_);
  auto* h = find(sync.id);
  if (!h) return Answer::no_such_sync;
  if (h->pid > 0 || h->orphan > 0) return Answer::running;
  const bool paused = h->state.paused;
  h->sync = sync;
  // The new schedule starts from now.
  h->state.next_due_ms.reset();
  if (sync.schedule.kind() == Schedule::Kind::continuous ||
      sync.schedule.kind() == Schedule::Kind::every)
    h->state.next_due_ms = to_ms(Clock::now());
  else if (const auto next = sync.schedule.next_after(Clock::now()))
    h->state.next_due_ms = to_ms(*next);
  h->state.paused = paused;
  store_.save(h->state);
  return Answer::done;
}

Scheduler::Answer Scheduler::remove(const std::string& id) {
  std::lock_guard lock(mu_);
  auto* h = find(id);
  if (!h) return Answer::no_such_sync;
  if (h->pid > 0 || h->orphan > 0) return Answer::running;
  hosted_.erase(hosted_.begin() + (h - hosted_.data()));
  return Answer::done;
}

}  // namespace krow::serve
