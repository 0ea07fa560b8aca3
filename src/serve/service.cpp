#include "serve/service.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "manifest/manifest.hpp"
#include "metrics/exposition.hpp"
#include "metrics/metrics_endpoint.hpp"
#include "metrics/serve_metrics.hpp"
#include "report/run_artifacts.hpp"
#include "serve/api.hpp"
#include "serve/scheduler.hpp"
#include "serve/serve_store.hpp"
#include "util/error.hpp"

namespace krow::serve {

namespace {

double unix_seconds(Clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

// What a finished run read and wrote, from its run record; none when it left no record.
std::optional<metrics::ServeMetrics::RunFigures> figures_of_run(const HostedSync& sync,
                                                                const std::string& run_id) {
  if (run_id.empty()) return std::nullopt;
  try {
    const auto file = find_run(runs_root(sync.manifest), sync.id, run_id);
    if (!file) return std::nullopt;
    simdjson::dom::parser parser;
    simdjson::dom::object record;
    if (parser.parse(read_text_file(*file)).get(record)) return std::nullopt;
    auto number = [&](const char* key) {
      int64_t v = 0;
      return record[key].get(v) ? int64_t(0) : v;
    };
    return metrics::ServeMetrics::RunFigures{number("messages"),      number("rows_published"),
                                             number("bytes"),         number("batches"),
                                             number("decode_errors"), number("warehouse_retries")};
  } catch (const Error&) {
    return std::nullopt;  // an unreadable record changes no figure
  }
}

}  // namespace

void serve(const ServeConfig& config, const std::atomic<bool>& stop) {
  std::error_code ec;
  std::filesystem::create_directories(config.logs, ec);
  ServeStore store(config.state);
  metrics::ServeMetrics figures;
  // The config's syncs, and those created through the API (their manifests as they were saved).
  auto syncs = config.syncs;
  for (const auto& a : store.api_syncs()) {
    try {
      const auto manifest = load_manifest(a.manifest);
      if (manifest.name != a.id)
        throw Error(ErrorClass::config, "its name is now '" + manifest.name + "'");
      if (std::any_of(syncs.begin(), syncs.end(),
                      [&](const HostedSync& h) { return h.id == a.id; }))
        throw Error(ErrorClass::config, "the config file hosts a sync of that ID too");
      syncs.push_back(HostedSync{a.id, a.manifest, Schedule::parse(a.schedule, "schedule"), true});
    } catch (const Error& e) {
      std::fprintf(stderr, "krow serve: not hosting sync '%s' created through the API (%s): %s\n",
                   a.id.c_str(), a.manifest.c_str(), e.what());
    }
  }
  // Runs are this very binary: `krow sync` as the command line runs it.
  const auto program = std::filesystem::read_symlink("/proc/self/exe").string();
  Scheduler scheduler(
      config, syncs, store, program, [&figures](const ServedRun& r, const HostedSync& sync) {
        figures.run_ended(
            r.sync, r.outcome,
            std::chrono::milliseconds(r.ended_ms.value_or(r.started_ms) - r.started_ms),
            static_cast<double>(r.ended_ms.value_or(0)) / 1000);
        if (const auto f = figures_of_run(sync, r.run_id)) figures.run_figures(r.sync, *f);
      });
  std::atomic<bool> ready{false};
  const ApiServer api(
      config, store, scheduler,
      [&] {
        const auto hosted = scheduler.status();
        for (const auto& s : hosted)
          figures.sync_state(s.id, s.running, s.stuck,
                             s.next_due ? std::optional<double>(unix_seconds(*s.next_due)) : std::nullopt);
        // With the live figures of each continuous run (served on a port of its own).
        std::vector<std::string> texts{figures.exposition()};
        for (const auto& s : hosted)
          if (s.metrics_port > 0)
            if (auto child = metrics::scrape_local(s.metrics_port))
              texts.push_back(std::move(*child));
        return metrics::merge_expositions(texts);
      },
      ready);
  const auto address = metrics::parse_listen_address(config.listen, "listen");
  const bool v6 = address.host.find(':') != std::string::npos;
  std::fprintf(stderr,
               "krow serve: listening on %s://%s%s%s:%d (API /api/v1; GET /livez, /readyz, "
               "/metrics); hosting %zu "
               "sync%s; state in %s\n",
               api.tls() ? "https" : "http", v6 ? "[" : "", address.host.c_str(), v6 ? "]" : "",
               api.port(), syncs.size(), syncs.size() == 1 ? "" : "s",
               config.state.string().c_str());
  if (store.users().empty())
    std::fprintf(stderr,
                 "krow serve: no user yet: create the first admin with `krow serve add-user NAME "
                 "--role admin "
                 "--config %s` (the password is read from standard input)\n",
                 config.file.c_str());
  while (!stop.load()) {
    scheduler.tick(Clock::now());
    ready = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ready = false;
  std::fprintf(stderr, "krow serve: stopping; runs under way commit what they read\n");
  scheduler.stop(std::chrono::seconds(60));
}

}  // namespace krow::serve
