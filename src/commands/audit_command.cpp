// `krow audit MANIFEST [--tables T,...] [--deep | --sample N] [--format text|json]`: proves
// each table against Kafka (audit/audit.hpp); exits 5 when one differs.

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "audit/audit.hpp"
#include "commands/command.hpp"
#include "commands/command_support.hpp"
#include "engines/engines.hpp"

namespace krow::commands {

namespace {

class AuditCommand final : public Command {
 public:
  explicit AuditCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "audit",
            "Prove each table against Kafka: every message Kafka retains below the stored position "
            "present exactly once, with the right id (counted in the table, never taken from "
            "krow's "
            "records); --deep or --sample also decode the messages again and compare every column. "
            "Reads only. Exits 0 when every table is proven, 5 when one differs (each difference "
            "named), 1 or 75 when the audit could not be done")) {
    app_->add_option("manifest", manifest_path_, "Manifest file (YAML)")
        ->required()
        ->check(CLI::ExistingFile);
    app_->add_option(
            "--tables,--table", options_.tables,
            "Only these tables (or topics), comma-separated or repeated; default: every table")
        ->delimiter(',');
    auto* deep =
        app_->add_flag("--deep", deep_,
                       "Also read every message again, decode it and compare every contract column "
                       "of its row (reads the whole retained range from Kafka)");
    app_->add_option(
            "--sample", options_.sample,
            "Also compare N messages with their rows, in runs of 100 consecutive offsets at random "
            "places of the audited ranges")
        ->check(CLI::PositiveNumber)
        ->excludes(deep);
    app_->add_option("--seed", options_.seed,
                     "Where --sample's runs fall (default: different each time)");
    app_->add_option("--format", format_, "Output format")->check(CLI::IsMember({"text", "json"}));
    app_->add_flag("-q,--quiet", quiet_, "No progress lines on standard error");
  }

  int run() override {
    const auto manifest = load_manifest_and_source(manifest_path_);
    if (deep_)
      options_.depth = audit::Options::Depth::deep;
    else if (options_.sample > 0)
      options_.depth = audit::Options::Depth::sample;
    if (!quiet_ && isatty(STDERR_FILENO))
      options_.progress = [](const std::string& line) {
        std::fprintf(stderr, "krow audit: %s\n", line.c_str());
      };
    auto warehouse = open_warehouse(manifest.warehouse, manifest.name, OpenMode::read_only);
    const auto report = audit::run(manifest, *warehouse, options_);
    std::cout << (format_ == "json" ? audit::format_json(report) : audit::format_text(report));
    return report.clean() ? kExitOk : kExitAuditFailed;
  }

 private:
  std::string manifest_path_;
  audit::Options options_;
  bool deep_ = false;
  bool quiet_ = false;
  std::string format_ = "text";
};

}  // namespace

std::unique_ptr<Command> add_audit(CLI::App& app) {
  return std::make_unique<AuditCommand>(app);
}

}  // namespace krow::commands
