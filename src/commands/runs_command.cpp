// `krow runs [MANIFEST] [--limit N] [--format text|json]` and `krow runs show RUN_ID
// [MANIFEST]`: the runs recorded beside the manifests (report/run_artifacts).

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "commands/command.hpp"
#include "manifest/manifest.hpp"
#include "report/run_artifacts.hpp"
#include "report/run_summary.hpp"

namespace krow::commands {

namespace {

// Where `krow runs` looks: beside the manifest, for its sync; without one, in
// ./.krow/runs for every sync whose manifest is in the current directory.
struct RunsLocation {
  std::filesystem::path root;
  std::string sync_id;  // empty: every sync under root
  std::string searched() const { return (sync_id.empty() ? root : root / sync_id).string(); }
};

RunsLocation runs_location(const std::string& manifest_path) {
  // runs_root takes a manifest file: any name in the current directory gives its folder.
  if (manifest_path.empty()) return {runs_root(std::filesystem::path(".") / "any.yaml"), {}};
  // Listing runs needs the sync ID, not the secrets: a variable the shell of a CI step that
  // only reads artifacts lacks must not stop it. Nothing is connected to, nothing printed.
  const auto manifest = load_manifest(manifest_path, [](const char* name) -> const char* {
    const char* v = std::getenv(name);
    return v ? v : "unset";
  });
  return {runs_root(manifest.file), manifest.name};
}

class RunsCommand final : public Command {
 public:
  explicit RunsCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "runs",
            "List recent runs, newest first, from the run artifacts written beside "
            "the manifest (.krow/runs/<sync id>/<run id>.json and .md)")) {
    app_->add_option("manifest", manifest_path_,
                     "Manifest file (YAML): list its sync's runs. Without it: every sync's runs in "
                     "./.krow/runs, i.e. those of the manifests in the current directory")
        ->check(CLI::ExistingFile);
    app_->add_option("--limit", limit_, "How many runs to list (newest first)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app_->add_option("--format", format_, "Output format")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    app_->require_subcommand(0, 1);
    // One literal per line of the help text.
    // clang-format off
    app_->footer(
        "Each run writes its full record (<run id>.json: counts, bytes, phases, boundaries per partition,\n"
        "gaps, errors, gates) and a short summary (<run id>.md) to <manifest dir>/.krow/runs/<sync id>/.\n"
        "The manifest's secrets are not needed to list runs, and no artifact ever holds one.\n");
    // clang-format on
    show_ = app_->add_subcommand(
        "show", "Print one run's summary (or its full JSON record with --format json)");
    show_->add_option("run_id", run_id_, "Run ID, as `krow runs` and `krow sync` print it")
        ->required();
    show_
        ->add_option("manifest", manifest_path_,
                     "Manifest file (YAML); without it, ./.krow/runs is searched")
        ->check(CLI::ExistingFile);
    show_->add_option("--format", format_, "text: the .md summary; json: the .json record")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
  }

  int run() override { return *show_ ? show() : list(); }

 private:
  int list() const {
    const auto where = runs_location(manifest_path_);
    auto runs = list_runs(where.root, where.sync_id);
    const bool none = runs.empty();
    if (limit_ >= 0 && runs.size() > static_cast<size_t>(limit_))
      runs.resize(static_cast<size_t>(limit_));
    if (none && format_ != "json") {
      if (manifest_path_.empty())
        std::printf(
            "no runs recorded in %s: each `krow sync` of a manifest in this folder writes one "
            "there; for a manifest elsewhere, name it: `krow runs MANIFEST`\n",
            where.searched().c_str());
      else
        std::printf("no runs recorded in %s: each `krow sync %s` writes one there\n",
                    where.searched().c_str(), manifest_path_.c_str());
      return kExitOk;
    }
    std::cout << format_run_listings(runs, format_ == "json");
    return kExitOk;
  }

  int show() const {
    const auto where = runs_location(manifest_path_);
    const auto file = find_run(where.root, where.sync_id, run_id_);
    if (!file)
      throw Error(ErrorClass::config,
                  "no run '" + run_id_ + "' in " + where.searched() +
                      "; list the recorded runs with `krow runs" +
                      (manifest_path_.empty() ? " [MANIFEST]" : " " + manifest_path_) + "`");
    const auto json = read_text_file(*file);
    if (format_ == "json") {
      std::cout << json;
      return kExitOk;
    }
    // The summary written with the record; rendered again when it is missing (deleted by hand).
    auto md = file->parent_path() / (run_id_ + ".md");
    std::error_code ec;
    std::cout << (std::filesystem::is_regular_file(md, ec) ? read_text_file(md)
                                                           : render_run_summary(json));
    return kExitOk;
  }

  std::string manifest_path_;  // `runs` and `runs show` alike
  std::string format_ = "text";
  std::string run_id_;
  int limit_ = 20;
  CLI::App* show_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> add_runs(CLI::App& app) {
  return std::make_unique<RunsCommand>(app);
}

}  // namespace krow::commands
