#pragma once
// Helpers for JSON text that a parser hands over raw (simdjson On Demand's raw tokens): what
// kind of number a number token is, and a value's text without insignificant whitespace.
// Pure; the text is valid JSON (krow's decoders wrote it, or its validator passed it).

#include <string>
#include <string_view>

namespace krow {

enum class JsonNumber {
  int64,        // an integer from -2^63 to 2^63 - 1
  uint64,       // an integer from 2^63 to 2^64 - 1
  big_integer,  // an integer beyond 64 bits, which no integer column holds exactly
  real,         // a fraction or an exponent
};

// The kind of the number token `token` (surrounding whitespace allowed).
JsonNumber classify_json_number(std::string_view token);

// `token` without the whitespace On Demand's raw tokens carry after them.
std::string_view trim_json_token(std::string_view token);

// Appends `json` (one valid JSON value) without whitespace between its tokens.
void append_minified_json(std::string& out, std::string_view json);

}  // namespace krow
