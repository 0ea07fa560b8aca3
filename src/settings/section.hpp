#pragma once
// Reading a manifest: the rules every section follows, whoever parses it. `${ENV_VAR}`
// references are replaced before values are checked, unknown keys are refused with the
// closest allowed one, and every error names the file, the line and the key.
//
// ManifestReader holds the file and the environment; Section is one mapping of the manifest
// (the manifest itself, or `source`, `warehouse`, ...). Warehouse adapters parse their own
// section through Section, so their keys follow the same rules and messages.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "util/secret.hpp"

namespace krow {

// Looks up an environment variable (injectable for tests); null when unset.
using EnvLookup = const char* (*)(const char*);

// A `${NAME}` reference in a manifest's values: the variable, the key that uses it
// ("source.password"), and its line (1-based).
struct EnvReference {
  std::string name;
  std::string key;
  int line = 0;
};

// Every `${NAME}` the values of the manifest `file` refer to, in file order, by the same
// rules as loading ("$$" is a literal "$"; a malformed reference is left to the load to
// report). Nothing is looked up. Empty when the file cannot be read or is not YAML: loading
// it says why.
std::vector<EnvReference> env_references(const std::filesystem::path& file);

class ManifestReader {
 public:
  ManifestReader(std::filesystem::path file, EnvLookup env) : file_(std::move(file)), env_(env) {}

  // Throws Error(config): "<file>:<line>: <what>".
  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const;

  // Rejects keys of `map` that are not in `allowed`, suggesting the closest one.
  void check_keys(const YAML::Node& map, const std::string& where,
                  const std::vector<std::string>& allowed) const;

  std::string text(const YAML::Node& node, const std::string& key) const;
  bool boolean(const YAML::Node& node, const std::string& key) const;
  // A count or a size: a plain integer, or a number with KiB/MiB/GiB (or KB/MB/GB).
  int64_t size(const YAML::Node& node, const std::string& key, int64_t min, int64_t max) const;
  std::vector<std::string> list(const YAML::Node& node, const std::string& key) const;
  std::string one_of(const YAML::Node& node, const std::string& key,
                     const std::vector<std::string>& choices) const;

  const std::filesystem::path& file() const { return file_; }
  // The manifest's folder: relative paths in it are relative to this.
  std::filesystem::path base() const;

 private:
  // Replaces ${NAME} with the environment variable NAME; "$$" is a literal "$".
  std::string substitute(const YAML::Node& at, const std::string& in, const std::string& key) const;

  std::filesystem::path file_;
  EnvLookup env_;
};

// One mapping of the manifest. Accessors take the key, read it with the manifest's rules,
// and throw Error(config) naming file, line and key.
class Section {
 public:
  Section(const ManifestReader& reader, YAML::Node node, std::string where)
      : reader_(reader), node_(std::move(node)), where_(std::move(where)) {}

  const std::string& where() const { return where_; }  // e.g. "warehouse"
  bool has(const std::string& key) const { return static_cast<bool>(node_[key]); }
  void check_keys(const std::vector<std::string>& allowed) const {
    reader_.check_keys(node_, where_, allowed);
  }

  std::string text(const std::string& key) const { return reader_.text(node_[key], key); }
  // A required text: refused when missing or empty, with `example` in the message.
  std::string required_text(const std::string& key, const std::string& example) const;
  Secret secret(const std::string& key) const { return Secret(text(key)); }
  bool boolean(const std::string& key) const { return reader_.boolean(node_[key], key); }
  std::vector<std::string> list(const std::string& key) const {
    return reader_.list(node_[key], key);
  }
  int64_t size(const std::string& key, int64_t min, int64_t max) const {
    return reader_.size(node_[key], key, min, max);
  }
  std::string one_of(const std::string& key, const std::vector<std::string>& choices) const {
    return reader_.one_of(node_[key], key, choices);
  }
  // A file name, relative to the manifest's folder unless absolute.
  std::filesystem::path path(const std::string& key) const;

  // Throws Error(config) at the key's line (the section's when the key is absent).
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

 private:
  const ManifestReader& reader_;
  YAML::Node node_;
  std::string where_;
};

}  // namespace krow
