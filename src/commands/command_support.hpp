#pragma once
// What several commands share: the manifest with its saved source, the schema registry with
// the fix it names when it keeps failing, and the bound flags of `plan` and `sync`.
//
// Thread: the main thread only.

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "manifest/bounds.hpp"
#include "manifest/manifest.hpp"
#include "registry/schema_registry.hpp"

namespace krow::commands {

// Loads a manifest and, when it names a saved source, fills it from the encrypted store.
// Throws Error(config) naming the fix.
Manifest load_manifest_and_source(const std::string& path);

// The manifest's schema registry for `krow <command>`, or null when it configures none. Each
// request waits up to source.connect_timeout (between 5 and 60 s); a registry that keeps
// failing names the fix: check registry.url, then run `krow <command>` again.
std::unique_ptr<SchemaRegistry> open_registry(const Manifest& manifest, const std::string& command);

// Bound flags given on the command line: they override the manifest's `bounds:` key by key.
class BoundFlags {
 public:
  // Adds a flag per bound (manifest/bounds) to `command`.
  void add_to(CLI::App* command);
  // Sets the bounds given as flags; throws Error(config) naming the flag of a bad value.
  void apply(BoundsConfig& bounds) const;

 private:
  std::vector<std::pair<const BoundSetting*, CLI::Option*>> options_;
  std::map<std::string, std::string> values_;  // by manifest key
};

}  // namespace krow::commands
