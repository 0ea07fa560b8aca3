// krow: copy Kafka topics into a warehouse, one row per message.
//
// main wires the commands (one file each in this folder) into CLI11, parses the command line
// and runs the command chosen. Exit codes (commands/command.hpp): 0 success, 1 failure that
// needs a fix, 2 partial (some tables stopped), 3 invalid manifest or arguments, 4 a quality
// gate of severity error failed, 5 `krow audit` found a table that differs from Kafka, 75
// failure that may pass by itself (an outage longer than
// the retries, or another sync of the same sync ID still running: run again later), 130
// interrupted.

#include <malloc.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "commands/command.hpp"
#include "engines/engines.hpp"
#include "http/curl_info.hpp"
#include "kafka/library.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace {

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
      "failed, 5 `krow audit` found a table that differs from Kafka, 75 failure that may pass by\n"
      "itself (an outage longer than the retries, or another sync of the same sync ID still\n"
      "running: run again later), 130 interrupted.\n"
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

  // In the order `krow --help` lists them.
  namespace commands = krow::commands;
  std::vector<std::unique_ptr<commands::Command>> all;
  for (auto* add :
       {commands::add_plan, commands::add_schema, commands::add_sync, commands::add_status,
        commands::add_audit, commands::add_reconcile, commands::add_resync, commands::add_connect,
        commands::add_doctor, commands::add_sources, commands::add_runs, commands::add_serve})
    all.push_back(add(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0)
      return app.exit(e) == 0 ? commands::kExitOk : commands::kExitConfig;  // --help
    std::fprintf(stderr, "krow: %s\nRun with --help for more information.\n",
                 without_secret_arguments(e.what(), argc, argv).c_str());
    return commands::kExitConfig;
  }

  try {
    for (const auto& command : all)
      if (command->chosen()) return command->run();
  } catch (const krow::Error& e) {
    std::fprintf(stderr, "krow: %s\n", e.what());
    return commands::exit_code(e.error_class());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "krow: unexpected error: %s\n", e.what());
    return commands::kExitFailed;
  }
  return commands::kExitFailed;
}
