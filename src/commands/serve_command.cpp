// `krow serve --config server.yaml`: hosts syncs on their schedules (docs/serve.md) until
// SIGTERM or SIGINT.

#include <atomic>
#include <csignal>
#include <cstdio>
#include <string>

#include "commands/command.hpp"
#include "serve/serve_config.hpp"
#include "serve/service.hpp"

namespace krow::commands {

namespace {

std::atomic<bool> g_stop_serving{false};

void on_signal(int) {
  g_stop_serving.store(true);
}

class ServeCommand final : public Command {
 public:
  explicit ServeCommand(CLI::App& app)
      : Command(app.add_subcommand("serve", "Host syncs on their schedules, with health checks and Prometheus metrics")) {
    app_->add_option("--config", config_, "The service's config (YAML): listen, state, syncs and their schedules")
        ->required()
        ->check(CLI::ExistingFile);
    // One literal per line of the help text.
    // clang-format off
    app_->footer(
        "Each hosted sync runs as `krow sync` would, as a process of its own, at most one at a time per sync:\n"
        "schedule: manual, continuous (krow sync --follow kept running), every 15m, or cron 0 */6 * * * (UTC).\n"
        "A run missed while the service was down runs once when it starts. GET /livez, /readyz and /metrics\n"
        "answer on `listen` (127.0.0.1:8470 by default). SIGTERM stops it: runs under way commit what they read.\n"
        "See docs/serve.md.");
    // clang-format on
  }

  int run() override {
    const auto config = serve::load_serve_config(config_);
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    serve::serve(config, g_stop_serving);
    return kExitOk;
  }

 private:
  std::string config_;
};

}  // namespace

std::unique_ptr<Command> add_serve(CLI::App& app) {
  return std::make_unique<ServeCommand>(app);
}

}  // namespace krow::commands
