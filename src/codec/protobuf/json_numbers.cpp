#include "codec/protobuf/json_numbers.hpp"

#include <charconv>
#include <cmath>

#include "util/text.hpp"

namespace krow::pb {

namespace {

template <typename Float>
void append_float_impl(std::string& out, Float value) {
  if (std::isnan(value)) {
    out.append("\"NaN\"");
  } else if (std::isinf(value)) {
    out.append(value > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, res.ptr);
  }
}

// Appends `value` with exactly `width` digits, zero-padded.
void append_padded(std::string& out, uint32_t value, int width) {
  char buf[10];
  for (int i = width; i-- > 0;) {
    buf[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  out.append(buf, static_cast<size_t>(width));
}

// Nanoseconds as proto3 JSON writes them: nothing, or 3, 6 or 9 digits after a point.
void append_nanos(std::string& out, uint32_t nanos) {
  if (nanos == 0) return;
  out.push_back('.');
  if (nanos % 1000000 == 0) {
    append_padded(out, nanos / 1000000, 3);
  } else if (nanos % 1000 == 0) {
    append_padded(out, nanos / 1000, 6);
  } else {
    append_padded(out, nanos, 9);
  }
}

// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's civil_from_days).
void civil_from_days(int64_t days, int64_t& year, unsigned& month, unsigned& day) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  day = doy - (153 * mp + 2) / 5 + 1;
  month = mp < 10 ? mp + 3 : mp - 9;
  year = static_cast<int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0);
}

}  // namespace

void append_uint(std::string& out, uint64_t value) {
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, res.ptr);
}

void append_json_float(std::string& out, float value) { append_float_impl(out, value); }
void append_json_float(std::string& out, double value) { append_float_impl(out, value); }

bool append_timestamp(std::string& out, int64_t seconds, int32_t nanos) {
  constexpr int64_t kMinSeconds = -62135596800;  // 0001-01-01T00:00:00Z
  constexpr int64_t kMaxSeconds = 253402300799;  // 9999-12-31T23:59:59Z
  if (seconds < kMinSeconds || seconds > kMaxSeconds || nanos < 0 || nanos > 999999999) return false;
  const int64_t days = (seconds >= 0 ? seconds : seconds - 86399) / 86400;
  const auto second_of_day = static_cast<uint32_t>(seconds - days * 86400);
  int64_t year = 0;
  unsigned month = 0, day = 0;
  civil_from_days(days, year, month, day);
  out.push_back('"');
  append_padded(out, static_cast<uint32_t>(year), 4);
  out.push_back('-');
  append_padded(out, month, 2);
  out.push_back('-');
  append_padded(out, day, 2);
  out.push_back('T');
  append_padded(out, second_of_day / 3600, 2);
  out.push_back(':');
  append_padded(out, second_of_day / 60 % 60, 2);
  out.push_back(':');
  append_padded(out, second_of_day % 60, 2);
  append_nanos(out, static_cast<uint32_t>(nanos));
  out.append("Z\"");
  return true;
}

bool append_duration(std::string& out, int64_t seconds, int32_t nanos) {
  constexpr int64_t kMaxSeconds = 315576000000;  // 10,000 years, proto3 JSON's bound
  if (seconds < -kMaxSeconds || seconds > kMaxSeconds || nanos < -999999999 || nanos > 999999999 ||
      (seconds < 0 && nanos > 0) || (seconds > 0 && nanos < 0)) {
    return false;
  }
  out.push_back('"');
  if (seconds < 0 || nanos < 0) out.push_back('-');
  append_uint(out, static_cast<uint64_t>(seconds < 0 ? -seconds : seconds));
  append_nanos(out, static_cast<uint32_t>(nanos < 0 ? -nanos : nanos));
  out.append("s\"");
  return true;
}

void FieldMaskText::add(const char* path, size_t size) {
  if (!first_) joined_.push_back(',');
  first_ = false;
  bool upper_next = false;
  for (size_t i = 0; i < size; ++i) {
    const char c = path[i];
    if (c == '_') {
      upper_next = true;
      continue;
    }
    joined_.push_back(upper_next && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    upper_next = false;
  }
}

void FieldMaskText::append_to(std::string& out) const { append_json_string(out, joined_); }

}  // namespace krow::pb
