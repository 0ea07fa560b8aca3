#pragma once
// `krow serve --config server.yaml` (docs/serve.md): where the service listens, where it
// keeps its state, and the syncs it hosts, each a manifest and a schedule.
//
//   listen: 127.0.0.1:8470        # HOST:PORT; 127.0.0.1 unless told otherwise
//   state: krow-serve.db          # its SQLite file, relative to this file's folder
//   logs: logs                    # one file per run (its output), likewise
//   run_timeout: 2h               # a run longer than this is reported as stuck
//   syncs:
//     - manifest: orders.yaml
//       schedule: every 15m       # manual | continuous | every D | cron M H DOM MON DOW
//
// Every manifest is loaded when the config is (as `krow plan` would), so a broken one is
// refused before anything runs, naming its file and line.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "serve/schedule.hpp"

namespace krow::serve {

struct HostedSync {
  std::string id;  // the manifest's sync ID (`name:`)
  std::filesystem::path manifest;
  Schedule schedule;
};

struct ServeConfig {
  std::filesystem::path file;
  std::string listen = "127.0.0.1:8470";
  std::filesystem::path state;
  std::filesystem::path logs;
  std::chrono::milliseconds run_timeout{std::chrono::hours(2)};
  std::vector<HostedSync> syncs;
};

// Throws Error(config) naming the file, line and key of the first problem.
ServeConfig load_serve_config(const std::filesystem::path& file);

}  // namespace krow::serve
