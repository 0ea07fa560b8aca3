#pragma once
// Byte-level text helpers used on the hot path: they append to a caller-owned buffer and
// never allocate beyond growing it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace krow {

// Appends the standard (RFC 4648, padded) base64 form of `data`.
void append_base64(std::string& out, const void* data, size_t size);

// The bytes of standard, padded base64 `text` (line breaks and spaces ignored), or nullopt
// when it is not that.
std::optional<std::string> decode_base64(std::string_view text);

// Appends `text` as a JSON string literal, quotes included. `text` must be valid UTF-8.
void append_json_string(std::string& out, std::string_view text);

// True when `text` is valid UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view text);

// True when `text` holds no control character other than tab, CR and LF (and no DEL).
bool has_only_text_controls(std::string_view text);

// Appends `value` in decimal.
void append_int(std::string& out, int64_t value);

// FNV-1a hash of `text`: short, stable names derived from long ones (table and index names).
uint32_t fnv1a(std::string_view text);

// `text` with ASCII letters in lower case (protocol names, header names, option names).
std::string lower_ascii(std::string text);

// The integer that all of `text` spells in decimal (an optional '-', then digits; no spaces,
// no '+'), or nullopt when it spells none or one outside int64_t: for numbers other programs
// answer, which must not end in an unclassified exception when they are not numbers.
std::optional<int64_t> parse_int64(std::string_view text);

// Formats a count with thousands separators, for people: 1234567 -> "1,234,567".
std::string with_thousands(uint64_t value);

// A time in milliseconds since the epoch as ISO 8601 UTC to the second: "2026-12-04T18:57:18Z".
std::string utc_time(int64_t ms);

}  // namespace krow
