// confluent.type.Decimal's text (codec/protobuf/decimal_text): big-endian two's-complement
// unscaled values of any length, every kind of scale. Expected strings worked out by hand.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codec/protobuf/decimal_text.hpp"

namespace krow::pb {
namespace {

std::string text(const std::vector<uint8_t>& unscaled, int32_t scale) {
  std::string out = "x";  // appends
  EXPECT_TRUE(append_decimal(out, unscaled.data(), unscaled.size(), scale));
  return out.substr(1);
}

TEST(ProtobufDecimalTest, SmallValues) {
  EXPECT_EQ(text({}, 0), "0");
  EXPECT_EQ(text({0x00}, 0), "0");
  EXPECT_EQ(text({0x01}, 0), "1");
  EXPECT_EQ(text({0x7f}, 0), "127");
  EXPECT_EQ(text({0x80}, 0), "-128");
  EXPECT_EQ(text({0xff}, 0), "-1");
  EXPECT_EQ(text({0x00, 0x80}, 0), "128");
  EXPECT_EQ(text({0x30, 0x39}, 2), "123.45");
  EXPECT_EQ(text({0xcf, 0xc7}, 2), "-123.45");
}

TEST(ProtobufDecimalTest, Scales) {
  EXPECT_EQ(text({0x01}, 3), "0.001");
  EXPECT_EQ(text({0xff}, 3), "-0.001");
  EXPECT_EQ(text({0x03, 0xe8}, 3), "1.000");     // 1000
  EXPECT_EQ(text({}, 2), "0.00");
  EXPECT_EQ(text({0x0c}, -2), "1200");          // 12 × 10²
  EXPECT_EQ(text({0xf4}, -1), "-120");          // -12 × 10
  EXPECT_EQ(text({0x00}, -5), "0");
  EXPECT_EQ(text({0x30, 0x39}, 5), "0.12345");
  EXPECT_EQ(text({0x30, 0x39}, 4), "1.2345");
}

TEST(ProtobufDecimalTest, LongValues) {
  // 10^9 and 10^18 cross the printer's 9-digit chunks.
  EXPECT_EQ(text({0x3b, 0x9a, 0xca, 0x00}, 0), "1000000000");
  EXPECT_EQ(text({0x0d, 0xe0, 0xb6, 0xb3, 0xa7, 0x64, 0x00, 0x00}, 0), "1000000000000000000");
  EXPECT_EQ(text({0x0d, 0xe0, 0xb6, 0xb3, 0xa7, 0x64, 0x00, 0x01}, 18), "1.000000000000000001");
  // The extremes of a signed 64-bit value, and one beyond.
  EXPECT_EQ(text({0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0), "9223372036854775807");
  EXPECT_EQ(text({0x80, 0, 0, 0, 0, 0, 0, 0}, 0), "-9223372036854775808");
  EXPECT_EQ(text({0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0), "-9223372036854775809");
  // -2^127 and 2^127 - 1 (a DECIMAL(38) column's neighbours).
  std::vector<uint8_t> min128(16, 0x00), max128(16, 0xff);
  min128[0] = 0x80;
  max128[0] = 0x7f;
  EXPECT_EQ(text(min128, 0), "-170141183460469231731687303715884105728");
  EXPECT_EQ(text(max128, 38), "1.70141183460469231731687303715884105727");
  // Leading sign-extension bytes change nothing.
  EXPECT_EQ(text({0xff, 0xff, 0xff, 0xcf, 0xc7}, 2), "-123.45");
  EXPECT_EQ(text({0x00, 0x00, 0x00, 0x30, 0x39}, 2), "123.45");
}

TEST(ProtobufDecimalTest, LargestAcceptedValue) {
  // 1024 bytes of 0xff is -1; 0x7f then 1023 bytes of 0xff is 2^8191 - 1, 2,466 digits.
  std::vector<uint8_t> minus_one(kMaxDecimalBytes, 0xff);
  EXPECT_EQ(text(minus_one, 0), "-1");
  std::vector<uint8_t> huge(kMaxDecimalBytes, 0xff);
  huge[0] = 0x7f;
  const std::string digits = text(huge, 0);
  EXPECT_EQ(digits.size(), 2466u);
  EXPECT_EQ(digits.substr(digits.size() - 4), "6447");  // 2^8191 - 1 ends in ...6447
}

TEST(ProtobufDecimalTest, BoundsAreRefused) {
  std::string out = "x";
  const std::vector<uint8_t> too_long(kMaxDecimalBytes + 1, 0x01);
  EXPECT_FALSE(append_decimal(out, too_long.data(), too_long.size(), 0));
  const uint8_t one = 1;
  EXPECT_FALSE(append_decimal(out, &one, 1, kMaxDecimalScale + 1));
  EXPECT_FALSE(append_decimal(out, &one, 1, -kMaxDecimalScale - 1));
  EXPECT_EQ(out, "x");
  EXPECT_TRUE(append_decimal(out, &one, 1, kMaxDecimalScale));
  EXPECT_EQ(out.size(), 1u + 2u + static_cast<size_t>(kMaxDecimalScale));  // "x" + "0." + digits
}

}  // namespace
}  // namespace krow::pb
