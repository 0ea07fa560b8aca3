#pragma once
// For fuzz targets: is `text` exactly one JSON document, according to simdjson rather than
// krow's own validator? simdjson refuses some documents that RFC 8259 allows — integers
// beyond 64 bits, numbers beyond double range, nesting deeper than its limit. Those are
// "beyond simdjson": krow promises numbers of any size (exact decimals). The simdjson of
// Debian 12 (3.1) says NUMBER_ERROR both for a malformed number and for one too big, so a
// number error counts as "beyond" only when the text holds a number simdjson could not
// hold: 19 digits or more in a row, or an exponent. Likewise simdjson refuses a \u escape
// of an unpaired surrogate, which RFC 8259's grammar allows (and krow's validator accepts;
// each warehouse adapter deals with what its engine cannot store): a string error counts
// as "beyond" when the text holds such an escape.

#include <simdjson.h>

#include <string_view>

namespace krow::fuzz {

enum class JsonVerdict { valid, invalid, beyond_simdjson };

inline bool holds_huge_number(std::string_view text) {
  size_t run = 0;
  for (char c : text) {
    if ((c == 'e' || c == 'E') && run > 0) return true;  // an exponent follows a digit
    run = (c >= '0' && c <= '9') ? run + 1 : 0;
    if (run >= 19) return true;
  }
  return false;
}

inline bool holds_surrogate_escape(std::string_view text) {
  for (size_t i = 0; i + 3 < text.size(); ++i)
    if (text[i] == '\\' && text[i + 1] == 'u' && (text[i + 2] == 'd' || text[i + 2] == 'D') &&
        std::string_view("89abcdefABCDEF").find(text[i + 3]) != std::string_view::npos)
      return true;
  return false;
}

inline JsonVerdict independent_verdict(std::string_view text) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const auto error = parser.parse(text.data(), text.size()).get(doc);
  switch (error) {
    case simdjson::SUCCESS: return JsonVerdict::valid;
    case simdjson::NUMBER_ERROR:
    case simdjson::NUMBER_OUT_OF_RANGE:
      return holds_huge_number(text) ? JsonVerdict::beyond_simdjson : JsonVerdict::invalid;
    case simdjson::STRING_ERROR:
      return holds_surrogate_escape(text) ? JsonVerdict::beyond_simdjson : JsonVerdict::invalid;
    case simdjson::DEPTH_ERROR:
    case simdjson::CAPACITY:
      return JsonVerdict::beyond_simdjson;
    default: return JsonVerdict::invalid;
  }
}

inline bool is_one_json_document(std::string_view text) { return independent_verdict(text) != JsonVerdict::invalid; }

}  // namespace krow::fuzz
