#pragma once
// Builds the `headers` column: a JSON array of {"key": ..., "value": ...} in message
// order. A value that is not UTF-8 is given as "value_base64"; a null value as null.

#include <cstddef>
#include <string>
#include <string_view>

#include "codec/decoded.hpp"

namespace krow {

class HeadersJson {
 public:
  // Starts an array at the end of `arena`; the arena must outlive this object.
  explicit HeadersJson(std::string& arena);

  // `value` null means the header has no value.
  void add(std::string_view key, const void* value, size_t size);

  // Closes the array and returns where it lies in the arena.
  Slice finish();

 private:
  std::string& arena_;
  size_t start_;
  bool first_ = true;
};

}  // namespace krow
