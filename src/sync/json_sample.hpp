#pragma once
// The sample `columns: infer` plans a table from: the first plain JSON object values a run
// would read of its topic (from each partition's start up to its boundary), read ahead of the
// run with a reader of their own. Nothing is stored and no position moves.
//
// Thread: the calling thread only.

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "manifest/manifest.hpp"
#include "plan/plan.hpp"

namespace krow {

// How many values `columns: infer` samples per table and run.
inline constexpr size_t kInferSample = 1000;

// Up to `max` values of `topic`'s messages in the plan's ranges that are JSON objects (as
// text; tombstones, binary and schema-framed values are skipped). Empty when there is
// nothing to read. Throws as PartitionReader::poll does (fatal_run, transient).
std::vector<std::string> sample_json_values(const SourceConfig& source, const TopicPlan& topic, size_t max,
                                            std::chrono::seconds retry_timeout);

}  // namespace krow
