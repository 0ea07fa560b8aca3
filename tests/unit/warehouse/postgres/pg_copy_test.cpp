// PostgreSQL's binary COPY encoding of numeric (warehouse/postgres/pg_copy.hpp), against the
// bytes PostgreSQL's own numeric_send writes for the same values (base-10000 digits, weight,
// sign, display scale), worked out by hand from its documented format.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rows/typed_values.hpp"
#include "warehouse/postgres/postgres_copy.hpp"

namespace krow::pg {
namespace {

// The field's bytes after its length: ndigits, weight, sign, dscale, digits, as 16-bit values.
std::vector<int> numeric(rows::UInt128 magnitude, bool negative, int scale) {
  std::string out;
  CopyWriter w(out);
  w.numeric(magnitude, negative, scale);
  std::vector<int> v;
  for (size_t i = 4; i + 1 < out.size(); i += 2)
    v.push_back(
        static_cast<int16_t>(static_cast<uint8_t>(out[i]) << 8 | static_cast<uint8_t>(out[i + 1])));
  const int length = static_cast<uint8_t>(out[2]) << 8 | static_cast<uint8_t>(out[3]);
  EXPECT_EQ(length, static_cast<int>(out.size()) - 4);
  return v;
}

TEST(PgCopy, Numeric) {
  // -1234.50 as numeric(12,2): digits 1234 5000, weight 0, negative, dscale 2.
  EXPECT_EQ(numeric(123450, true, 2), (std::vector<int>{2, 0, 0x4000, 2, 1234, 5000}));
  // 0.05: one digit 500 at weight -1.
  EXPECT_EQ(numeric(5, false, 2), (std::vector<int>{1, -1, 0, 2, 500}));
  // 10000: one digit 1 at weight 1 (trailing zero groups are left out).
  EXPECT_EQ(numeric(10000, false, 0), (std::vector<int>{1, 1, 0, 0, 1}));
  // Zero has no digits, and no sign.
  EXPECT_EQ(numeric(0, true, 3), (std::vector<int>{0, 0, 0, 3}));
  // 2^64 - 1, as numeric(20,0): 1844 6744 0737 0955 1615.
  EXPECT_EQ(numeric(18446744073709551615u, false, 0),
            (std::vector<int>{5, 4, 0, 0, 1844, 6744, 737, 955, 1615}));
  // 38 digits with 10 after the point: 1234567890123456789012345678.9012345678.
  rows::Int128 v;
  ASSERT_TRUE(rows::parse_decimal("1234567890123456789012345678.9012345678", 38, 10, v));
  EXPECT_EQ(
      numeric(static_cast<rows::UInt128>(v), false, 10),
      (std::vector<int>{10, 6, 0, 10, 1234, 5678, 9012, 3456, 7890, 1234, 5678, 9012, 3456, 7800}));
}

}  // namespace
}  // namespace krow::pg
