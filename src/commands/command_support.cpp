#include "commands/command_support.hpp"

#include <algorithm>
#include <chrono>

#include "manifest/saved_source.hpp"
#include "util/error.hpp"

namespace krow::commands {

Manifest load_manifest_and_source(const std::string& path) {
  auto manifest = load_manifest(path);
  resolve_saved_source(manifest);
  return manifest;
}

std::unique_ptr<SchemaRegistry> open_registry(const Manifest& manifest,
                                              const std::string& command) {
  if (!manifest.registry.configured()) return nullptr;
  auto registry = std::make_unique<SchemaRegistry>(
      manifest.registry,
      std::chrono::seconds(std::clamp(manifest.source.connect_timeout_s, 5, 60)));
  registry->set_when_failing(
      "check registry.url (and registry.ca_file) and that the registry is up, then run `krow " +
      command + "` again");
  return registry;
}

void BoundFlags::add_to(CLI::App* command) {
  for (const auto& s : bound_settings()) {
    auto* o = command->add_option(
        s.flag, values_[s.key],
        std::string(s.description) + " (overrides bounds." + s.key + " of the manifest)");
    o->type_name(s.value_name);
    options_.emplace_back(&s, o);
  }
}

void BoundFlags::apply(BoundsConfig& bounds) const {
  for (const auto& [s, o] : options_) {
    if (o->count() == 0) continue;
    if (const auto problem = set_bound(bounds, s->key, values_.at(s->key)); !problem.empty())
      throw Error(ErrorClass::config, std::string(s->flag) + ": " + problem);
  }
}

}  // namespace krow::commands
