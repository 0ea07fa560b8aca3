// `krow schema MANIFEST [--format text|json]`: the typed columns each table would get from its
// topic's latest value schema. The cluster or the registry unreachable is a failure to fix
// here (exit 1), not one to wait for: nothing is being copied.

#include <cstdio>
#include <iostream>
#include <string>

#include "commands/command.hpp"
#include "commands/command_support.hpp"
#include "engines/engines.hpp"
#include "plan/plan.hpp"
#include "plan/typed_columns.hpp"
#include "report/schema_report.hpp"

namespace krow::commands {

namespace {

class SchemaCommand final : public Command {
 public:
  explicit SchemaCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "schema",
            "Show the typed columns each table would get from its topic's latest value schema in "
            "the registry (subject <topic>-value), with their types in the manifest's warehouse")) {
    app_->add_option("manifest", manifest_path_, "Manifest file (YAML)")
        ->required()
        ->check(CLI::ExistingFile);
    app_->add_option("--format", format_, "Output format")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
  }

  int run() override {
    const auto manifest = load_manifest_and_source(manifest_path_);
    const bool json = format_ == "json";
    auto warehouse = open_warehouse(manifest.warehouse, manifest.name, OpenMode::read_only);
    columns::ColumnOptions options;
    options.tagged_unions = manifest.registry.tagged_unions;
    try {
      if (!manifest.registry.configured()) {
        Plan none;
        none.sync_id = manifest.name;
        none.warehouse = warehouse->describe();
        none.schema = manifest.warehouse.schema;
        std::cout << format_schema_report(make_schema_report(none, nullptr, *warehouse, options),
                                          json);
        return kExitOk;
      }
      const auto plan = connect_and_plan(*warehouse, manifest);
      const auto registry = open_registry(manifest, "schema");
      const auto report = make_schema_report(plan, registry.get(), *warehouse, options);
      std::cout << format_schema_report(report, json);
      return report.failed() ? kExitFailed : kExitOk;
    } catch (const Error& e) {
      if (e.error_class() != ErrorClass::transient) throw;
      std::fprintf(stderr, "krow: %s\n", e.what());
      return kExitFailed;
    }
  }

 private:
  std::string manifest_path_;
  std::string format_ = "text";
};

}  // namespace

std::unique_ptr<Command> add_schema(CLI::App& app) {
  return std::make_unique<SchemaCommand>(app);
}

}  // namespace krow::commands
