// krow: copy Kafka topics into a warehouse, one row per message.
//
// The CLI is thin: it parses arguments, loads the manifest, calls plan/sync/status/runs and
// prints. Exit codes: 0 success, 1 failure that needs a fix, 2 partial (some tables
// stopped), 3 invalid manifest or arguments, 4 a quality gate of severity error failed, 75 failure
// that may pass by itself (an outage longer than the retries, or another sync of the same sync ID
// still running: run again later), 130 interrupted.

#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "connect/connect.hpp"
#include "doctor/doctor.hpp"
#include "engines/engines.hpp"
#include "http/curl_info.hpp"
#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "kafka/library.hpp"
#include "manifest/manifest.hpp"
#include "manifest/saved_source.hpp"
#include "plan/plan.hpp"
#include "plan/typed_columns.hpp"
#include "report/plan_report.hpp"
#include "report/run_artifacts.hpp"
#include "report/schema_report.hpp"
#include "report/status.hpp"
#include "secrets/secret_store.hpp"
#include "sync/json_sample.hpp"
#include "sync/sync_engine.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitPartial = 2;
constexpr int kExitConfig = 3;
constexpr int kExitGateFailed = 4;
constexpr int kExitRetryLater = 75;  // EX_TEMPFAIL of sysexits.h: schedulers know it as "try again"
constexpr int kExitInterrupted = 130;

std::atomic<bool> g_stop{false};

void on_signal(int) { g_stop.store(true); }

int exit_code(krow::ErrorClass c) {
  switch (c) {
    case krow::ErrorClass::config: return kExitConfig;
    case krow::ErrorClass::transient: return kExitRetryLater;
    default: return kExitFailed;
  }
}

int exit_code(const krow::SyncResult& r) {
  switch (r.status) {
    case krow::SyncStatus::success: return kExitOk;
    case krow::SyncStatus::partial: return kExitPartial;
    case krow::SyncStatus::interrupted: return kExitInterrupted;
    case krow::SyncStatus::gate_failed: return kExitGateFailed;
    case krow::SyncStatus::failed: break;
  }
  if (r.invalid_config) return kExitConfig;
  return r.retriable ? kExitRetryLater : kExitFailed;
}

// Loads a manifest and, when it names a saved source, fills it from the encrypted store.
krow::Manifest load(const std::string& path) {
  auto manifest = krow::load_manifest(path);
  krow::resolve_saved_source(manifest);
  return manifest;
}

// Bound flags given on the command line: they override the manifest's `bounds:` key by key.
struct BoundFlags {
  std::vector<std::pair<const krow::BoundSetting*, CLI::Option*>> options;
  std::map<std::string, std::string> values;  // by manifest key

  void add_to(CLI::App* command) {
    for (const auto& s : krow::bound_settings()) {
      auto* o = command->add_option(s.flag, values[s.key], std::string(s.description) + " (overrides bounds." +
                                                              s.key + " of the manifest)");
      o->type_name(s.value_name);
      options.emplace_back(&s, o);
    }
  }
  void apply(krow::BoundsConfig& bounds) const {
    for (const auto& [s, o] : options) {
      if (o->count() == 0) continue;
      if (const auto problem = krow::set_bound(bounds, s->key, values.at(s->key)); !problem.empty())
        throw krow::Error(krow::ErrorClass::config, std::string(s->flag) + ": " + problem);
    }
  }
};

