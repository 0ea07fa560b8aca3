#include "util/json_writer.hpp"

#include <cmath>
#include <charconv>

#include "util/text.hpp"

namespace krow {

void JsonWriter::comma() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  comma();
  out_.push_back('{');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  out_.push_back('}');
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  comma();
  out_.push_back('[');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  out_.push_back(']');
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  comma();
  append_json_string(out_, is_valid_utf8(k) ? k : std::string_view("(invalid UTF-8)"));
  out_.push_back(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view v) {
  comma();
  if (is_valid_utf8(v)) {
    append_json_string(out_, v);
  } else {
    out_.push_back('"');
    append_base64(out_, v.data(), v.size());
    out_.push_back('"');
  }
  return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
  comma();
  append_int(out_, v);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t v) {
  comma();
  char buf[24];
  out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  comma();
  if (!std::isfinite(v)) {
    out_.append("null");
    return *this;
  }
  char buf[64];
  out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  comma();
  out_.append(v ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null() {
  comma();
  out_.append("null");
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  comma();
  out_.append(json);
  return *this;
}

}  // namespace krow
