#pragma once
// A value that must never be printed: passwords, API secrets.

#include <string>
#include <utility>

namespace krow {

// It converts to text only through reveal(), so that it cannot end up in a message by
// accident.
class Secret {
 public:
  Secret() = default;
  explicit Secret(std::string value) : value_(std::move(value)) {}
  const std::string& reveal() const { return value_; }
  bool empty() const { return value_.empty(); }

 private:
  std::string value_;
};

}  // namespace krow