int cmd_plan(const std::string& manifest_path, const std::string& format, const BoundFlags& bound_flags) {
  auto manifest = load(manifest_path);
  bound_flags.apply(manifest.bounds);
  auto warehouse = krow::open_warehouse(manifest.warehouse, manifest.name, krow::OpenMode::read_only);
  krow::kafka::Client client(manifest.source, {});
  client.check_connection(std::chrono::seconds(manifest.source.connect_timeout_s));
  krow::kafka::Cluster cluster(client);
  auto plan = krow::make_plan(cluster, *warehouse, manifest);
  if (krow::wants_typed_columns(plan)) {
    std::unique_ptr<krow::SchemaRegistry> registry;
    if (manifest.registry.configured()) {
      registry = std::make_unique<krow::SchemaRegistry>(
          manifest.registry, std::chrono::seconds(std::clamp(manifest.source.connect_timeout_s, 5, 60)));
      registry->set_when_failing("check registry.url (and registry.ca_file) and that the registry is up, then run "
                                 "`krow plan` again");
    }
    // `columns: infer` tables sample what the sync would read, as it would.
    krow::plan_typed_columns(plan, registry.get(), *warehouse, manifest.registry.tagged_unions,
                             [&](const krow::TopicPlan& t) {
                               return krow::sample_json_values(manifest.source, t, krow::kInferSample,
                                                               std::chrono::seconds(manifest.source.retry_timeout_s));
                             });
  }
  const auto f = format == "json" ? krow::PlanFormat::json : format == "md" ? krow::PlanFormat::md : krow::PlanFormat::text;
  std::cout << krow::format_plan(plan, f);
  return kExitOk;
}

// `krow schema`: the typed columns each table would get from its topic's latest value schema.
// The cluster or the registry unreachable is a failure to fix here (exit 1), not one to wait
// for: nothing is being copied.
int cmd_schema(const std::string& manifest_path, const std::string& format) {
  const auto manifest = load(manifest_path);
  const bool json = format == "json";
  auto warehouse = krow::open_warehouse(manifest.warehouse, manifest.name, krow::OpenMode::read_only);
  krow::columns::ColumnOptions options;
  options.tagged_unions = manifest.registry.tagged_unions;
  try {
    if (!manifest.registry.configured()) {
      krow::Plan none;
      none.sync_id = manifest.name;
      none.warehouse = warehouse->describe();
      none.schema = manifest.warehouse.schema;
      std::cout << krow::format_schema_report(krow::make_schema_report(none, nullptr, *warehouse, options), json);
      return kExitOk;
    }
    krow::kafka::Client client(manifest.source, {});
    client.check_connection(std::chrono::seconds(manifest.source.connect_timeout_s));
    krow::kafka::Cluster cluster(client);
    const auto plan = krow::make_plan(cluster, *warehouse, manifest);
    krow::SchemaRegistry registry(manifest.registry,
                                  std::chrono::seconds(std::clamp(manifest.source.connect_timeout_s, 5, 60)));
    registry.set_when_failing("check registry.url (and registry.ca_file) and that the registry is up, then run "
                              "`krow schema` again");
    const auto report = krow::make_schema_report(plan, &registry, *warehouse, options);
    std::cout << krow::format_schema_report(report, json);
    return report.failed() ? kExitFailed : kExitOk;
  } catch (const krow::Error& e) {
    if (e.error_class() != krow::ErrorClass::transient) throw;
    std::fprintf(stderr, "krow: %s\n", e.what());
    return kExitFailed;
  }
}

int cmd_sync(const std::string& manifest_path, bool quiet, bool verbose, const BoundFlags* bound_flags,
             bool full_resync = false, const std::vector<std::string>& tables = {}) {
  auto manifest = load(manifest_path);
  if (bound_flags) bound_flags->apply(manifest.bounds);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  krow::SyncOptions options;
  options.progress = !quiet;
  options.verbose = verbose;
  options.stop = &g_stop;
  options.full_resync = full_resync;
  options.only_tables = tables;
  const auto r = krow::run_sync(manifest, options);
  const double rate = r.seconds > 0 ? static_cast<double>(r.messages) / r.seconds : 0;
  std::printf(
      "%s '%s' %s: %s messages read in %.2f s (%s msg/s), %s rows published, %s batches, "
      "%s decode errors, run %s\n",
      full_resync ? "full resync" : "sync", manifest.name.c_str(), krow::status_name(r.status),
      krow::with_thousands(r.messages).c_str(), r.seconds,
      krow::with_thousands(static_cast<uint64_t>(rate)).c_str(),
      krow::with_thousands(r.rows_published).c_str(), krow::with_thousands(r.batches).c_str(),
      krow::with_thousands(r.decode_errors).c_str(), r.run_id.c_str());
  // Every outcome names its record, a run that failed before reading (exit 75 or 1) too.
  if (!r.artifact.empty())
    std::printf("  run summary: %s (the full record beside it, .json)\n", r.artifact.c_str());
  for (const auto& g : r.gates)
    std::printf("  gate %s %s (%s, %s): %s\n", g.passed ? "passed" : "FAILED", g.id.c_str(), krow::gate_type_name(g.type),
                g.severity == krow::GateSeverity::error ? "error" : "warn", g.finding.c_str());
  if (r.staged && r.status != krow::SyncStatus::failed)
    std::printf("  staged publish: %s\n", r.published ? "the run's rows and positions reached the tables together"
                                                        : "nothing of this run was published; the tables and positions "
                                                          "are as they were");
  for (const auto& e : r.errors) std::fprintf(stderr, "krow: error: %s\n", e.c_str());
  if (!r.lag_reporting_off.empty()) std::fprintf(stderr, "krow: note: %s\n", r.lag_reporting_off.c_str());
  return exit_code(r);
}

