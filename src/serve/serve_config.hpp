#pragma once
// `krow serve --config server.yaml` (docs/serve.md): where the service listens, where it
// keeps its state, and the syncs it hosts, each a manifest and a schedule.
//
//   listen: 127.0.0.1:8470        # HOST:PORT; 127.0.0.1 unless told otherwise
//   state: krow-serve.db          # its SQLite file, relative to this file's folder
//   logs: logs                    # one file per run (its output), likewise
//   run_timeout: 2h               # a run longer than this is reported as stuck
//   tls:                          # HTTPS instead of HTTP
//     certificate: server.crt     # PEM, the chain after the server's own
//     key: server.key             # PEM, unencrypted, readable by the service only
//   api_manifests: api-syncs      # where the manifests of syncs created through the API go
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
  bool from_api = false;  // created through the API (else listed in the config file)
};

struct ServeConfig {
  std::filesystem::path file;
  std::string listen = "127.0.0.1:8470";
  std::filesystem::path state;
  std::filesystem::path logs;
  std::chrono::milliseconds run_timeout{std::chrono::hours(2)};
  std::filesystem::path tls_certificate, tls_key;  // both or neither
  std::filesystem::path api_manifests;
  std::vector<HostedSync> syncs;
};

// Throws Error(config) naming the file, line and key of the first problem.
ServeConfig load_serve_config(const std::filesystem::path& file);

}  // namespace krow::serve
