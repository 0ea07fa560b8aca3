#pragma once
// Exact decimal text of Confluent's confluent.type.Decimal: an unscaled integer of any
// length (big-endian two's complement) and a scale.

#include <cstddef>
#include <cstdint>
#include <string>

namespace krow::pb {

// Longest unscaled value accepted (about 2,466 digits), and the widest scale either way.
// The bounds keep a hostile message from costing quadratic time or huge output.
inline constexpr size_t kMaxDecimalBytes = 1024;
inline constexpr int32_t kMaxDecimalScale = 1000;

// Appends unscaled × 10^-scale in plain notation, without quotes: {0xcf, 0xc7} with scale 2
// is "-123.45"; scale 2 of zero is "0.00"; a negative scale appends zeros ({0x01}, -3 is
// "1000"). No bytes mean zero. Returns false, appending nothing, when the value is longer
// than kMaxDecimalBytes or |scale| exceeds kMaxDecimalScale.
bool append_decimal(std::string& out, const uint8_t* unscaled, size_t size, int32_t scale);

}  // namespace krow::pb
