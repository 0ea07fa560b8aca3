#include "manifest/saved_source.hpp"

#include "secrets/secret_store.hpp"

namespace krow {

void resolve_saved_source(Manifest& manifest) {
  if (manifest.saved_source.empty()) return;
  const auto store = SecretStore::open_default(/*create_key=*/false);
  auto saved = store.load(manifest.saved_source);
  saved.source.connect_timeout_s = manifest.source.connect_timeout_s;
  saved.source.retry_timeout_s = manifest.source.retry_timeout_s;
  manifest.source = std::move(saved.source);
  manifest.bound_cluster_id = saved.cluster_id;
  if (!manifest.registry.configured()) manifest.registry = std::move(saved.registry);
}

}  // namespace krow
