#pragma once
// krow's commands: one file each, thin. A command declares its subcommand, options and help
// text on the app (CLI11), and once the command line is parsed it loads the manifest, calls
// the layer that does the work (plan, report, sync, doctor, connect), prints, and returns its
// exit code. main.cpp adds them in the order `krow --help` lists them and runs the one chosen.
//
// Thread: the main thread only.

#include <CLI/CLI.hpp>
#include <memory>

#include "util/error.hpp"

namespace krow::commands {

// Exit codes (`krow --help` and the README list them).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;      // a failure that needs a fix (the message names it)
inline constexpr int kExitPartial = 2;     // some tables stopped
inline constexpr int kExitConfig = 3;      // invalid manifest or arguments
inline constexpr int kExitGateFailed = 4;  // a quality gate of severity error failed
inline constexpr int kExitAuditFailed =
    5;  // `krow audit` / `reconcile`: a table differs from Kafka
// EX_TEMPFAIL of sysexits.h: schedulers know it as "try again" (an outage longer than the
// retries, or another sync of the same sync ID still running).
inline constexpr int kExitRetryLater = 75;
inline constexpr int kExitInterrupted = 130;

// The exit code of a command that stopped on an error of class `c`.
inline int exit_code(ErrorClass c) {
  switch (c) {
    case ErrorClass::config:
      return kExitConfig;
    case ErrorClass::transient:
      return kExitRetryLater;
    default:
      return kExitFailed;
  }
}

class Command {
 public:
  // `app` is the command's subcommand; the app that owns it outlives the command.
  explicit Command(CLI::App* app) : app_(app) {}
  virtual ~Command() = default;
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;

  // Whether the parsed command line chose this command.
  bool chosen() const { return static_cast<bool>(*app_); }

  // Does the command and prints what it found; returns the exit code. Throws Error for what
  // stops it (main prints it and maps its class to an exit code).
  virtual int run() = 0;

 protected:
  CLI::App* app_;
};

// Each adds its subcommand (with its options) to `app`; the command they return reads them.
std::unique_ptr<Command> add_plan(CLI::App& app);
std::unique_ptr<Command> add_schema(CLI::App& app);
std::unique_ptr<Command> add_sync(CLI::App& app);  // `sync`, alias `run`
std::unique_ptr<Command> add_status(CLI::App& app);
std::unique_ptr<Command> add_audit(CLI::App& app);
std::unique_ptr<Command> add_reconcile(CLI::App& app);
std::unique_ptr<Command> add_resync(CLI::App& app);
std::unique_ptr<Command> add_connect(CLI::App& app);
std::unique_ptr<Command> add_doctor(CLI::App& app);
std::unique_ptr<Command> add_sources(CLI::App& app);
std::unique_ptr<Command> add_runs(CLI::App& app);  // `runs` and `runs show`
std::unique_ptr<Command> add_serve(CLI::App& app);

}  // namespace krow::commands
