#pragma once
// A manifest whose source is `saved: NAME` takes it from the encrypted store of `krow
// connect` (secrets/secret_store).

#include "manifest/manifest.hpp"

namespace krow {

// Fills `manifest`'s source (and its registry, when the manifest has none) from the saved
// source it names, and records the cluster ID the source is bound to. Does nothing for a
// manifest with a source of its own. Throws Error(config) naming the fix when the source is
// missing, the key wrong or the file tampered with.
void resolve_saved_source(Manifest& manifest);

}  // namespace krow
