#include "codec/avro/avro_format.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>

namespace krow::avro {

namespace {

constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// Writes `v` (< 100) as two digits.
inline char* put2(char* o, uint32_t v) {
  std::memcpy(o, kDigitPairs + 2 * v, 2);
  return o + 2;
}

// Writes `v` as exactly `width` digits, zero-padded (v < 10^width).
inline char* put_fixed(char* o, uint64_t v, int width) {
  for (int i = width - 1; i >= 0; --i) {
    o[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return o + width;
}

// Floor division and its non-negative remainder, without overflow for any int64 `v`.
inline void floor_divmod(int64_t v, int64_t d, int64_t& q, int64_t& r) {
  q = v / d;
  r = v % d;
  if (r < 0) {
    r += d;
    q -= 1;
  }
}

// Writes the civil date of `days` since 1970-01-01 (H. Hinnant's days-to-civil algorithm,
// valid for the whole int64 range of days that int64 timestamps can produce).
char* put_date(char* o, int64_t days) {
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;                                   // [0, 146096]
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);           // [0, 365]
  const int64_t mp = (5 * doy + 2) / 153;                                 // [0, 11]
  const auto day = static_cast<uint32_t>(doy - (153 * mp + 2) / 5 + 1);
  const auto month = static_cast<uint32_t>(mp < 10 ? mp + 3 : mp - 9);
  const int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  if (year >= 0 && year <= 9999) {
    o = put_fixed(o, static_cast<uint64_t>(year), 4);
  } else {
    *o++ = year < 0 ? '-' : '+';
    const uint64_t mag = year < 0 ? 0 - static_cast<uint64_t>(year) : static_cast<uint64_t>(year);
    if (mag < 10000) {
      o = put_fixed(o, mag, 4);
    } else {
      o = std::to_chars(o, o + 24, mag).ptr;
    }
  }
  *o++ = '-';
  o = put2(o, month);
  *o++ = '-';
  return put2(o, day);
}

// Writes "HH:MM:SS.f…" for `value` units of 10^-digits s since midnight (within one day).
char* put_time(char* o, uint64_t value, int digits, uint64_t per_second) {
  const uint64_t seconds = value / per_second;
  const uint64_t fraction = value % per_second;
  o = put2(o, static_cast<uint32_t>(seconds / 3600));
  *o++ = ':';
  o = put2(o, static_cast<uint32_t>(seconds / 60 % 60));
  *o++ = ':';
  o = put2(o, static_cast<uint32_t>(seconds % 60));
  *o++ = '.';
  return put_fixed(o, fraction, digits);
}

uint64_t units_per_second(int digits) {
  return digits == 3 ? 1000u : digits == 6 ? 1000000u : 1000000000u;
}

}  // namespace

char* write_decimal(char* out, const uint8_t* bytes, size_t size, int32_t scale) {
  // Digits of the magnitude are written backwards from the end of `digits`.
  char digits[kMaxDecimalBytes * 241 / 100 + 32];
  char* const end = digits + sizeof digits;
  char* first = end;
  const bool negative = size > 0 && (bytes[0] & 0x80) != 0;
  if (size <= 8) {
    uint64_t v = negative ? ~uint64_t{0} : 0;  // sign extension
    for (size_t i = 0; i < size; ++i) v = v << 8 | bytes[i];
    const uint64_t magnitude = negative ? 0 - v : v;
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, magnitude);
    const auto len = static_cast<size_t>(res.ptr - buf);
    first = end - len;
    std::memcpy(first, buf, len);
  } else {
    // Big path: 32-bit words, most significant first, sign-extended to a whole word, then
    // negated into a magnitude; repeated division by 10^9 peels nine digits at a time.
    uint32_t words[kMaxDecimalBytes / 4 + 1];
    const size_t count = (size + 3) / 4;
    const size_t pad = count * 4 - size;
    for (size_t w = 0; w < count; ++w) {
      uint32_t v = 0;
      for (size_t k = 0; k < 4; ++k) {
        const size_t i = w * 4 + k;  // index into the padded big-endian byte string
        const uint8_t b = i < pad ? (negative ? 0xff : 0x00) : bytes[i - pad];
        v = v << 8 | b;
      }
      words[w] = v;
    }
    if (negative) {
      uint64_t carry = 1;
      for (size_t w = count; w-- > 0;) {
        const uint64_t v = uint64_t{static_cast<uint32_t>(~words[w])} + carry;
        words[w] = static_cast<uint32_t>(v);
        carry = v >> 32;
      }
    }
    size_t lead = 0;
    while (lead < count && words[lead] == 0) ++lead;
    while (lead < count) {
      uint64_t rem = 0;
      for (size_t w = lead; w < count; ++w) {
        const uint64_t cur = rem << 32 | words[w];
        words[w] = static_cast<uint32_t>(cur / 1000000000u);
        rem = cur % 1000000000u;
      }
      while (lead < count && words[lead] == 0) ++lead;
      first -= 9;
      put_fixed(first, rem, 9);
    }
    while (first < end - 1 && *first == '0') ++first;
    if (first == end) *--first = '0';
  }
  const auto len = static_cast<size_t>(end - first);
  const auto s = static_cast<size_t>(scale);
  char* o = out;
  if (negative) *o++ = '-';
  if (s == 0) {
    std::memcpy(o, first, len);
    o += len;
  } else if (len > s) {
    std::memcpy(o, first, len - s);
    o += len - s;
    *o++ = '.';
    std::memcpy(o, first + len - s, s);
    o += s;
  } else {
    *o++ = '0';
    *o++ = '.';
    std::memset(o, '0', s - len);
    o += s - len;
    std::memcpy(o, first, len);
    o += len;
  }
  return o;
}

char* write_date(char* out, int64_t days) { return put_date(out, days); }

char* write_time_of_day(char* out, int64_t value, int digits) {
  return put_time(out, static_cast<uint64_t>(value), digits, units_per_second(digits));
}

char* write_timestamp(char* out, int64_t value, int digits, bool utc) {
  const auto per_second = static_cast<int64_t>(units_per_second(digits));
  int64_t days = 0;
  int64_t in_day = 0;
  floor_divmod(value, 86400 * per_second, days, in_day);
  char* o = put_date(out, days);
  *o++ = 'T';
  o = put_time(o, static_cast<uint64_t>(in_day), digits, static_cast<uint64_t>(per_second));
  if (utc) *o++ = 'Z';
  return o;
}

char* write_uuid(char* out, const uint8_t* bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  char* o = out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *o++ = '-';
    *o++ = kHex[bytes[i] >> 4];
    *o++ = kHex[bytes[i] & 15];
  }
  return o;
}

