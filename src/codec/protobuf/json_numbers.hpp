#pragma once
// Number and time texts shared by the Protobuf JSON printers, in proto3 JSON's forms.

#include <cstdint>
#include <string>

namespace krow::pb {

// Appends `value` in decimal.
void append_uint(std::string& out, uint64_t value);

// Appends the shortest text that reads back as the same value (0.1, 1e-07, 3e+38);
// NaN and infinities as the JSON strings "NaN", "Infinity", "-Infinity".
void append_json_float(std::string& out, float value);
void append_json_float(std::string& out, double value);

// Appends a google.protobuf.Timestamp as a quoted RFC 3339 UTC text with 0, 3, 6 or 9
// fraction digits ("2024-11-05T10:41:01.482Z"). Returns false, appending nothing, outside
// 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999999Z or when nanos is not in [0, 1e9).
bool append_timestamp(std::string& out, int64_t seconds, int32_t nanos);

// Appends a google.protobuf.Duration as a quoted text ("1.000340012s", "-3.500s"). Returns
// false, appending nothing, beyond ±10,000 years or when seconds and nanos differ in sign.
bool append_duration(std::string& out, int64_t seconds, int32_t nanos);

// Appends a FieldMask path list joined by commas, each snake_case name in lowerCamelCase
// ("user.display_name" -> "user.displayName"), as a quoted JSON string.
class FieldMaskText {
 public:
  void add(const char* path, size_t size);
  void append_to(std::string& out) const;

 private:
  std::string joined_;
  bool first_ = true;
};

}  // namespace krow::pb
