#pragma once
// What a warehouse's JSON type refuses of valid JSON. Every JSON column of the row contract
// holds valid RFC 8259 text, but some engines store JSON in a form that cannot hold all of
// it (PostgreSQL's jsonb has no NUL character, no unpaired surrogate, and a bounded number
// type). An adapter states its limits; rows that break them are stored another way (see
// RowBatch::replace_unstorable) instead of failing their batch.

#include <cstdint>
#include <string>
#include <string_view>

namespace krow::rows {

struct JsonLimits {
  bool nul_in_strings = true;       // "\u0000" inside a string
  bool lone_surrogates = true;      // "\ud800" without its low half, or a low half alone
  int64_t max_integer_digits = 0;   // digits before the decimal point, exponent applied; 0: any
  int64_t max_fraction_digits = 0;  // digits after it, exponent applied; 0: any
  bool unlimited() const {
    return nul_in_strings && lone_surrogates && max_integer_digits == 0 && max_fraction_digits == 0;
  }
};

// Why `json` (valid JSON text) cannot be stored under `limits`; empty when it can. One pass
// over the text, no allocation unless refused.
std::string json_refusal(std::string_view json, const JsonLimits& limits);

}  // namespace krow::rows
