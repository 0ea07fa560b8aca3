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
  void timestamp_ms(int64_t epoch_ms) { timestamp_us(epoch_ms * 1000); }
  // timestamptz from microseconds since 1970-01-01 00:00:00 UTC.
  void timestamp_us(int64_t epoch_us) { int64(epoch_us - kPostgresEpochUs); }
  // date: days since 2000-01-01.
  void date(int64_t epoch_days) { int32(static_cast<int32_t>(epoch_days - kPostgresEpochDays)); }
  // time: microseconds since midnight.
  void time(int64_t micros) { int64(micros); }
  void float32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    put32(4);
    put32(static_cast<int32_t>(bits));
  }
  void float64(double v) {
    int64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    int64(bits);
  }
  // numeric: the unscaled value of a decimal with `scale` digits after the point, as
  // PostgreSQL's base-10000 digits (most significant first), the weight of the first one,
  // a sign and the display scale. `magnitude` is the unscaled value's absolute value.
  template <class Unsigned>
  void numeric(Unsigned magnitude, bool negative, int scale) {
    // Decimal digits of the magnitude, least significant first.
    char dec[48];
    int n = 0;
    for (; magnitude != 0; magnitude /= 10) dec[n++] = static_cast<char>(magnitude % 10);
    int16_t groups[16];
    int count = 0;
    // Base-10000 digits are aligned on the decimal point: the group holding decimal digit i
    // (0 = the last integer digit's place is scale) is floor((i - scale) / 4) above it.
    const int low = -((scale + 3) / 4);                     // weight of the last fractional group
    const int high = n > scale ? (n - scale - 1) / 4 : -1;  // weight of the first integer group
    for (int weight = high; weight >= low; --weight) {
      int v = 0;
      for (int d = 3; d >= 0; --d) {
        const int i = scale + weight * 4 + d;  // decimal place of this digit in `dec`
        v = v * 10 + (i >= 0 && i < n ? dec[i] : 0);
      }
      groups[count++] = static_cast<int16_t>(v);
    }
    int first = 0, last = count;
    while (first < last && groups[first] == 0) ++first;
    while (last > first && groups[last - 1] == 0) --last;
    const int ndigits = last - first;
    put32(8 + 2 * ndigits);
    put16(static_cast<int16_t>(ndigits));
    put16(static_cast<int16_t>(ndigits ? high - first : 0));
    put16(static_cast<int16_t>(ndigits && negative ? 0x4000 : 0));
    put16(static_cast<int16_t>(scale));
    for (int g = first; g < last; ++g) put16(groups[g]);
  }
  // jsonb: a version byte (1), then the JSON text.
  void jsonb(std::string_view json) {
    put32(static_cast<int32_t>(json.size() + 1));
    out_.push_back(1);
    out_.append(json);
  }
  void end() { put16(-1); }

 private:
  static constexpr int64_t kPostgresEpochUs = 946684800000000;  // 2000-01-01 in Unix microseconds
  static constexpr int64_t kPostgresEpochDays = 10957;          // 2000-01-01 in Unix days

  void put16(int16_t v) {
    const auto u = static_cast<uint16_t>(v);
    const char b[2] = {static_cast<char>(u >> 8), static_cast<char>(u)};
    out_.append(b, 2);
  }
  void put32(int32_t v) {
    const auto u = static_cast<uint32_t>(v);
    const char b[4] = {static_cast<char>(u >> 24), static_cast<char>(u >> 16),
                       static_cast<char>(u >> 8), static_cast<char>(u)};
    out_.append(b, 4);
  }
  void put64(int64_t v) {
    put32(static_cast<int32_t>(static_cast<uint64_t>(v) >> 32));
    put32(static_cast<int32_t>(static_cast<uint64_t>(v)));
  }

  std::string& out_;
};

}  // namespace krow::pg
