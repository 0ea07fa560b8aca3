// Test support for workers (docs/workers.md): starting, stopping, killing and freezing
// `krow sync --follow --worker-id` processes of one manifest, and reading the workers' group
// as `krow status --format json` shows it. A mixin over a sync fixture (the integration
// suite's EngineTest, the fault-injection suite's Chaos); every worker it started is killed at
// tear-down, stopped ones woken first.
#pragma once

#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sync_fixture.hpp"

namespace krow::testkit {

template <class Base>
class WithWorkers : public Base {
 protected:
  // A sync ID of the test's own, so that its workers' group (krow-<sync id>.workers) holds
  // no member a test before it left there: static members stay for the session timeout
  // after they stop.
  void SetUp() override {
    Base::SetUp();
    this->sync_id_ = unique_name("workers");
  }

  void TearDown() override {
    for (auto& [id, pid] : workers_)
      if (pid > 0) {
        kill(pid, SIGCONT);
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    workers_.clear();
    Base::TearDown();
  }

  // Starts worker `id` (`extra` arguments appended); its output goes to worker-<key>.out/.err
  // in the test folder (a restart starts them anew). The process is known by `key` (by
  // default its worker ID) to the calls below.
  void start_worker(const std::string& manifest, const std::string& id,
                    const std::vector<std::string>& extra = {}, std::string key = {}) {
    if (key.empty()) key = id;
    std::vector<std::string> args{"sync",
                                  "-q",
                                  manifest,
                                  "--follow",
                                  "--worker-id",
                                  id,
                                  "--refresh-interval",
                                  "1h",
                                  "--record-interval",
                                  "2s"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto out = this->dir() / ("worker-" + key + ".out"),
               err = this->dir() / ("worker-" + key + ".err");
    workers_[key] = this->start_krow_to(args, out, err);
  }

  // SIGTERM, then the exit code (waits up to 60 s).
  int stop_worker(const std::string& id) {
    const pid_t pid = workers_[id];
    kill(pid, SIGTERM);
    int status = 0;
    const bool ended = this->finishes(pid, std::chrono::seconds(60), status);
    workers_[id] = -1;
    EXPECT_TRUE(ended) << "worker " << id << " did not end within 60 s of SIGTERM";
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  void kill9(const std::string& id) {
    kill(workers_[id], SIGKILL);
    waitpid(workers_[id], nullptr, 0);
    workers_[id] = -1;
  }

  // What worker `id` wrote to its standard error.
  std::string err_of(const std::string& id) const {
    std::ifstream err(this->dir() / ("worker-" + id + ".err"));
    return std::string((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  }

  // What every worker said, for failure messages.
  std::string said() const {
    std::stringstream s;
    for (const auto& [id, pid] : workers_) {
      (void)pid;
      std::ifstream out(this->dir() / ("worker-" + id + ".out"));
      s << "--- worker " << id << ":\n" << out.rdbuf() << err_of(id);
    }
    return s.str();
  }

  // The group's members and their partitions, from `krow status --format json`.
  std::map<std::string, std::set<int>> group(const std::string& manifest) {
    const auto r = this->krow({"status", manifest, "--format", "json"});
    std::map<std::string, std::set<int>> out;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(r.out).get(doc)) return out;
    simdjson::dom::array members;
    if (doc["workers_group"]["members"].get(members)) return out;
    for (auto m : members) {
      std::string_view id;
      if (m["worker_id"].get(id)) continue;
      auto& mine = out[std::string(id)];
      simdjson::dom::array assigned;
      if (m["assigned"].get(assigned)) continue;
      for (auto a : assigned) {
        int64_t p = -1;
        if (!a["partition"].get(p)) mine.insert(static_cast<int>(p));
      }
    }
    return out;
  }

  // True when the group has exactly `ids` as members and they own every one of `partitions`
  // partitions, each exactly once.
  bool owned_once(const std::string& manifest, const std::set<std::string>& ids, int partitions) {
    const auto g = group(manifest);
    std::set<std::string> members;
    std::multiset<int> all;
    for (const auto& [id, ps] : g) {
      members.insert(id);
      all.insert(ps.begin(), ps.end());
    }
    if (members != ids || static_cast<int>(all.size()) != partitions) return false;
    for (int p = 0; p < partitions; ++p)
      if (all.count(p) != 1) return false;
    return true;
  }

  // As owned_once, and spread evenly: each member owns partitions / members of them, give or
  // take one (the group has settled; while members join, the first may still own them all).
  bool owned_evenly(const std::string& manifest, const std::set<std::string>& ids, int partitions) {
    if (!owned_once(manifest, ids, partitions)) return false;
    const int each = partitions / static_cast<int>(ids.size());
    for (const auto& [id, ps] : group(manifest))
      if (static_cast<int>(ps.size()) < each || static_cast<int>(ps.size()) > each + 1)
        return false;
    return true;
  }

  std::map<std::string, pid_t> workers_;
};

}  // namespace krow::testkit
