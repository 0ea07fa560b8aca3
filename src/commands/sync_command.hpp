#pragma once
// What `krow sync` and `krow resync` share: the run, its outcome printed, its exit code.
//
// Thread: the main thread only.

#include "manifest/manifest.hpp"
#include "sync/sync_engine.hpp"

namespace krow::commands {

// Runs the sync of `manifest` (SIGINT and SIGTERM stop it after the current batch) and
// prints its outcome: counts and rate, the run's summary file, each gate, whether a staged
// run was published; its errors and notes on stderr. Returns the exit code of the outcome.
int run_and_print(const Manifest& manifest, SyncOptions options);

}  // namespace krow::commands
