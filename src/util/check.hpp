#pragma once
// One line of `krow doctor`: what was checked, whether it passed, what was found, and on a
// failure the fix. Adapters and the Kafka wrapper fill these for their own checks; none of
// the texts may hold a secret.

#include <string>
#include <utility>

namespace krow {

struct Check {
  std::string name;  // short: "TLS 127.0.0.1:9093", "topic orders: READ"
  bool ok = false;
  std::string detail;  // what was found
  std::string fix;     // on a failure: what to do about it (empty when ok)

  static Check pass(std::string name, std::string detail) {
    return {std::move(name), true, std::move(detail), {}};
  }
  static Check fail(std::string name, std::string detail, std::string fix) {
    return {std::move(name), false, std::move(detail), std::move(fix)};
  }
};

}  // namespace krow
