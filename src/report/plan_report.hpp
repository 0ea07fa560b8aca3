#pragma once
// `krow plan`'s output: a plan (plan/plan) for people, as text or Markdown (a CI job's
// summary), or as JSON for programs. Pure; any thread may call it.

#include <string>

#include "plan/plan.hpp"

namespace krow {

enum class PlanFormat { text, md, json };
std::string format_plan(const Plan& plan, PlanFormat format);

}  // namespace krow
