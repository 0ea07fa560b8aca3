#pragma once
// The DuckDB engine as krow's engine list (engines/) knows it.

#include "warehouse/engine.hpp"

namespace krow {

const Engine& duckdb_engine();

}  // namespace krow