namespace {

template <typename F>
char* write_floating(char* out, F value) {
  auto literal = [out](std::string_view text) {
    std::memcpy(out, text.data(), text.size());
    return out + text.size();
  };
  if (std::isnan(value)) return literal("\"NaN\"");
  if (std::isinf(value)) return literal(value < 0 ? "\"-Infinity\"" : "\"Infinity\"");
  return std::to_chars(out, out + kMaxFloatingChars, value).ptr;
}

}  // namespace

char* write_double(char* out, double value) { return write_floating(out, value); }

char* write_float(char* out, float value) { return write_floating(out, value); }

void append_decimal(std::string& out, const uint8_t* bytes, size_t size, int32_t scale) {
  const size_t start = out.size();
  out.resize(start + decimal_max_chars(size, scale));
  out.resize(static_cast<size_t>(write_decimal(out.data() + start, bytes, size, scale) - out.data()));
}

void append_date(std::string& out, int64_t days) {
  char buf[kMaxDateChars];
  out.append(buf, write_date(buf, days));
}

void append_time_of_day(std::string& out, int64_t value, int digits) {
  char buf[kMaxTimeChars];
  out.append(buf, write_time_of_day(buf, value, digits));
}

void append_timestamp(std::string& out, int64_t value, int digits, bool utc) {
  char buf[kMaxTimestampChars];
  out.append(buf, write_timestamp(buf, value, digits, utc));
}

void append_uuid(std::string& out, const uint8_t* bytes) {
  char buf[kUuidChars];
  out.append(buf, write_uuid(buf, bytes));
}

void append_double(std::string& out, double value) {
  char buf[kMaxFloatingChars];
  out.append(buf, write_double(buf, value));
}

void append_float(std::string& out, float value) {
  char buf[kMaxFloatingChars];
  out.append(buf, write_float(buf, value));
}

}  // namespace krow::avro
