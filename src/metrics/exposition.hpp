#pragma once
// Prometheus text expositions put together: `krow serve` answers its own figures and those of
// the continuous syncs it runs (each serving its own on a port of 127.0.0.1) as one
// exposition, in which each metric family appears once (Prometheus refuses a family twice).

#include <optional>
#include <string>
#include <vector>

namespace krow::metrics {

// One exposition of every family of `texts`, in the order first seen: each family's HELP and
// TYPE lines from the first text that has them, then the samples of every text. A family
// another text gives another TYPE keeps the first and drops the other's samples.
std::string merge_expositions(const std::vector<std::string>& texts);

// GET http://127.0.0.1:PORT/metrics, waiting at most about 2 s; none when it does not answer 200.
std::optional<std::string> scrape_local(int port);

}  // namespace krow::metrics