int cmd_status(const std::string& manifest_path, const std::string& format) {
  const auto manifest = load(manifest_path);
  auto warehouse = krow::open_warehouse(manifest.warehouse, manifest.name, krow::OpenMode::read_only);
  // Lag needs the cluster; status still answers from the warehouse when it is away.
  krow::ClusterView view;
  try {
    // Once per partition, although a recreated topic has positions under both its IDs.
    std::set<krow::TopicPartition> partitions;
    for (const auto& p : warehouse->positions(manifest.name)) partitions.insert({p.topic, p.partition});
    const std::vector<krow::TopicPartition> tps(partitions.begin(), partitions.end());
    krow::kafka::Client client(manifest.source, {});
    client.check_connection(std::chrono::seconds(std::min(manifest.source.connect_timeout_s, 10)));
    krow::kafka::Cluster cluster(client, std::chrono::seconds(10));
    std::set<std::string> names;
    for (const auto& tp : tps) names.insert(tp.topic);
    for (const auto& d : cluster.describe({names.begin(), names.end()}))
      if (!d.error) view.live_ids[d.name] = d.topic_id;
    for (const auto& o : cluster.offsets(tps))
      if (!o.error) view.last_stable[o.partition] = o.last_stable;
    view.reachable = true;
  } catch (const krow::Error& e) {
    view.why_not = e.what();
  }
  std::cout << krow::format_status(manifest, *warehouse, view, format == "json");
  return kExitOk;
}

// Reads a secret from the named environment variable or from standard input, never from
// the command line (where other users could see it in the process list).
std::string read_secret(const std::string& env_name, bool from_stdin, const char* what) {
  if (!env_name.empty()) {
    const char* v = std::getenv(env_name.c_str());
    if (!v || !*v)
      throw krow::Error(krow::ErrorClass::config,
                        std::string(what) + ": the environment variable " + env_name + " is not set");
    return v;
  }
  if (from_stdin) {
    std::string line;
    std::getline(std::cin, line);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    return line;
  }
  return {};
}

struct ConnectArgs {
  std::string name, bootstrap, protocol = "SASL_SSL", mechanism = "PLAIN", username, password_env, ca_file;
  bool password_stdin = false, no_verify = false;
  std::string registry_url, registry_username, registry_password_env, registry_ca_file;
  int timeout = 30;
};

