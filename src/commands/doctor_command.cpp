// `krow doctor [MANIFEST] [--format text|json]`: checks the environment, connectivity, ACLs
// and the warehouse (doctor/doctor), one line each with the fix for what fails.

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "commands/command.hpp"
#include "doctor/doctor.hpp"
#include "engines/engines.hpp"

namespace krow::commands {

namespace {

class DoctorCommand final : public Command {
 public:
  explicit DoctorCommand(CLI::App& app)
      : Command(app.add_subcommand("doctor",
                                   "Check the environment, connectivity, ACLs and the warehouse, "
                                   "one line each with the fix for what fails. Reads only: "
                                   "writes nothing anywhere")) {
    app_->add_option("manifest", manifest_path_,
                     "Manifest file (YAML). Without it only the libraries are checked")
        ->check(CLI::ExistingFile);
    app_->add_option("--format", format_, "Output format")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    std::string warehouse_checks;
    for (const auto* e : engines())
      warehouse_checks += (warehouse_checks.empty() ? "" : ";\n  ") + e->doctor_checks;
    // One literal per line of the help text.
    // clang-format off
    app_->footer(
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
    // clang-format on
  }

  int run() override {
    const auto report =
        run_doctor(manifest_path_.empty() ? std::nullopt
                                          : std::optional<std::filesystem::path>(manifest_path_));
    std::cout << format_doctor(report, format_ == "json") << std::flush;
    if (report.manifest_invalid) return kExitConfig;
    return report.ok() ? kExitOk : kExitFailed;
  }

 private:
  std::string manifest_path_;
  std::string format_ = "text";
};

}  // namespace

std::unique_ptr<Command> add_doctor(CLI::App& app) {
  return std::make_unique<DoctorCommand>(app);
}

}  // namespace krow::commands
