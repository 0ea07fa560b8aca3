#pragma once
// Saved sources: connection settings and credentials that `krow connect` checked, bound to
// the cluster ID they were checked against, and stored encrypted at rest.
//
// Each source is one file, <dir>/<name>.source: "KROWSRC1", a 24-byte nonce, then the
// XChaCha20-Poly1305 ciphertext of its JSON form, authenticated together with the source's
// name (so files cannot be swapped between names). The 32-byte key comes from the
// environment variable KROW_SECRET_KEY (base64) or from <dir>/secret.key, created with
// mode 0600 on first use. A tampered file or a wrong key is an error, never garbage.

#include <filesystem>
#include <string>
#include <vector>

#include "kafka/source_config.hpp"
#include "registry/registry_config.hpp"

namespace krow {

struct SavedSource {
  std::string name;
  SourceConfig source;
  RegistryConfig registry;  // url empty when none was given
  std::string cluster_id;   // the cluster the credentials were checked against
  int64_t saved_at_ms = 0;
};

class SecretStore {
 public:
  // `dir`: where sources live ($KROW_HOME, else ~/.config/krow). Throws Error(config) when
  // no key can be had (bad KROW_SECRET_KEY, key file readable by others).
  static SecretStore open_default(bool create_key);
  // Where open_default keeps them. Throws Error(config) when no variable says.
  static std::filesystem::path default_dir();
  SecretStore(std::filesystem::path dir, bool create_key);

  bool exists(const std::string& name) const;
  // Throws Error(config) naming the fix for a missing source, a wrong key or a tampered file.
  SavedSource load(const std::string& name) const;
  void save(const SavedSource& source) const;
  std::vector<std::string> names() const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path path_of(const std::string& name) const;
  std::filesystem::path dir_;
  std::string key_;  // 32 bytes
};

// Checks a source name: letters, digits, '.', '_', '-'; throws Error(config) otherwise.
void check_source_name(const std::string& name);

}  // namespace krow