int cmd_connect(const ConnectArgs& a) {
  krow::check_source_name(a.name);
  krow::SavedSource s;
  s.name = a.name;
  s.source.bootstrap_servers = a.bootstrap;
  s.source.security_protocol = a.protocol;
  s.source.sasl_mechanism = a.mechanism;
  s.source.username = a.username;
  s.source.password = krow::Secret(read_secret(a.password_env, a.password_stdin, "--password-env"));
  s.source.ca_file = a.ca_file;
  s.source.verify_certificates = !a.no_verify;
  s.source.connect_timeout_s = a.timeout;
  if (a.protocol.rfind("SASL_", 0) == 0 && (s.source.username.empty() || s.source.password.empty()))
    throw krow::Error(krow::ErrorClass::config, a.protocol + " needs --username and a secret from --password-env VAR "
                                                             "or --password-stdin");
  if (!a.registry_url.empty()) {
    const auto scheme = a.registry_url.find("://");
    if (scheme != std::string::npos &&
        a.registry_url.substr(scheme + 3, a.registry_url.find('/', scheme + 3) - scheme - 3).find('@') != std::string::npos)
      throw krow::Error(krow::ErrorClass::config, "--registry-url must not carry a user or password; use "
                                                  "--registry-username and --registry-password-env");
    s.registry.url = a.registry_url;
    while (!s.registry.url.empty() && s.registry.url.back() == '/') s.registry.url.pop_back();
    s.registry.username = a.registry_username;
    s.registry.password = krow::Secret(read_secret(a.registry_password_env, false, "--registry-password-env"));
    s.registry.ca_file = a.registry_ca_file;
  }
  const auto store = krow::SecretStore::open_default(/*create_key=*/true);
  const auto r = krow::connect_source(s, store);
  std::printf("%s source '%s': cluster %s, %zu topic(s) describable%s; credentials encrypted in %s\n",
              r.replaced ? "updated" : "saved", a.name.c_str(), r.cluster_id.c_str(), r.describable_topics,
              r.registry_checked ? ", schema registry key accepted" : "", store.dir().c_str());
  std::printf("use it in a manifest with:\n  source:\n    saved: %s\n", a.name.c_str());
  return kExitOk;
}

// Argument errors quote the arguments. A value given to a secret-looking option (someone
// typing `--password SECRET`, which krow refuses) is never printed back.
std::string without_secret_arguments(std::string message, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("-", 0) != 0) continue;
    const auto eq = arg.find('=');
    const std::string name = krow::lower_ascii(arg.substr(0, eq));
    const bool secretish = name.find("password") != std::string::npos || name.find("secret") != std::string::npos ||
                           name.find("token") != std::string::npos || name.find("key") != std::string::npos;
    if (!secretish) continue;
    const std::string value = eq != std::string::npos ? arg.substr(eq + 1) : (i + 1 < argc ? argv[i + 1] : "");
    if (value.empty()) continue;
    for (size_t at; (at = message.find(value)) != std::string::npos;) message.replace(at, value.size(), "<hidden>");
  }
  return message;
}

// Where `krow runs` looks: beside the manifest, for its sync; without one, in
// ./.krow/runs for every sync whose manifest is in the current directory.
struct RunsLocation {
  std::filesystem::path root;
  std::string sync_id;  // empty: every sync under root
  std::string searched() const { return (sync_id.empty() ? root : root / sync_id).string(); }
};

RunsLocation runs_location(const std::string& manifest_path) {
  // runs_root takes a manifest file: any name in the current directory gives its folder.
  if (manifest_path.empty()) return {krow::runs_root(std::filesystem::path(".") / "any.yaml"), {}};
  // Listing runs needs the sync ID, not the secrets: a variable the shell of a CI step that
  // only reads artifacts lacks must not stop it. Nothing is connected to, nothing printed.
  const auto manifest = krow::load_manifest(manifest_path, [](const char* name) -> const char* {
    const char* v = std::getenv(name);
    return v ? v : "unset";
  });
  return {krow::runs_root(manifest.file), manifest.name};
}

int cmd_runs(const std::string& manifest_path, int limit, const std::string& format) {
  const auto where = runs_location(manifest_path);
  auto runs = krow::list_runs(where.root, where.sync_id);
  const bool none = runs.empty();
  if (limit >= 0 && runs.size() > static_cast<size_t>(limit)) runs.resize(static_cast<size_t>(limit));
  if (none && format != "json") {
    if (manifest_path.empty())
      std::printf("no runs recorded in %s: each `krow sync` of a manifest in this folder writes one there; "
                  "for a manifest elsewhere, name it: `krow runs MANIFEST`\n", where.searched().c_str());
    else
      std::printf("no runs recorded in %s: each `krow sync %s` writes one there\n", where.searched().c_str(),
                  manifest_path.c_str());
    return kExitOk;
  }
  std::cout << krow::format_run_listings(runs, format == "json");
  return kExitOk;
}

