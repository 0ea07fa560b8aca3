#pragma once
// `krow status`: what the warehouse says about a sync — stored positions per table and
// partition, and its recent runs with their errors. Reads only the warehouse.

#include <string>

#include "manifest/manifest.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

std::string format_status(const Manifest& manifest, Warehouse& warehouse, bool json);

}  // namespace krow
