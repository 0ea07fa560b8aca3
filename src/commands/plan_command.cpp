// `krow plan MANIFEST [--format text|md|json] [bound flags]`: what a sync would do.

#include <chrono>
#include <iostream>
#include <string>

#include "commands/command.hpp"
#include "commands/command_support.hpp"
#include "engines/engines.hpp"
#include "plan/plan.hpp"
#include "plan/table_designs.hpp"
#include "plan/typed_columns.hpp"
#include "report/plan_report.hpp"
#include "sync/json_sample.hpp"

namespace krow::commands {

namespace {

class PlanCommand final : public Command {
 public:
  explicit PlanCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "plan",
            "Show what a sync would do: topics -> tables, partitions, positions, "
            "last stable offsets and messages to read")) {
    app_->add_option("manifest", manifest_path_, "Manifest file (YAML)")
        ->required()
        ->check(CLI::ExistingFile);
    app_->add_option("--format", format_, "Output format")
        ->check(CLI::IsMember({"text", "md", "json"}));
    bounds_.add_to(app_);
  }

  int run() override {
    auto manifest = load_manifest_and_source(manifest_path_);
    bounds_.apply(manifest.bounds);
    auto warehouse = open_warehouse(manifest.warehouse, manifest.name, OpenMode::read_only);
    auto plan = connect_and_plan(*warehouse, manifest);
    if (wants_typed_columns(plan)) {
      const auto registry = open_registry(manifest, "plan");
      // `columns: infer` tables sample what the sync would read, as it would.
      plan_typed_columns(plan, registry.get(), *warehouse, manifest.registry.tagged_unions,
                         [&](const TopicPlan& t) {
                           return sample_json_values(
                               manifest.source, t, kInferSample,
                               std::chrono::seconds(manifest.source.retry_timeout_s));
                         });
    }
    plan_table_designs(plan, *warehouse, warehouse_capabilities(manifest.warehouse.type));
    const auto f = format_ == "json" ? PlanFormat::json
                   : format_ == "md" ? PlanFormat::md
                                     : PlanFormat::text;
    std::cout << format_plan(plan, f);
    return kExitOk;
  }

 private:
  std::string manifest_path_;
  std::string format_ = "text";
  BoundFlags bounds_;
};

}  // namespace

std::unique_ptr<Command> add_plan(CLI::App& app) {
  return std::make_unique<PlanCommand>(app);
}

}  // namespace krow::commands