int cmd_runs_show(const std::string& run_id, const std::string& manifest_path, const std::string& format) {
  const auto where = runs_location(manifest_path);
  const auto file = krow::find_run(where.root, where.sync_id, run_id);
  if (!file)
    throw krow::Error(krow::ErrorClass::config,
                      "no run '" + run_id + "' in " + where.searched() + "; list the recorded runs with `krow runs" +
                          (manifest_path.empty() ? " [MANIFEST]" : " " + manifest_path) + "`");
  const auto json = krow::read_text_file(*file);
  if (format == "json") {
    std::cout << json;
    return kExitOk;
  }
  // The summary written with the record; rendered again when it is missing (deleted by hand).
  auto md = file->parent_path() / (run_id + ".md");
  std::error_code ec;
  std::cout << (std::filesystem::is_regular_file(md, ec) ? krow::read_text_file(md) : krow::render_run_summary(json));
  return kExitOk;
}

int cmd_doctor(const std::string& manifest_path, const std::string& format) {
  const auto report = krow::run_doctor(manifest_path.empty() ? std::nullopt
                                                             : std::optional<std::filesystem::path>(manifest_path));
  std::cout << krow::format_doctor(report, format == "json") << std::flush;
  if (report.manifest_invalid) return kExitConfig;
  return report.ok() ? kExitOk : kExitFailed;
}

