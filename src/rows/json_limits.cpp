#include "rows/json_limits.hpp"

#include <algorithm>

namespace krow::rows {

namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of a "\uXXXX" escape starting at `at` (the backslash), or -1.
int32_t escape_at(std::string_view j, size_t at) {
  if (at + 6 > j.size() || j[at] != '\\' || j[at + 1] != 'u') return -1;
  int32_t v = 0;
  for (size_t k = at + 2; k < at + 6; ++k) {
    const int h = hex(j[k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Checks the number starting at `i`; moves `i` past it.
std::string number_refusal(std::string_view j, size_t& i, const JsonLimits& limits) {
  if (j[i] == '-') ++i;
  size_t significant = 0;  // digits from the first non-zero one on
  int64_t fraction = 0;
  for (; i < j.size() && is_digit(j[i]); ++i)
    if (significant || j[i] != '0') ++significant;
  if (i < j.size() && j[i] == '.')
    for (++i; i < j.size() && is_digit(j[i]); ++i, ++fraction)
      if (significant || j[i] != '0') ++significant;
  int64_t exponent = 0;
  if (i < j.size() && (j[i] == 'e' || j[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < j.size() && (j[i] == '+' || j[i] == '-')) negative = j[i++] == '-';
    for (; i < j.size() && is_digit(j[i]); ++i) exponent = std::min<int64_t>(exponent * 10 + (j[i] - '0'), 1ll << 40);
    if (negative) exponent = -exponent;
  }
  // The value is (significant digits) x 10^(exponent - fraction).
  const int64_t integer_digits = significant ? static_cast<int64_t>(significant) - fraction + exponent : 0;
  const int64_t fraction_digits = std::max<int64_t>(fraction - exponent, 0);
  if (limits.max_integer_digits && integer_digits > limits.max_integer_digits)
    return "a number has more than " + std::to_string(limits.max_integer_digits) + " digits before the decimal point";
  if (limits.max_fraction_digits && fraction_digits > limits.max_fraction_digits)
    return "a number has more than " + std::to_string(limits.max_fraction_digits) + " digits after the decimal point";
  return {};
}

}  // namespace

std::string json_refusal(std::string_view j, const JsonLimits& limits) {
  if (limits.unlimited()) return {};
  const bool numbers = limits.max_integer_digits || limits.max_fraction_digits;
  size_t i = 0;
  while (i < j.size()) {
    const char c = j[i];
    if (c == '"') {
      for (++i; i < j.size() && j[i] != '"';) {
        if (j[i] != '\\') {
          ++i;
          continue;
        }
        const int32_t unit = escape_at(j, i);
        if (unit < 0) {  // a two-character escape such as \" or \n
          i += 2;
          continue;
        }
        if (unit == 0 && !limits.nul_in_strings) return "a string holds the character U+0000 (\\u0000)";
        if (!limits.lone_surrogates && unit >= 0xD800 && unit <= 0xDFFF) {
          const int32_t low = unit <= 0xDBFF ? escape_at(j, i + 6) : -1;
          if (low < 0xDC00 || low > 0xDFFF) return "a string holds an unpaired UTF-16 surrogate (\\u" +
                                                   std::string(j.substr(i + 2, 4)) + ")";
          i += 6;  // the low half, checked here
        }
        i += 6;
      }
      ++i;  // the closing quote
    } else if (numbers && (c == '-' || is_digit(c))) {
      if (auto why = number_refusal(j, i, limits); !why.empty()) return why;
    } else {
      ++i;
    }
  }
  return {};
}

}  // namespace krow::rows
