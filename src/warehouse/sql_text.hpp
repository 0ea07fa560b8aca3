#pragma once
// SQL text that every SQL engine krow writes to reads the same way.

#include <string>

namespace krow {

// `text` between `q`s, each `q` inside doubled: how SQL quotes identifiers and literals.
inline std::string sql_quoted(const std::string& text, char q) {
  std::string out(1, q);
  for (char c : text) {
    if (c == q) out.push_back(q);
    out.push_back(c);
  }
  out.push_back(q);
  return out;
}

// `ident` as a quoted SQL identifier ("my ""odd"" name"): safe whatever the name holds.
inline std::string quote(const std::string& ident) { return sql_quoted(ident, '"'); }

// `text` as a quoted SQL string literal ('it''s'): safe whatever the text holds.
inline std::string quote_literal(const std::string& text) { return sql_quoted(text, '\''); }

}  // namespace krow
