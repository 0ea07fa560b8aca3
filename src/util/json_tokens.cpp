#include "util/json_tokens.hpp"

namespace krow {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace

std::string_view trim_json_token(std::string_view token) {
  while (!token.empty() && is_space(token.front())) token.remove_prefix(1);
  while (!token.empty() && is_space(token.back())) token.remove_suffix(1);
  return token;
}

JsonNumber classify_json_number(std::string_view token) {
  token = trim_json_token(token);
  const bool negative = !token.empty() && token[0] == '-';
  const auto digits = token.substr(negative ? 1 : 0);
  if (digits.find_first_of(".eE") != std::string_view::npos) return JsonNumber::real;
  // JSON integers have no leading zeros, so the digit count orders them.
  constexpr std::string_view kMinInt64 = "9223372036854775808";  // |−2^63|, also 2^63
  constexpr std::string_view kMaxUint64 = "18446744073709551615";
  auto at_most = [&](std::string_view limit) {
    return digits.size() < limit.size() || (digits.size() == limit.size() && digits <= limit);
  };
  if (negative) return at_most(kMinInt64) ? JsonNumber::int64 : JsonNumber::big_integer;
  if (digits.size() < kMinInt64.size() || (digits.size() == kMinInt64.size() && digits < kMinInt64))
    return JsonNumber::int64;
  return at_most(kMaxUint64) ? JsonNumber::uint64 : JsonNumber::big_integer;
}

void append_minified_json(std::string& out, std::string_view json) {
  // Copies runs of text whole: between tokens, whitespace is dropped; inside strings, nothing.
  size_t i = 0;
  const size_t n = json.size();
  while (i < n) {
    size_t run = i;
    while (run < n && !is_space(json[run]) && json[run] != '"') ++run;
    out.append(json.data() + i, run - i);
    i = run;
    if (i == n) break;
    if (json[i] != '"') {  // whitespace between tokens
      ++i;
      continue;
    }
    size_t end = i + 1;  // the string's closing quote: one not escaped
    while (end < n && json[end] != '"') end += json[end] == '\\' ? 2 : 1;
    end = end < n ? end + 1 : n;
    out.append(json.data() + i, end - i);
    i = end;
  }
}

}  // namespace krow
