#include "codec/headers_json.hpp"

#include "util/text.hpp"

namespace krow {

HeadersJson::HeadersJson(std::string& arena) : arena_(arena), start_(arena.size()) {
  arena_.push_back('[');
}

void HeadersJson::add(std::string_view key, const void* value, size_t size) {
  if (!first_) arena_.push_back(',');
  first_ = false;
  if (is_valid_utf8(key)) {
    arena_.append("{\"key\":");
    append_json_string(arena_, key);
  } else {
    arena_.append("{\"key_base64\":");
    arena_.push_back('"');
    append_base64(arena_, key.data(), key.size());
    arena_.push_back('"');
  }
  const std::string_view text(static_cast<const char*>(value), value ? size : 0);
  if (value == nullptr) {
    arena_.append(",\"value\":null}");
  } else if (is_valid_utf8(text)) {
    arena_.append(",\"value\":");
    append_json_string(arena_, text);
    arena_.push_back('}');
  } else {
    arena_.append(",\"value_base64\":\"");
    append_base64(arena_, value, size);
    arena_.append("\"}");
  }
}

Slice HeadersJson::finish() {
  arena_.push_back(']');
  return slice_since(arena_, start_);
}

}  // namespace krow
