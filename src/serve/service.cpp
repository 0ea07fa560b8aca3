#include "serve/service.hpp"

#include <cstdio>
#include <filesystem>
#include <thread>

#include "metrics/metrics_endpoint.hpp"
#include "metrics/serve_metrics.hpp"
#include "serve/scheduler.hpp"
#include "serve/serve_store.hpp"

namespace krow::serve {

namespace {

double unix_seconds(Clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

}  // namespace

void serve(const ServeConfig& config, const std::atomic<bool>& stop) {
  std::error_code ec;
  std::filesystem::create_directories(config.logs, ec);
  ServeStore store(config.state);
  metrics::ServeMetrics figures;
  // Runs are this very binary: `krow sync` as the command line runs it.
  const auto program = std::filesystem::read_symlink("/proc/self/exe").string();
  Scheduler scheduler(config, store, program, [&figures](const ServedRun& r) {
    figures.run_ended(r.sync, r.outcome, std::chrono::milliseconds(r.ended_ms.value_or(r.started_ms) - r.started_ms),
                      static_cast<double>(r.ended_ms.value_or(0)) / 1000);
  });
  std::atomic<bool> ready{false};
  const auto address = metrics::parse_listen_address(config.listen, config.file.string() + ": listen");
  const metrics::MetricsEndpoint endpoint(
      address, config.file.string() + ": listen",
      [&] {
        for (const auto& s : scheduler.status())
          figures.sync_state(s.id, s.running, s.stuck,
                             s.next_due ? std::optional<double>(unix_seconds(*s.next_due)) : std::nullopt);
        return figures.exposition();
      },
      {{"/livez", [] { return metrics::PlainAnswer{200, "ok\n"}; }},
       {"/readyz",
        [&ready] {
          return ready.load() ? metrics::PlainAnswer{200, "ready\n"}
                              : metrics::PlainAnswer{503, "not ready: the scheduler is starting or stopping\n"};
        }}});
  const bool v6 = address.host.find(':') != std::string::npos;
  std::fprintf(stderr,
               "krow serve: listening on http://%s%s%s:%d (GET /livez, /readyz, /metrics); hosting %zu sync%s; "
               "state in %s\n",
               v6 ? "[" : "", address.host.c_str(), v6 ? "]" : "", endpoint.port(), config.syncs.size(),
               config.syncs.size() == 1 ? "" : "s", config.state.string().c_str());
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
