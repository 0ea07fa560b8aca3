// Avro value text forms (codec/avro/avro_format): decimals, dates, times, timestamps,
// UUIDs and floating-point numbers. Expected texts were worked out by hand: day counts from
// 365 days a year plus leap days, two's-complement bytes from their definition.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "codec/avro/avro_format.hpp"

namespace krow::avro {
namespace {

std::vector<uint8_t> hex(std::string_view h) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<uint8_t>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  return out;
}

std::string decimal(std::string_view h, int32_t scale) {
  const auto bytes = hex(h);
  std::string out = "prefix:";
  append_decimal(out, bytes.data(), bytes.size(), scale);
  return out.substr(7);
}

// A test-local encoder: the minimal two's-complement big-endian bytes of a decimal integer
// written as text ("-123"), by schoolbook multiply-add — independent of the decoder's
// repeated division.
std::vector<uint8_t> twos_complement(std::string_view digits) {
  const bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.remove_prefix(1);
  std::vector<uint8_t> mag{0};  // big-endian magnitude
  for (char c : digits) {
    unsigned carry = static_cast<unsigned>(c - '0');
    for (size_t i = mag.size(); i-- > 0;) {
      const unsigned v = mag[i] * 10u + carry;
      mag[i] = static_cast<uint8_t>(v);
      carry = v >> 8;
    }
    if (carry) mag.insert(mag.begin(), static_cast<uint8_t>(carry));
  }
  if (negative) {
    for (auto& b : mag) b = static_cast<uint8_t>(~b);
    for (size_t i = mag.size(); i-- > 0;) {
      if (++mag[i] != 0) break;
    }
  }
  // One sign byte more than needed, then trimmed to the shortest form.
  mag.insert(mag.begin(), negative ? 0xff : 0x00);
  while (mag.size() > 1 && ((mag[0] == 0x00 && !(mag[1] & 0x80)) || (mag[0] == 0xff && (mag[1] & 0x80)))) {
    mag.erase(mag.begin());
  }
  return mag;
}

TEST(AvroDecimal, SmallValuesWithScale) {
  EXPECT_EQ(decimal("fe1dc6", 2), "-1234.50");  // -123450 = 0x1000000 - 0x01e23a
  EXPECT_EQ(decimal("01e23a", 2), "1234.50");
  EXPECT_EQ(decimal("05", 2), "0.05");
  EXPECT_EQ(decimal("00", 2), "0.00");
  EXPECT_EQ(decimal("00", 0), "0");
  EXPECT_EQ(decimal("", 0), "0");
  EXPECT_EQ(decimal("ff", 0), "-1");
  EXPECT_EQ(decimal("ff", 3), "-0.001");
  EXPECT_EQ(decimal("80", 0), "-128");
  EXPECT_EQ(decimal("7f", 1), "12.7");
  EXPECT_EQ(decimal("0000000005", 1), "0.5");  // redundant sign bytes are allowed
  EXPECT_EQ(decimal("ffffffff9c", 2), "-1.00");
}

TEST(AvroDecimal, SixtyFourBitEdges) {
  EXPECT_EQ(decimal("8000000000000000", 0), "-9223372036854775808");
  EXPECT_EQ(decimal("7fffffffffffffff", 0), "9223372036854775807");
  EXPECT_EQ(decimal("7fffffffffffffff", 19), "0.9223372036854775807");
  EXPECT_EQ(decimal("ffffffffffffffff", 0), "-1");
  EXPECT_EQ(decimal("010000000000000000", 0), "18446744073709551616");     // 2^64, nine bytes
  EXPECT_EQ(decimal("ff7fffffffffffffff", 0), "-9223372036854775809");     // -2^63 - 1
  EXPECT_EQ(decimal("00ffffffffffffffff", 0), "18446744073709551615");     // 2^64 - 1
}

TEST(AvroDecimal, LargeValues) {
  EXPECT_EQ(decimal("009bd30a3c645943dd1690a03a83", 3), "12345678901234567890123456789.123");
  EXPECT_EQ(decimal("ff642cf5c39ba6bc22e96f5fc57d", 3), "-12345678901234567890123456789.123");
  EXPECT_EQ(decimal("1d6329f1c35ca4bfabb9f5610000000000", 0), "10000000000000000000000000000000000000000");
  EXPECT_EQ(decimal("1d6329f1c35ca4bfabb9f5610000000000", 40), "1.0000000000000000000000000000000000000000");
  EXPECT_EQ(decimal("1d6329f1c35ca4bfabb9f5610000000000", 45), "0.000010000000000000000000000000000000000000000");
}

TEST(AvroDecimal, AgreesWithAnIndependentEncoderOnRandomDigits) {
  std::mt19937_64 rng(20260101);
  for (int round = 0; round < 2000; ++round) {
    const int length = 1 + static_cast<int>(rng() % 120);
    std::string text = rng() % 2 ? "-" : "";
    text.push_back(static_cast<char>('1' + rng() % 9));
    for (int i = 1; i < length; ++i) text.push_back(static_cast<char>('0' + rng() % 10));
    const auto bytes = twos_complement(text);
    std::string out;
    append_decimal(out, bytes.data(), bytes.size(), 0);
    ASSERT_EQ(out, text) << "round " << round;
  }
}

TEST(AvroDecimal, LongestAcceptedValue) {
  // 2^8191 - 1 (1024 bytes 7f ff ..) has 2466 digits; -2^8191 is its negative minus one.
  std::vector<uint8_t> max(kMaxDecimalBytes, 0xff);
  max[0] = 0x7f;
  std::string out;
  append_decimal(out, max.data(), max.size(), 0);
  EXPECT_EQ(out.size(), 2466u);
  EXPECT_EQ(out.substr(out.size() - 4), "6447");  // 2^8191 ends in ...6448
  std::vector<uint8_t> min(kMaxDecimalBytes, 0x00);
  min[0] = 0x80;
  std::string neg;
  append_decimal(neg, min.data(), min.size(), 2);
  EXPECT_EQ(neg.size(), 2466u + 2u);
  EXPECT_EQ(neg.substr(0, 1), "-");
  EXPECT_EQ(neg.substr(neg.size() - 5), "64.48");
}

std::string date(int64_t days) {
  std::string out;
  append_date(out, days);
  return out;
}

TEST(AvroDate, DaysSinceEpoch) {
  EXPECT_EQ(date(0), "1970-01-01");
  EXPECT_EQ(date(-1), "1969-12-31");
  EXPECT_EQ(date(19723), "2024-01-01");  // 54 * 365 + 13 leap days
  EXPECT_EQ(date(19782), "2024-02-29");  // + 31 + 28
  EXPECT_EQ(date(19783), "2024-03-01");
  EXPECT_EQ(date(-719162), "0001-01-01");
  EXPECT_EQ(date(-719528), "0000-01-01");  // year 0 is a leap year
  EXPECT_EQ(date(-719529), "-0001-12-31");
  EXPECT_EQ(date(2932896), "9999-12-31");
  EXPECT_EQ(date(2932897), "+10000-01-01");
  EXPECT_EQ(date(std::numeric_limits<int32_t>::max()), "+5881580-07-11");
  EXPECT_EQ(date(std::numeric_limits<int32_t>::min()), "-5877641-06-23");
}

TEST(AvroTime, TimeOfDay) {
  std::string out;
  append_time_of_day(out, 45296789, 3);
  EXPECT_EQ(out, "12:34:56.789");
  out.clear();
  append_time_of_day(out, 45296789012, 6);
  EXPECT_EQ(out, "12:34:56.789012");
  out.clear();
  append_time_of_day(out, 0, 3);
  EXPECT_EQ(out, "00:00:00.000");
  out.clear();
  append_time_of_day(out, 86399999, 3);
  EXPECT_EQ(out, "23:59:59.999");
}

std::string ts(int64_t v, int digits, bool utc = true) {
  std::string out;
  append_timestamp(out, v, digits, utc);
  return out;
}

TEST(AvroTimestamp, PositiveAndNegative) {
  // 2026-01-01 is 20454 days (56 * 365 + 14 leap days) = 1767225600 s after the epoch.
  EXPECT_EQ(ts(1767225600123, 3), "2026-01-01T00:00:00.123Z");
  EXPECT_EQ(ts(1767225600123456, 6), "2026-01-01T00:00:00.123456Z");
  EXPECT_EQ(ts(1767225600123456789, 9), "2026-01-01T00:00:00.123456789Z");
  EXPECT_EQ(ts(1767225600123, 3, false), "2026-01-01T00:00:00.123");
  EXPECT_EQ(ts(0, 3), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(ts(-1, 3), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(ts(-1, 6), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(ts(-1, 9, false), "1969-12-31T23:59:59.999999999");
  EXPECT_EQ(ts(-86400000, 3), "1969-12-31T00:00:00.000Z");
  EXPECT_EQ(ts(-86400001, 3), "1969-12-30T23:59:59.999Z");
  EXPECT_EQ(ts(45296789, 3), "1970-01-01T12:34:56.789Z");
}

TEST(AvroTimestamp, Int64Extremes) {
  EXPECT_EQ(ts(std::numeric_limits<int64_t>::max(), 9), "2262-04-11T23:47:16.854775807Z");
  EXPECT_EQ(ts(std::numeric_limits<int64_t>::min(), 9), "1677-09-21T00:12:43.145224192Z");
  // Millisecond extremes lie ~292 million years away: only the shape is checked.
  const std::string max_ms = ts(std::numeric_limits<int64_t>::max(), 3);
  EXPECT_EQ(max_ms.substr(0, 1), "+");
  EXPECT_EQ(max_ms.substr(max_ms.size() - 5), ".807Z");
  const std::string min_ms = ts(std::numeric_limits<int64_t>::min(), 3);
  EXPECT_EQ(min_ms.substr(0, 1), "-");
  EXPECT_EQ(min_ms.substr(min_ms.size() - 5), ".192Z");  // -...808 ms = -...809 s + 0.192 s
}

TEST(AvroUuid, LowercaseHexGroups) {
  const auto bytes = hex("00112233445566778899aabbccddeeff");
  std::string out;
  append_uuid(out, bytes.data());
  EXPECT_EQ(out, "00112233-4455-6677-8899-aabbccddeeff");
}

std::string dbl(double v) {
  std::string out;
  append_double(out, v);
  return out;
}

std::string flt(float v) {
  std::string out;
  append_float(out, v);
  return out;
}

TEST(AvroFloating, ShortestRoundTripAndNonFinite) {
  EXPECT_EQ(dbl(0.1), "0.1");
  EXPECT_EQ(dbl(1.5), "1.5");
  EXPECT_EQ(dbl(-2.0), "-2");
  EXPECT_EQ(dbl(-0.0), "-0");
  EXPECT_EQ(dbl(1e300), "1e+300");
  EXPECT_EQ(dbl(5e-324), "5e-324");
  EXPECT_EQ(dbl(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(dbl(std::numeric_limits<double>::quiet_NaN()), "\"NaN\"");
  EXPECT_EQ(dbl(std::numeric_limits<double>::infinity()), "\"Infinity\"");
  EXPECT_EQ(dbl(-std::numeric_limits<double>::infinity()), "\"-Infinity\"");
  EXPECT_EQ(flt(0.1f), "0.1");
  EXPECT_EQ(flt(3.4028235e38f), "3.4028235e+38");
  EXPECT_EQ(flt(std::numeric_limits<float>::quiet_NaN()), "\"NaN\"");
  EXPECT_EQ(flt(-std::numeric_limits<float>::infinity()), "\"-Infinity\"");
}

}  // namespace
}  // namespace krow::avro
