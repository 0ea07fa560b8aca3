// krow: copy Kafka topics into a warehouse, one row per message.
//
// The CLI is thin: it parses arguments, loads the manifest, calls plan/sync/status and
// prints. Exit codes: 0 success, 1 failure, 2 partial (some tables stopped), 3 invalid
// manifest or arguments, 130 interrupted.

#include <CLI/CLI.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "manifest/manifest.hpp"
#include "sync/plan.hpp"
#include "sync/status.hpp"
#include "sync/sync_engine.hpp"
#include "util/error.hpp"
#include "util/text.hpp"
#include "warehouse/warehouse.hpp"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitPartial = 2;
constexpr int kExitConfig = 3;
constexpr int kExitInterrupted = 130;

std::atomic<bool> g_stop{false};

void on_signal(int) { g_stop.store(true); }

int exit_code(krow::SyncStatus s) {
  switch (s) {
    case krow::SyncStatus::success: return kExitOk;
    case krow::SyncStatus::partial: return kExitPartial;
    case krow::SyncStatus::interrupted: return kExitInterrupted;
    case krow::SyncStatus::failed: break;
  }
  return kExitFailed;
}

int cmd_plan(const std::string& manifest_path, const std::string& format) {
  const auto manifest = krow::load_manifest(manifest_path);
  auto warehouse = krow::open_warehouse(manifest.warehouse, manifest.name, krow::OpenMode::read_only);
  krow::kafka::Client client(manifest.source, {"krow-" + manifest.name});
  client.check_connection(std::chrono::seconds(manifest.source.connect_timeout_s));
  krow::kafka::Cluster cluster(client);
  const auto plan = krow::make_plan(cluster, *warehouse, manifest);
  const auto f = format == "json" ? krow::PlanFormat::json : format == "md" ? krow::PlanFormat::md : krow::PlanFormat::text;
  std::cout << krow::format_plan(plan, f);
  return kExitOk;
}

int cmd_sync(const std::string& manifest_path, bool quiet, bool verbose) {
  const auto manifest = krow::load_manifest(manifest_path);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  krow::SyncOptions options;
  options.progress = !quiet;
  options.verbose = verbose;
  options.stop = &g_stop;
  const auto r = krow::run_sync(manifest, options);
  const double rate = r.seconds > 0 ? static_cast<double>(r.messages) / r.seconds : 0;
  std::printf("sync '%s' %s: %s messages in %.2f s (%s msg/s), %s batches, %s decode errors, run %s\n",
              manifest.name.c_str(), krow::status_name(r.status), krow::with_thousands(r.messages).c_str(),
              r.seconds, krow::with_thousands(static_cast<uint64_t>(rate)).c_str(),
              krow::with_thousands(r.batches).c_str(), krow::with_thousands(r.decode_errors).c_str(),
              r.run_id.c_str());
  for (const auto& e : r.errors) std::fprintf(stderr, "krow: error: %s\n", e.c_str());
  if (!r.lag_reporting_off.empty()) std::fprintf(stderr, "krow: note: %s\n", r.lag_reporting_off.c_str());
  return exit_code(r.status);
}

int cmd_status(const std::string& manifest_path, const std::string& format) {
  const auto manifest = krow::load_manifest(manifest_path);
  auto warehouse = krow::open_warehouse(manifest.warehouse, manifest.name, krow::OpenMode::read_only);
  std::cout << krow::format_status(manifest, *warehouse, format == "json");
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "krow copies Kafka topics into a warehouse (DuckDB), one row per message, exactly once.\n"
      "Each sync reads every selected partition up to its last stable offset, commits rows and\n"
      "positions together, and resumes where the last committed batch ended.\n\n"
      "Exit codes: 0 success, 1 failure, 2 partial (some tables stopped), 3 invalid manifest\n"
      "or arguments, 130 interrupted (committed work is kept)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "krow 0.1.0");

  std::string manifest_path, format = "text";
  bool quiet = false, verbose = false;

  auto* plan = app.add_subcommand("plan", "Show what a sync would do: topics -> tables, partitions, positions, "
                                          "last stable offsets and messages to read");
  plan->add_option("manifest", manifest_path, "Manifest file (YAML)")->required()->check(CLI::ExistingFile);
  plan->add_option("--format", format, "Output format")->check(CLI::IsMember({"text", "md", "json"}));

  auto* sync = app.add_subcommand("sync", "Copy every selected topic up to its last stable offset into the warehouse");
  sync->alias("run");
  sync->add_option("manifest", manifest_path, "Manifest file (YAML)")->required()->check(CLI::ExistingFile);
  sync->add_flag("-q,--quiet", quiet, "No progress display (it is shown only on a terminal anyway)");
  sync->add_flag("-v,--verbose", verbose, "Show Kafka client warnings and retries");

  auto* status = app.add_subcommand("status", "Show stored positions per table and partition, and recent runs");
  status->add_option("manifest", manifest_path, "Manifest file (YAML)")->required()->check(CLI::ExistingFile);
  status->add_option("--format", format, "Output format")->check(CLI::IsMember({"text", "json"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitConfig;
  }

  try {
    if (*plan) return cmd_plan(manifest_path, format);
    if (*sync) return cmd_sync(manifest_path, quiet, verbose);
    if (*status) return cmd_status(manifest_path, format);
  } catch (const krow::Error& e) {
    std::fprintf(stderr, "krow: %s\n", e.what());
    return e.error_class() == krow::ErrorClass::config ? kExitConfig : kExitFailed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "krow: unexpected error: %s\n", e.what());
    return kExitFailed;
  }
  return kExitFailed;
}
