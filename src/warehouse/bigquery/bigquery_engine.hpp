#pragma once
// The BigQuery engine as krow's engine list (engines/) knows it.

#include "warehouse/engine.hpp"

namespace krow {

const Engine& bigquery_engine();

}  // namespace krow
