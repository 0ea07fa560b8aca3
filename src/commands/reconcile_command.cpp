// `krow reconcile MANIFEST [--tables T,...] [--apply] [--format text|json]`: compares each
// latest_by_key table with its topic's state, key by key (audit/reconcile.hpp); with --apply,
// mends it in one transaction with the positions.

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "audit/reconcile.hpp"
#include "commands/command.hpp"
#include "commands/command_support.hpp"
#include "engines/engines.hpp"

namespace krow::commands {

namespace {

class ReconcileCommand final : public Command {
 public:
  explicit ReconcileCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "reconcile",
            "Compare each latest_by_key table with its topic's state, key by key: rows whose key "
            "is gone from the topic (a tombstone compacted away before krow read it), rows that "
            "are not their key's newest message, keys without a row, keys with two rows. Reports "
            "only, unless --apply. Exits 0 when every table matches (or was mended), 5 when one "
            "differs")) {
    app_->add_option("manifest", manifest_path_, "Manifest file (YAML)")
        ->required()
        ->check(CLI::ExistingFile);
    app_->add_option("--tables,--table", options_.tables,
                     "Only these tables (or topics), comma-separated or repeated; default: every "
                     "latest_by_key table")
        ->delimiter(',');
    app_->add_flag(
        "--apply", options_.apply,
        "Mend the differences: write each affected key's newest message again and delete "
        "the rows of gone keys, in one transaction with the positions (takes the sync's "
        "lock, as a sync does)");
    app_->add_option("--format", format_, "Output format")->check(CLI::IsMember({"text", "json"}));
    app_->add_flag("-q,--quiet", quiet_, "No progress lines on standard error");
  }

  int run() override {
    const auto manifest = load_manifest_and_source(manifest_path_);
    if (!quiet_ && isatty(STDERR_FILENO))
      options_.progress = [](const std::string& line) {
        std::fprintf(stderr, "krow reconcile: %s\n", line.c_str());
      };
    auto warehouse = open_warehouse(manifest.warehouse, manifest.name,
                                    options_.apply ? OpenMode::write : OpenMode::read_only);
    const auto report = audit::reconcile(manifest, *warehouse, options_);
    std::cout << (format_ == "json" ? audit::format_json(report) : audit::format_text(report));
    return report.clean() ? kExitOk : kExitAuditFailed;
  }

 private:
  std::string manifest_path_;
  audit::ReconcileOptions options_;
  bool quiet_ = false;
  std::string format_ = "text";
};

}  // namespace

std::unique_ptr<Command> add_reconcile(CLI::App& app) {
  return std::make_unique<ReconcileCommand>(app);
}

}  // namespace krow::commands
