// libFuzzer target for krow's JSON validator (the check that decides whether a plain value
// is stored as JSON or becomes a decode_error), differentially against simdjson: for every
// valid UTF-8 input both must agree, except where simdjson itself declines (integers beyond
// 64 bits, numbers beyond double range, nesting beyond its depth limit), where krow must
// still accept what RFC 8259 allows. Any crash, sanitizer report, hang or disagreement is a
// bug. The validator is reused between inputs, as krow reuses it between messages.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "codec/json_validator.hpp"
#include "independent_json.hpp"
#include "util/text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!krow::is_valid_utf8(text)) return 0;  // the validator's precondition; invalid UTF-8 is refused before it
  static krow::JsonValidator validator;
  const bool krow_says = validator.is_document(text);
  switch (krow::fuzz::independent_verdict(text)) {
    case krow::fuzz::JsonVerdict::valid:
      if (!krow_says) __builtin_trap();
      break;
    case krow::fuzz::JsonVerdict::invalid:
      if (krow_says) __builtin_trap();
      break;
    case krow::fuzz::JsonVerdict::beyond_simdjson:
      break;
  }
  return 0;
}
