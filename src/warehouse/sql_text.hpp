#pragma once
// SQL text that every SQL engine krow writes to reads the same way.

#include <string>

namespace krow {

// `ident` as a quoted SQL identifier ("my ""odd"" name"): safe whatever the name holds.
inline std::string quote(const std::string& ident) {
  std::string out = "\"";
  for (char c : ident) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

// `text` as a quoted SQL string literal ('it''s'): safe whatever the text holds.
inline std::string quote_literal(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  return out + "'";
}

}  // namespace krow
