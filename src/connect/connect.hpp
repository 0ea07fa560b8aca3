#pragma once
// `krow connect`: checks a cluster key (authentication, and DESCRIBE of at least one topic)
// and, when given, a registry key, before anything is saved; binds the source to the
// cluster ID; refuses a key of another cluster for a source already bound.

#include <string>

#include "secrets/secret_store.hpp"

namespace krow {

struct ConnectReport {
  std::string cluster_id;
  size_t describable_topics = 0;
  bool registry_checked = false;
  bool replaced = false;  // an existing source of the same cluster got new credentials
};

// Throws Error naming the fix when a check fails; nothing is saved then.
ConnectReport connect_source(SavedSource candidate, const SecretStore& store);

// Checks the registry key with one cheap request. Throws Error(fatal_run) naming the fix.
void check_registry(const RegistryConfig& registry);

}  // namespace krow
