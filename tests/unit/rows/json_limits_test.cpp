// What an engine's JSON type refuses of valid JSON, found before the engine refuses it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rows/json_limits.hpp"

namespace krow::rows {
namespace {

using ::testing::HasSubstr;

// PostgreSQL jsonb's limits.
constexpr JsonLimits kJsonb{false, false, 131072, 16383};

TEST(JsonLimits, UnlimitedAcceptsEverything) {
  EXPECT_EQ(json_refusal(R"(["\u0000", "\ud800", 1e999999])", JsonLimits{}), "");
}

TEST(JsonLimits, NulInAString) {
  EXPECT_THAT(json_refusal(R"({"a":"x\u0000"})", kJsonb), HasSubstr("U+0000"));
  EXPECT_THAT(json_refusal(R"({"\u0000":1})", kJsonb), HasSubstr("U+0000"));  // keys are strings too
  EXPECT_EQ(json_refusal(R"({"a":"\\u0000"})", kJsonb), "");  // an escaped backslash, then text
  EXPECT_EQ(json_refusal(R"({"a":"\u0001\n\"\u00e9"})", kJsonb), "");
}

TEST(JsonLimits, Surrogates) {
  EXPECT_EQ(json_refusal(R"("\ud83d\ude00")", kJsonb), "");  // a pair: one character
  EXPECT_THAT(json_refusal(R"("\ud83d")", kJsonb), HasSubstr("unpaired"));
  EXPECT_THAT(json_refusal(R"("\ud83dx")", kJsonb), HasSubstr("unpaired"));
  EXPECT_THAT(json_refusal(R"("\ude00")", kJsonb), HasSubstr("unpaired"));
  EXPECT_THAT(json_refusal(R"("\ud83d\ud83d")", kJsonb), HasSubstr("unpaired"));
}

TEST(JsonLimits, NumbersWithinNumericsRange) {
  // As PostgreSQL 15 answered: 1e131071 and 1e-16383 are stored, one digit more is not.
  EXPECT_EQ(json_refusal("1e131071", kJsonb), "");
  EXPECT_THAT(json_refusal("1e131072", kJsonb), HasSubstr("before the decimal point"));
  EXPECT_EQ(json_refusal("1e-16383", kJsonb), "");
  EXPECT_THAT(json_refusal("[1e-16384]", kJsonb), HasSubstr("after the decimal point"));
  EXPECT_THAT(json_refusal("0e-20000", kJsonb), HasSubstr("after the decimal point"));
  EXPECT_EQ(json_refusal("0.5E+1", kJsonb), "");
  EXPECT_EQ(json_refusal(R"({"big": 123456789012345678901234567890, "n": -0.000123})", kJsonb), "");
  EXPECT_EQ(json_refusal("0.00012e5", kJsonb), "");
  EXPECT_THAT(json_refusal("1e99999999999999999999", kJsonb), HasSubstr("before the decimal point"));
  // Digits inside strings are text.
  EXPECT_EQ(json_refusal(R"("1e999999")", kJsonb), "");
}

}  // namespace
}  // namespace krow::rows
