#pragma once
// PostgreSQL's binary COPY format, written into a buffer: a signature, then per row a
// field count and per field a length (-1 for NULL) and the value in the type's binary
// form, all integers big-endian, then a trailer. Binary COPY spares the server parsing
// numbers and timestamps and spares krow escaping text.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace krow::pg {

class CopyWriter {
 public:
  explicit CopyWriter(std::string& out) : out_(out) {}

  void begin() {
    static constexpr char kSignature[] = "PGCOPY\n\377\r\n";
    out_.append(kSignature, 11);
    put32(0);  // flags
    put32(0);  // header extension length
  }
  void row(int16_t fields) { put16(fields); }
  void null() { put32(-1); }
  void text(std::string_view s) {
    put32(static_cast<int32_t>(s.size()));
    out_.append(s);
  }
  void int32(int32_t v) {
    put32(4);
    put32(v);
  }
  void int64(int64_t v) {
    put32(8);
    put64(v);
  }
  void boolean(bool v) {
    put32(1);
    out_.push_back(v ? 1 : 0);
  }
  // timestamptz: microseconds since 2000-01-01 00:00:00 UTC.
  void timestamp_ms(int64_t epoch_ms) {
    constexpr int64_t kPostgresEpochUs = 946684800000000;
    int64(epoch_ms * 1000 - kPostgresEpochUs);
  }
  // jsonb: a version byte (1), then the JSON text.
  void jsonb(std::string_view json) {
    put32(static_cast<int32_t>(json.size() + 1));
    out_.push_back(1);
    out_.append(json);
  }
  void end() { put16(-1); }

 private:
  void put16(int16_t v) {
    const auto u = static_cast<uint16_t>(v);
    const char b[2] = {static_cast<char>(u >> 8), static_cast<char>(u)};
    out_.append(b, 2);
  }
  void put32(int32_t v) {
    const auto u = static_cast<uint32_t>(v);
    const char b[4] = {static_cast<char>(u >> 24), static_cast<char>(u >> 16), static_cast<char>(u >> 8),
                       static_cast<char>(u)};
    out_.append(b, 4);
  }
  void put64(int64_t v) {
    put32(static_cast<int32_t>(static_cast<uint64_t>(v) >> 32));
    put32(static_cast<int32_t>(static_cast<uint64_t>(v)));
  }

  std::string& out_;
};

}  // namespace krow::pg
