#include "codec/json_validator.hpp"

#include <cstring>

namespace krow {

namespace {

struct Cursor {
  const char* p;
  const char* end;

  void skip_ws() {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  }
  bool literal(const char* word, size_t n) {
    if (size_t(end - p) < n || std::memcmp(p, word, n) != 0) return false;
    p += n;
    return true;
  }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  static bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  bool string() {  // at the opening quote
    ++p;
    while (p < end) {
      const auto c = static_cast<unsigned char>(*p);
      if (c == '"') {
        ++p;
        return true;
      }
      if (c < 0x20) return false;
      if (c == '\\') {
        if (++p >= end) return false;
        switch (*p) {
          case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            ++p;
            break;
          case 'u':
            if (end - p < 5) return false;
            for (int i = 1; i <= 4; ++i)
              if (!is_hex(p[i])) return false;
            p += 5;
            break;
          default: return false;
        }
        continue;
      }
      ++p;
    }
    return false;
  }

  bool number() {
    if (p < end && *p == '-') ++p;
    if (p >= end) return false;
    if (*p == '0') {
      ++p;
    } else if (is_digit(*p)) {
      while (p < end && is_digit(*p)) ++p;
    } else {
      return false;
    }
    if (p < end && *p == '.') {
      ++p;
      if (p >= end || !is_digit(*p)) return false;
      while (p < end && is_digit(*p)) ++p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p < end && (*p == '+' || *p == '-')) ++p;
      if (p >= end || !is_digit(*p)) return false;
      while (p < end && is_digit(*p)) ++p;
    }
    return true;
  }

  bool scalar() {
    switch (*p) {
      case '"': return string();
      case 't': return literal("true", 4);
      case 'f': return literal("false", 5);
      case 'n': return literal("null", 4);
      default: return number();
    }
  }
};

}  // namespace

bool JsonValidator::is_document(std::string_view text) {
  Cursor c{text.data(), text.data() + text.size()};
  stack_.clear();
  c.skip_ws();
  if (c.p >= c.end) return false;
  // Iterative: a value, then either close containers or continue after a comma.
  for (;;) {
    // Expect a value.
    c.skip_ws();
    if (c.p >= c.end) return false;
    if (*c.p == '[' || *c.p == '{') {
      const char open = *c.p++;
      stack_.push_back(open);
      c.skip_ws();
      if (c.p >= c.end) return false;
      if (*c.p == (open == '[' ? ']' : '}')) {
        ++c.p;
        stack_.pop_back();
      } else {
        if (open == '{') {
          if (*c.p != '"' || !c.string()) return false;
          c.skip_ws();
          if (c.p >= c.end || *c.p++ != ':') return false;
        }
        continue;  // the first element's value
      }
    } else if (!c.scalar()) {
      return false;
    }
    // After a value: close containers until one continues with a comma.
    for (;;) {
      c.skip_ws();
      if (stack_.empty()) return c.p == c.end;
      if (c.p >= c.end) return false;
      const char open = stack_.back();
      if (*c.p == ',') {
        ++c.p;
        if (open == '{') {
          c.skip_ws();
          if (c.p >= c.end || *c.p != '"' || !c.string()) return false;
          c.skip_ws();
          if (c.p >= c.end || *c.p++ != ':') return false;
        }
        break;  // next value
      }
      if (*c.p != (open == '[' ? ']' : '}')) return false;
      ++c.p;
      stack_.pop_back();
    }
  }
}

}  // namespace krow
