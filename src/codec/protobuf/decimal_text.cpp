#include "codec/protobuf/decimal_text.hpp"

#include <array>
#include <cstring>

namespace krow::pb {

bool append_decimal(std::string& out, const uint8_t* unscaled, size_t size, int32_t scale) {
  if (size > kMaxDecimalBytes || scale > kMaxDecimalScale || scale < -kMaxDecimalScale) return false;
  // The magnitude in 32-bit limbs, least significant first. A negative value's magnitude
  // is its two's complement: every bit inverted, plus one.
  std::array<uint32_t, kMaxDecimalBytes / 4> limbs{};
  const bool negative = size > 0 && (unscaled[0] & 0x80) != 0;
  uint32_t carry = negative ? 1 : 0;
  for (size_t i = 0; i < size; ++i) {
    uint32_t byte = unscaled[size - 1 - i];
    if (negative) {
      byte = (~byte & 0xffu) + carry;
      carry = byte >> 8;
      byte &= 0xffu;
    }
    limbs[i / 4] |= byte << (8 * (i % 4));
  }
  size_t used = (size + 3) / 4;
  while (used > 0 && limbs[used - 1] == 0) --used;

  // Base 10^9 chunks, least significant first, by long division of the limbs.
  constexpr uint32_t kChunk = 1000000000;
  std::array<uint32_t, (kMaxDecimalBytes * 8 * 30103 / 100000) / 9 + 2> chunks{};
  size_t chunk_count = 0;
  while (used > 0) {
    uint64_t remainder = 0;
    for (size_t i = used; i-- > 0;) {
      const uint64_t current = remainder << 32 | limbs[i];
      limbs[i] = static_cast<uint32_t>(current / kChunk);
      remainder = current % kChunk;
    }
    chunks[chunk_count++] = static_cast<uint32_t>(remainder);
    while (used > 0 && limbs[used - 1] == 0) --used;
  }

  // The digits: the top chunk as is, the others padded to nine digits.
  std::array<char, sizeof(chunks) / sizeof(uint32_t) * 9 + 1> digits;
  size_t n = 0;
  if (chunk_count == 0) {
    digits[n++] = '0';
  } else {
    char top[10];
    size_t top_len = 0;
    for (uint32_t v = chunks[chunk_count - 1]; v != 0; v /= 10) top[top_len++] = static_cast<char>('0' + v % 10);
    while (top_len > 0) digits[n++] = top[--top_len];
    for (size_t c = chunk_count - 1; c-- > 0;) {
      uint32_t v = chunks[c];
      for (size_t k = 9; k-- > 0;) {
        digits[n + k] = static_cast<char>('0' + v % 10);
        v /= 10;
      }
      n += 9;
    }
  }
  const bool zero = chunk_count == 0;

  if (negative && !zero) out.push_back('-');
  if (scale <= 0) {
    out.append(digits.data(), n);
    if (!zero) out.append(static_cast<size_t>(-scale), '0');
    return true;
  }
  const auto fraction = static_cast<size_t>(scale);
  if (n > fraction) {
    out.append(digits.data(), n - fraction);
    out.push_back('.');
    out.append(digits.data() + (n - fraction), fraction);
  } else {
    out.append("0.");
    out.append(fraction - n, '0');
    out.append(digits.data(), n);
  }
  return true;
}

}  // namespace krow::pb
