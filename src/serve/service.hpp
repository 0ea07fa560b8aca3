#pragma once
// `krow serve` (docs/serve.md): the scheduler, its state file and its HTTP endpoint —
// `GET /livez` (the process answers), `GET /readyz` (the state file is open and the scheduler
// runs) and `GET /metrics` — until `stop` is set (SIGTERM, SIGINT), then every run under way
// is stopped as a SIGTERMed `krow sync` stops: what it read is committed.

#include <atomic>

#include "serve/serve_config.hpp"

namespace krow::serve {

// Runs the service; returns once `stop` is set and every run has ended. Throws Error(config)
// when the state file cannot be opened or the address cannot be listened on.
void serve(const ServeConfig& config, const std::atomic<bool>& stop);

}  // namespace krow::serve
