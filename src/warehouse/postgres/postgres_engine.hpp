#pragma once
// The PostgreSQL engine as krow's engine list (engines/) knows it.

#include "warehouse/engine.hpp"

namespace krow {

const Engine& postgres_engine();

}  // namespace krow
