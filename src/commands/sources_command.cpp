// `krow sources`: the sources saved by `krow connect`, never their secrets.

#include <cstdio>
#include <string>

#include "commands/command.hpp"
#include "secrets/secret_store.hpp"

namespace krow::commands {

namespace {

class SourcesCommand final : public Command {
 public:
  explicit SourcesCommand(CLI::App& app)
      : Command(app.add_subcommand("sources", "List saved sources (never their secrets)")) {}

  int run() override {
    const auto store = SecretStore::open_default(/*create_key=*/false);
    for (const auto& name : store.names()) {
      const auto s = store.load(name);
      std::printf("%-20s %-45s cluster %-24s user %s%s\n", name.c_str(),
                  s.source.bootstrap_servers.c_str(), s.cluster_id.c_str(),
                  s.source.username.empty() ? "-" : s.source.username.c_str(),
                  s.registry.configured() ? ("  registry " + s.registry.url).c_str() : "");
    }
    return kExitOk;
  }
};

}  // namespace

std::unique_ptr<Command> add_sources(CLI::App& app) {
  return std::make_unique<SourcesCommand>(app);
}

}  // namespace krow::commands
