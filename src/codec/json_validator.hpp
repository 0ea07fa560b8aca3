#pragma once
// Checks that bytes hold exactly one JSON document (RFC 8259), surrounding whitespace
// allowed. Numbers of any size and precision are accepted, as the RFC allows; the text must
// already be known to be valid UTF-8.

#include <string_view>
#include <vector>

namespace krow {

class JsonValidator {
 public:
  bool is_document(std::string_view text);

 private:
  std::vector<char> stack_;  // open containers: '[' or '{'; reused between calls
};

}  // namespace krow
