#include "util/fault_injection.hpp"

#include <csignal>
#include <cstdlib>
#include <string_view>

namespace krow::fault {

namespace {

bool asked(const char* variable) {
  const char* v = std::getenv(variable);
  return v && std::string_view(v) == "1";
}

}  // namespace

void stop_here_if_asked(StopPoint point) {
  const char* variable =
      point == StopPoint::before_publish ? "KROW_TEST_STOP_BEFORE_PUBLISH" : "KROW_TEST_STOP_AFTER_LOAD";
  if (asked(variable)) std::raise(SIGSTOP);
}

bool trace_batches() {
  static const bool on = std::getenv("KROW_TRACE_BATCHES") != nullptr;
  return on;
}

}  // namespace krow::fault
