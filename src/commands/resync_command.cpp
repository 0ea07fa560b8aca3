// `krow resync MANIFEST --full [--table T]... [-q] [-v]`: re-reads and re-decodes from the log
// start, replacing rows with the same id; never removes rows.

#include <string>
#include <vector>

#include "commands/command.hpp"
#include "commands/command_support.hpp"
#include "commands/sync_command.hpp"

namespace krow::commands {

namespace {

class ResyncCommand final : public Command {
 public:
  explicit ResyncCommand(CLI::App& app)
      : Command(app.add_subcommand("resync",
                                   "Re-read and re-decode from the log start (as far as Kafka "
                                   "retains), replacing rows with the same id; used after "
                                   "adding registry credentials. Never removes rows")) {
    app_->add_option("manifest", manifest_path_, "Manifest file (YAML)")
        ->required()
        ->check(CLI::ExistingFile);
    app_->add_flag("--full", full_, "Required: re-read everything the sync covers")->required();
    app_->add_option("--table", tables_, "Only this table (repeatable; default: every table)");
    app_->add_flag("-q,--quiet", quiet_, "No progress display");
    app_->add_flag("-v,--verbose", verbose_, "Show Kafka client warnings and retries");
  }

  int run() override {
    const auto manifest = load_manifest_and_source(manifest_path_);
    SyncOptions options;
    options.progress = !quiet_;
    options.verbose = verbose_;
    options.full_resync = true;
    options.only_tables = tables_;
    return run_and_print(manifest, options);
  }

 private:
  std::string manifest_path_;
  bool full_ = false;
  std::vector<std::string> tables_;
  bool quiet_ = false;
  bool verbose_ = false;
};

}  // namespace

std::unique_ptr<Command> add_resync(CLI::App& app) {
  return std::make_unique<ResyncCommand>(app);
}

}  // namespace krow::commands
