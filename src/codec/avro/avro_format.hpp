#pragma once
// Text forms of Avro values whose JSON shape is not a plain number or string: decimals,
// dates, times, timestamps, UUIDs and floats. Pure functions that any thread may call; they
// are separate from the decoder so that each form is tested on its own. Each comes twice:
// write_* writes into a caller-owned char buffer of at least the stated size and returns
// the end of what it wrote (the decoder's hot path), append_* appends to a std::string.

#include <cstddef>
#include <cstdint>
#include <string>

namespace krow::avro {

// The longest decimal (unscaled two's-complement bytes) append_decimal accepts: 1024 bytes,
// about 2,466 digits. Far beyond any real precision (engines stop at 38 or 76 digits); the
// bound keeps the quadratic base conversion cheap on hostile input.
inline constexpr size_t kMaxDecimalBytes = 1024;

// Appends the exact decimal text of the two's-complement big-endian integer `bytes`
// scaled by 10^-scale, without quotes: "-1234.50", "0.05", "7". An empty byte string is 0.
// Requires size <= kMaxDecimalBytes and scale >= 0.
void append_decimal(std::string& out, const uint8_t* bytes, size_t size, int32_t scale);

// Appends the proleptic Gregorian date `days` after 1970-01-01 (negative: before) as
// "YYYY-MM-DD". Years outside 0000..9999 take ISO 8601's expanded form: a sign and at
// least four digits ("-0001-12-31", "+10000-01-01").
void append_date(std::string& out, int64_t days);

// Appends a time of day "HH:MM:SS" followed by `digits` fractional digits (3 for millis,
// 6 for micros, 9 for nanos). `value` counts units of 10^-digits seconds since midnight and
// must lie in [0, 86400 * 10^digits).
void append_time_of_day(std::string& out, int64_t value, int digits);

// Appends the instant `value` units of 10^-digits seconds after 1970-01-01T00:00:00 as ISO
// 8601 "YYYY-MM-DDTHH:MM:SS.fff" with `digits` (3, 6 or 9) fractional digits, then "Z" when
// `utc`. Negative values count back from the epoch. Every int64 is accepted.
void append_timestamp(std::string& out, int64_t value, int digits, bool utc);

// Appends 16 bytes as a lowercase 8-4-4-4-12 hex UUID, without quotes.
void append_uuid(std::string& out, const uint8_t* bytes);

// Appends a double as a JSON value: the shortest text that reads back to the same value,
// or the JSON strings "NaN", "Infinity", "-Infinity".
void append_double(std::string& out, double value);

// Same for a float: the shortest text that reads back to the same float.
void append_float(std::string& out, float value);

// Buffer sizes for the write_* forms (bounds, not exact lengths).
inline constexpr size_t kMaxDateChars = 32;       // "+292277026596-12-04" and the like
inline constexpr size_t kMaxTimeChars = 24;       // "HH:MM:SS.fffffffff"
inline constexpr size_t kMaxTimestampChars = 64;  // date, 'T', time, 'Z'
inline constexpr size_t kUuidChars = 36;
inline constexpr size_t kMaxFloatingChars = 32;   // to_chars' shortest double, or "-Infinity" quoted
inline size_t decimal_max_chars(size_t size, int32_t scale) {
  // ceil(8 * size * log10(2)) digits at most, a sign, "0." and the scale's leading zeros.
  return size * 241 / 100 + 2 + static_cast<size_t>(scale) + 4;
}

char* write_decimal(char* out, const uint8_t* bytes, size_t size, int32_t scale);
char* write_date(char* out, int64_t days);
char* write_time_of_day(char* out, int64_t value, int digits);
char* write_timestamp(char* out, int64_t value, int digits, bool utc);
char* write_uuid(char* out, const uint8_t* bytes);
char* write_double(char* out, double value);
char* write_float(char* out, float value);

}  // namespace krow::avro
