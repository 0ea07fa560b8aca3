// `krow status MANIFEST [--format text|json]`: per table and partition the stored position,
// the last stable offset and the lag; the tables the last run stopped; recent runs.

#include <iostream>
#include <string>

#include "commands/command.hpp"
#include "commands/command_support.hpp"
#include "engines/engines.hpp"
#include "report/status.hpp"

namespace krow::commands {

namespace {

class StatusCommand final : public Command {
 public:
  explicit StatusCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "status",
            "Show per table and partition the stored position, last stable offset and lag, "
            "the tables the last run stopped (with their fix), and recent runs")) {
    app_->add_option("manifest", manifest_path_, "Manifest file (YAML)")
        ->required()
        ->check(CLI::ExistingFile);
    app_->add_option("--format", format_, "Output format")->check(CLI::IsMember({"text", "json"}));
  }

  int run() override {
    const auto manifest = load_manifest_and_source(manifest_path_);
    auto warehouse = open_warehouse(manifest.warehouse, manifest.name, OpenMode::read_only);
    // Lag needs the cluster; status still answers from the warehouse when it is away.
    const auto cluster = view_cluster(manifest, *warehouse);
    std::cout << format_status(manifest, *warehouse, cluster, format_ == "json");
    return kExitOk;
  }

 private:
  std::string manifest_path_;
  std::string format_ = "text";
};

}  // namespace

std::unique_ptr<Command> add_status(CLI::App& app) {
  return std::make_unique<StatusCommand>(app);
}

}  // namespace krow::commands