int cmd_sources() {
  const auto store = krow::SecretStore::open_default(/*create_key=*/false);
  for (const auto& name : store.names()) {
    const auto s = store.load(name);
    std::printf("%-20s %-45s cluster %-24s user %s%s\n", name.c_str(), s.source.bootstrap_servers.c_str(),
                s.cluster_id.c_str(), s.source.username.empty() ? "-" : s.source.username.c_str(),
                s.registry.configured() ? ("  registry " + s.registry.url).c_str() : "");
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  // A file size limit (ulimit -f) makes writes fail with EFBIG instead of killing krow with
  // SIGXFSZ: the warehouse then reports it like a full disk, naming the fix.
  std::signal(SIGXFSZ, SIG_IGN);
  // glibc gives each thread that allocates its own heap arena, and freed batch memory then
  // lingers in several of them; two arenas measured ~30 MiB less peak memory, same speed.
  mallopt(M_ARENA_MAX, 2);
  CLI::App app{
      "krow copies Kafka topics into a warehouse (" + krow::warehouse_kinds_text() +
      "),\none row per message, exactly once.\n"
      "Each sync reads every selected partition up to its last stable offset, commits rows and\n"
      "positions together, and resumes where the last committed batch ended.\n\n"
      "Exit codes: 0 success, 1 failure that needs a fix (the message names it), 2 partial\n"
      "(some tables stopped), 3 invalid manifest or arguments, 4 a quality gate of severity error\n"
      "failed, 75 failure that may pass by itself (an outage longer than the retries, or another\n"
      "sync of the same sync ID still running: run again later), 130 interrupted.\n"
      "Committed work is kept whatever the exit code (with quality.publish: staged, a run's rows\n"
      "are committed only once its gates pass)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] {
    // The libraries krow runs on: a bug report wants them.
    std::string text = "krow 0.1.0\n  librdkafka " + krow::kafka::librdkafka_version();
    for (const auto* engine : krow::engines())
      for (const auto& [library, version] : engine->library_versions())
        text += "\n  " + library + " " + version;
    return text + "\n  libcurl " + krow::libcurl_version();
  });

  std::string manifest_path, format = "text";
  bool quiet = false, verbose = false;

  auto* plan = app.add_subcommand("plan", "Show what a sync would do: topics -> tables, partitions, positions, "
                                          "last stable offsets and messages to read");
  plan->add_option("manifest", manifest_path, "Manifest file (YAML)")->required()->check(CLI::ExistingFile);
  plan->add_option("--format", format, "Output format")->check(CLI::IsMember({"text", "md", "json"}));
  BoundFlags plan_bounds;
  plan_bounds.add_to(plan);

  auto* schema = app.add_subcommand(
      "schema", "Show the typed columns each table would get from its topic's latest value schema in the registry "
                "(subject <topic>-value), with their types in the manifest's warehouse");
  schema->add_option("manifest", manifest_path, "Manifest file (YAML)")->required()->check(CLI::ExistingFile);
  schema->add_option("--format", format, "Output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();

  auto* sync = app.add_subcommand("sync", "Copy every selected topic up to its last stable offset into the warehouse");
  sync->alias("run");
  sync->add_option("manifest", manifest_path, "Manifest file (YAML)")->required()->check(CLI::ExistingFile);
  sync->add_flag("-q,--quiet", quiet, "No progress display (it is shown only on a terminal anyway)");
  sync->add_flag("-v,--verbose", verbose, "Show Kafka client warnings and retries");
  BoundFlags sync_bounds;
  sync_bounds.add_to(sync);
  sync->footer(
      "Bounds (flags here, or `bounds:` in the manifest) stop a run early: each partition is read up to the\n"
      "smallest of its bounds, never past its last stable offset, and its position ends there, so the next\n"
      "sync continues exactly where this one stopped.");

  auto* status = app.add_subcommand("status", "Show per table and partition the stored position, last stable offset and lag, the tables the last run stopped (with their fix), and recent runs");
  status->add_option("manifest", manifest_path, "Manifest file (YAML)")->required()->check(CLI::ExistingFile);
  status->add_option("--format", format, "Output format")->check(CLI::IsMember({"text", "json"}));

  bool full = false;
  std::vector<std::string> resync_tables;
  auto* resync = app.add_subcommand(
      "resync", "Re-read and re-decode from the log start (as far as Kafka retains), replacing rows with the same id; "
                "used after adding registry credentials. Never removes rows");
  resync->add_option("manifest", manifest_path, "Manifest file (YAML)")->required()->check(CLI::ExistingFile);
  resync->add_flag("--full", full, "Required: re-read everything the sync covers")->required();
  resync->add_option("--table", resync_tables, "Only this table (repeatable; default: every table)");
  resync->add_flag("-q,--quiet", quiet, "No progress display");
  resync->add_flag("-v,--verbose", verbose, "Show Kafka client warnings and retries");

  ConnectArgs ca;
  auto* connect = app.add_subcommand(
      "connect", "Check a cluster key (and a registry key) and save the source, encrypted, bound to its cluster ID. "
                 "Secrets are read from environment variables or standard input, never from arguments.");
  connect->add_option("name", ca.name, "Name to save the source under (used as `source: {saved: NAME}`)")->required();
  connect->add_option("--bootstrap-servers", ca.bootstrap, "host:port, e.g. pkc-xxxxx.<region>.<cloud>.confluent.cloud:9092")->required();
  connect->add_option("--security-protocol", ca.protocol, "PLAINTEXT, SSL, SASL_SSL or SASL_PLAINTEXT")
      ->check(CLI::IsMember({"PLAINTEXT", "SSL", "SASL_SSL", "SASL_PLAINTEXT"}))->capture_default_str();
  connect->add_option("--sasl-mechanism", ca.mechanism, "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
      ->check(CLI::IsMember({"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}))->capture_default_str();
  connect->add_option("--username", ca.username, "Cluster API key");
  connect->add_option("--password-env", ca.password_env, "Environment variable holding the cluster API secret");
  connect->add_flag("--password-stdin", ca.password_stdin, "Read the cluster API secret from standard input");
  connect->add_option("--ca-file", ca.ca_file, "PEM CA bundle for the cluster (default: system CAs)")
      ->check(CLI::ExistingFile);
  connect->add_flag("--no-verify-certificates", ca.no_verify, "Disable TLS peer verification (not recommended)");
  connect->add_option("--registry-url", ca.registry_url, "Schema Registry URL (https://...)");
  connect->add_option("--registry-username", ca.registry_username, "Schema Registry API key");
  connect->add_option("--registry-password-env", ca.registry_password_env, "Environment variable holding the registry API secret");
  connect->add_option("--registry-ca-file", ca.registry_ca_file, "PEM CA bundle for the registry")
      ->check(CLI::ExistingFile);
  connect->add_option("--timeout", ca.timeout, "Seconds to wait for the cluster")->capture_default_str();

  std::string doctor_manifest;
  auto* doctor = app.add_subcommand(
      "doctor", "Check the environment, connectivity, ACLs and the warehouse, one line each with the fix for what "
                "fails. Reads only: writes nothing anywhere");
  doctor->add_option("manifest", doctor_manifest,
                     "Manifest file (YAML). Without it only the libraries are checked")
      ->check(CLI::ExistingFile);
  doctor->add_option("--format", format, "Output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  std::string warehouse_checks;
  for (const auto* e : krow::engines())
    warehouse_checks += (warehouse_checks.empty() ? "" : ";\n  ") + e->doctor_checks;
  doctor->footer(
      "Checks: library versions; each ${VAR} the manifest uses is set (values never shown); the\n"
      "manifest loads; each bootstrap server resolves, accepts TCP and (SSL, SASL_SSL) completes\n"
      "TLS with the configured CA; the key is accepted; per selected topic DESCRIBE and READ (a\n"
      "real fetch); READ on the lag group krow-<sync name>; the schema registry (TLS, key, one\n"
      "subject); the warehouse:\n  " +
      warehouse_checks +
      ";\nand its free space against the offsets to read. Each network step waits at most\n"
      "source.connect_timeout (10 s at most). A check that makes later ones meaningless skips\n"
      "them, and the \"not checked:\" line says which and why.\n"
      "Exit codes: 0 every check passed, 1 some failed (each names its fix), 3 the manifest is\n"
      "invalid: it does not load, or plan and sync would refuse it.\n");

  auto* sources = app.add_subcommand("sources", "List saved sources (never their secrets)");

  std::string runs_manifest, run_id;
  int runs_limit = 20;
  auto* runs = app.add_subcommand(
      "runs", "List recent runs, newest first, from the run artifacts written beside the manifest "
              "(.krow/runs/<sync id>/<run id>.json and .md)");
  runs->add_option("manifest", runs_manifest,
                   "Manifest file (YAML): list its sync's runs. Without it: every sync's runs in ./.krow/runs, "
                   "i.e. those of the manifests in the current directory")
      ->check(CLI::ExistingFile);
  runs->add_option("--limit", runs_limit, "How many runs to list (newest first)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  runs->add_option("--format", format, "Output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  runs->require_subcommand(0, 1);
  runs->footer(
      "Each run writes its full record (<run id>.json: counts, bytes, phases, boundaries per partition,\n"
      "gaps, errors, gates) and a short summary (<run id>.md) to <manifest dir>/.krow/runs/<sync id>/.\n"
      "The manifest's secrets are not needed to list runs, and no artifact ever holds one.\n");
  auto* runs_show = runs->add_subcommand("show", "Print one run's summary (or its full JSON record with --format json)");
  runs_show->add_option("run_id", run_id, "Run ID, as `krow runs` and `krow sync` print it")->required();
  runs_show->add_option("manifest", runs_manifest, "Manifest file (YAML); without it, ./.krow/runs is searched")
      ->check(CLI::ExistingFile);
  runs_show->add_option("--format", format, "text: the .md summary; json: the .json record")
      ->check(CLI::IsMember({"text", "json"}))->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitConfig;  // --help
    std::fprintf(stderr, "krow: %s\nRun with --help for more information.\n",
                 without_secret_arguments(e.what(), argc, argv).c_str());
    return kExitConfig;
  }

  try {
    if (*plan) return cmd_plan(manifest_path, format, plan_bounds);
    if (*schema) return cmd_schema(manifest_path, format);
    if (*sync) return cmd_sync(manifest_path, quiet, verbose, &sync_bounds);
    if (*status) return cmd_status(manifest_path, format);
    if (*resync) return cmd_sync(manifest_path, quiet, verbose, nullptr, /*full_resync=*/true, resync_tables);
    if (*connect) return cmd_connect(ca);
    if (*sources) return cmd_sources();
    if (*doctor) return cmd_doctor(doctor_manifest, format);
    if (*runs_show) return cmd_runs_show(run_id, runs_manifest, format);
    if (*runs) return cmd_runs(runs_manifest, runs_limit, format);
  } catch (const krow::Error& e) {
    std::fprintf(stderr, "krow: %s\n", e.what());
    return exit_code(e.error_class());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "krow: unexpected error: %s\n", e.what());
    return kExitFailed;
  }
  return kExitFailed;
}
