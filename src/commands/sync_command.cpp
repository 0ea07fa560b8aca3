// `krow sync MANIFEST [-q] [-v] [bound flags] [--follow ...]` (alias `run`): copies every
// selected topic up to its last stable offset, or (--follow) on and on.

#include "commands/sync_command.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <string>

#include "commands/command.hpp"
#include "commands/command_support.hpp"
#include "engines/engines.hpp"
#include "kafka/group_member.hpp"
#include "metrics/metrics_endpoint.hpp"
#include "metrics/sync_metrics.hpp"
#include "sync/continuous.hpp"
#include "util/error.hpp"
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
    case SyncStatus::running:
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
    app_->add_flag("--apply-design", apply_design_,
                   "Change existing tables whose physical design (partition_by, cluster_by, "
                   "indexes, sort_by in the manifest's tables:) differs from the manifest's, as "
                   "`krow plan` shows; without it they keep theirs and the sync says so "
                   "(docs/physical-design.md)");
    app_->add_flag("--follow", follow_,
                   "Keep reading after catching up: a batch commits at batch.max_messages, "
                   "batch.max_bytes or batch.max_wait (default 1s) after its first message; "
                   "SIGTERM or SIGINT commits what was read and exits 0");
    app_->add_option("--worker-id", worker_id_,
                     "With --follow: run as one of several workers sharing this sync's partitions "
                     "(a stable ID: letters, digits, -_. up to 64; docs/workers.md)");
    app_->add_option("--record-interval", record_interval_,
                     "With --follow: write a run record this often (counts since the previous one)")
        ->capture_default_str();
    app_->add_option("--refresh-interval", refresh_interval_,
                     "With --follow: look for new topics and partitions this often")
        ->capture_default_str();
    app_->add_option("--metrics-address", metrics_address_,
                     "With --follow: serve Prometheus metrics at http://ADDRESS/metrics "
                     "(HOST:PORT, or :PORT for 127.0.0.1; docs/metrics.md)");
    // One literal per line of the help text.
    // clang-format off
    app_->footer(
        "Bounds (flags here, or `bounds:` in the manifest) stop a run early: each partition is read up to the\n"
        "smallest of its bounds, never past its last stable offset, and its position ends there, so the next\n"
        "sync continues exactly where this one stopped.\n"
        "\n"
        "--follow runs until stopped (docs/continuous-sync.md): rows are queryable within batch.max_wait of\n"
        "arriving, new topics and partitions that the selection matches join as they appear, and every\n"
        "--record-interval leaves a run record (krow runs) of what happened since the previous one. Once caught\n"
        "up, a DuckDB file is closed between batches, so readers can open it then.\n"
        "Not with bounds, quality gates, quality.publish: staged or full_refresh tables.");
    // clang-format on
  }

  int run() override {
    auto manifest = load_manifest_and_source(manifest_path_);
    bounds_.apply(manifest.bounds);
    SyncOptions options;
    options.progress = !quiet_;
    options.verbose = verbose_;
    options.apply_design = apply_design_;
    // Workers share tables that another worker may write while one prepares them: a design
    // that makes a table again would lose those rows.
    if (apply_design_ && !worker_id_.empty())
      throw Error(ErrorClass::config,
                  "--apply-design changes tables that workers write: run it once with `krow sync "
                  "--apply-design` (no --worker-id) while no worker of the sync runs, then start "
                  "the workers");
    if (follow_) {
      if (const auto why = continuous_refusal(manifest); !why.empty())
        throw Error(ErrorClass::config, why);
      options.follow = true;
      options.progress = false;  // a line per run record instead
      options.record_interval = interval("--record-interval", record_interval_);
      options.refresh_interval = interval("--refresh-interval", refresh_interval_);
      if (const auto note =
              daily_quota_note(manifest, warehouse_capabilities(manifest.warehouse.type));
          !note.empty())
        std::fprintf(stderr, "krow: note: %s\n", note.c_str());
      if (!worker_id_.empty()) {
        if (const auto why = kafka::worker_id_refusal(worker_id_); !why.empty())
          throw Error(ErrorClass::config, "--worker-id: " + why);
        const auto& caps = warehouse_capabilities(manifest.warehouse.type);
        if (!caps.concurrent_writers)
          throw Error(ErrorClass::config,
                      caps.engine +
                          " takes no workers (--worker-id): " + caps.single_writer_reason +
                          ". Run one `krow sync --follow` without --worker-id, or give the sync "
                          "a server warehouse that takes several writers (" +
                          engines_that(
                              [](const WarehouseCapabilities& c) { return c.concurrent_writers; }) +
                          "; docs/workers.md)");
        options.worker_id = worker_id_;
      }
    } else if (!worker_id_.empty()) {
      throw Error(ErrorClass::config,
                  "--worker-id applies to a continuous sync: add --follow (a bounded sync runs "
                  "in one process; docs/workers.md)");
    } else if (record_interval_ != kRecordInterval || refresh_interval_ != kRefreshInterval ||
               !metrics_address_.empty()) {
      throw Error(ErrorClass::config,
                  "--record-interval, --refresh-interval and --metrics-address apply to a "
                  "continuous sync: add --follow");
    }
    if (metrics_address_.empty()) return run_and_print(manifest, options);
    const auto address = metrics::parse_listen_address(metrics_address_, "--metrics-address");
    metrics::SyncMetrics figures(manifest.name);
    const metrics::MetricsEndpoint endpoint(address, "--metrics-address",
                                            [&figures] { return figures.exposition(); });
    const bool v6 = address.host.find(':') != std::string::npos;
    std::fprintf(stderr, "krow: metrics at http://%s%s%s:%d/metrics\n", v6 ? "[" : "",
                 address.host.c_str(), v6 ? "]" : "", endpoint.port());
    options.observer = &figures;
    return run_and_print(manifest, options);
  }

 private:
  static constexpr const char* kRecordInterval = "5m";
  static constexpr const char* kRefreshInterval = "30s";

  static std::chrono::milliseconds interval(const char* flag, const std::string& text) {
    const auto ms = parse_duration_ms(text);
    if (!ms || *ms < 1000)
      throw Error(ErrorClass::config,
                  std::string(flag) +
                      " must be a duration of at least 1s such as 30s, 5m or 1h, not '" + text +
                      "'");
    return std::chrono::milliseconds(*ms);
  }

  std::string manifest_path_;
  bool follow_ = false;
  std::string worker_id_;
  std::string record_interval_ = kRecordInterval;
  std::string refresh_interval_ = kRefreshInterval;
  std::string metrics_address_;
  bool apply_design_ = false;
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
