// `krow sync MANIFEST [-q] [-v] [bound flags]` (alias `run`): copies every selected topic up
// to its last stable offset.

#include "commands/sync_command.hpp"

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <string>

#include "commands/command.hpp"
#include "commands/command_support.hpp"
#include "util/text.hpp"

namespace krow::commands {

namespace {

std::atomic<bool> g_stop{false};

void on_signal(int) {
  g_stop.store(true);
}

int exit_code(const SyncResult& r) {
  switch (r.status) {
    case SyncStatus::success:
      return kExitOk;
    case SyncStatus::partial:
      return kExitPartial;
    case SyncStatus::interrupted:
      return kExitInterrupted;
    case SyncStatus::gate_failed:
      return kExitGateFailed;
    case SyncStatus::failed:
      break;
  }
  if (r.invalid_config) return kExitConfig;
  return r.retriable ? kExitRetryLater : kExitFailed;
}

class SyncCommand final : public Command {
 public:
  explicit SyncCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "sync", "Copy every selected topic up to its last stable offset into the warehouse")) {
    app_->alias("run");
    app_->add_option("manifest", manifest_path_, "Manifest file (YAML)")
        ->required()
        ->check(CLI::ExistingFile);
    app_->add_flag("-q,--quiet", quiet_,
                   "No progress display (it is shown only on a terminal anyway)");
    app_->add_flag("-v,--verbose", verbose_, "Show Kafka client warnings and retries");
    bounds_.add_to(app_);
    // One literal per line of the help text.
    // clang-format off
    app_->footer(
        "Bounds (flags here, or `bounds:` in the manifest) stop a run early: each partition is read up to the\n"
        "smallest of its bounds, never past its last stable offset, and its position ends there, so the next\n"
        "sync continues exactly where this one stopped.");
    // clang-format on
  }

  int run() override {
    auto manifest = load_manifest_and_source(manifest_path_);
    bounds_.apply(manifest.bounds);
    SyncOptions options;
    options.progress = !quiet_;
    options.verbose = verbose_;
    return run_and_print(manifest, options);
  }

 private:
  std::string manifest_path_;
  bool quiet_ = false;
  bool verbose_ = false;
  BoundFlags bounds_;
};

}  // namespace

int run_and_print(const Manifest& manifest, SyncOptions options) {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  options.stop = &g_stop;
  const auto r = run_sync(manifest, options);
  const double rate = r.seconds > 0 ? static_cast<double>(r.messages) / r.seconds : 0;
  std::printf(
      "%s '%s' %s: %s messages read in %.2f s (%s msg/s), %s rows published, %s batches, "
      "%s decode errors, run %s\n",
      options.full_resync ? "full resync" : "sync", manifest.name.c_str(), status_name(r.status),
      with_thousands(r.messages).c_str(), r.seconds,
      with_thousands(static_cast<uint64_t>(rate)).c_str(), with_thousands(r.rows_published).c_str(),
      with_thousands(r.batches).c_str(), with_thousands(r.decode_errors).c_str(), r.run_id.c_str());
  // Every outcome names its record, a run that failed before reading (exit 75 or 1) too.
  if (!r.artifact.empty())
    std::printf("  run summary: %s (the full record beside it, .json)\n", r.artifact.c_str());
  for (const auto& g : r.gates)
    std::printf("  gate %s %s (%s, %s): %s\n", g.passed ? "passed" : "FAILED", g.id.c_str(),
                gate_type_name(g.type), g.severity == GateSeverity::error ? "error" : "warn",
                g.finding.c_str());
  if (r.staged && r.status != SyncStatus::failed)
    std::printf("  staged publish: %s\n",
                r.published ? "the run's rows and positions reached the tables together"
                            : "nothing of this run was published; the tables and positions "
                              "are as they were");
  for (const auto& e : r.errors) std::fprintf(stderr, "krow: error: %s\n", e.c_str());
  if (!r.lag_reporting_off.empty())
    std::fprintf(stderr, "krow: note: %s\n", r.lag_reporting_off.c_str());
  return exit_code(r);
}

std::unique_ptr<Command> add_sync(CLI::App& app) {
  return std::make_unique<SyncCommand>(app);
}

}  // namespace krow::commands
