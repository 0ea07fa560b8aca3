// util/text: base64, JSON string literals, UTF-8 checks, number formatting.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>
#include <string_view>

#include "codec/json_validator.hpp"
#include "util/text.hpp"

namespace krow {
namespace {

std::string base64(std::string_view bytes) {
  std::string out;
  append_base64(out, bytes.data(), bytes.size());
  return out;
}

std::string json_string(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

TEST(Base64, Rfc4648TestVectors) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
}

TEST(Base64, UsesTheStandardAlphabetNotUrlSafe) {
  EXPECT_EQ(base64("\xfb\xef\xbe"), "++++");
  EXPECT_EQ(base64("\xff\xff\xff"), "////");
  EXPECT_EQ(base64(std::string_view("\0\0\0", 3)), "AAAA");
}

TEST(Base64, AppendsAfterExistingText) {
  std::string out = "x=";
  append_base64(out, "hi", 2);
  EXPECT_EQ(out, "x=aGk=");
}

TEST(Base64, DecodesWhatItEncodesAndRefusesTheRest) {
  const std::vector<std::string> inputs{"", "f", "fo", "foo", "foob", "fooba", "foobar", std::string("\0\xff\x10", 3)};
  for (const std::string& in : inputs) {
    std::string b64;
    append_base64(b64, in.data(), in.size());
    EXPECT_EQ(decode_base64(b64), in) << b64;
  }
  EXPECT_EQ(decode_base64("Zm9v\nYmFy"), "foobar");  // line breaks ignored
  for (const char* bad : {"Zm9", "Zm9v!", "Zm=v", "Zg==Zg==", "Z===", "syntax = \"proto3\";"})
    EXPECT_EQ(decode_base64(bad), std::nullopt) << bad;
}

TEST(JsonString, PlainTextIsOnlyQuoted) {
  EXPECT_EQ(json_string(""), R"("")");
  EXPECT_EQ(json_string("hello world"), R"("hello world")");
  EXPECT_EQ(json_string("a/b"), R"("a/b")");
  EXPECT_EQ(json_string("caf\xc3\xa9 \xe2\x82\xac"), "\"caf\xc3\xa9 \xe2\x82\xac\"");
}

TEST(JsonString, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(json_string("\"q\" \\"), R"("\"q\" \\")");
  EXPECT_EQ(json_string("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(json_string(std::string_view("a\0b", 3)), R"("a\u0000b")");
  EXPECT_EQ(json_string("\x01\x1f"), R"("\u0001\u001f")");
  EXPECT_EQ(json_string("x\x1b[1m"), R"("x\u001b[1m")");
}

TEST(JsonString, ResultIsAValidJsonDocument) {
  JsonValidator v;
  std::string every_ascii;
  for (int c = 0; c < 128; ++c) every_ascii.push_back(static_cast<char>(c));
  EXPECT_TRUE(v.is_document(json_string(every_ascii)));
}

TEST(JsonString, AppendsAfterExistingText) {
  std::string out = "[";
  append_json_string(out, "a");
  EXPECT_EQ(out, "[\"a\"");
}

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("\xc3\xa9"));              // U+00E9
  EXPECT_TRUE(is_valid_utf8("\xe2\x82\xac"));          // U+20AC
  EXPECT_TRUE(is_valid_utf8("\xf0\x9f\x98\x80"));      // U+1F600
  EXPECT_TRUE(is_valid_utf8("\xf4\x8f\xbf\xbf"));      // U+10FFFF, the last code point
  EXPECT_TRUE(is_valid_utf8(std::string_view("\0", 1)));
}

TEST(Utf8, RejectsMalformedText) {
  EXPECT_FALSE(is_valid_utf8("\xff"));
  EXPECT_FALSE(is_valid_utf8("\x80"));                 // lone continuation byte
  EXPECT_FALSE(is_valid_utf8("\xc3"));                 // truncated sequence
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));             // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xe0\x80\xaf"));         // overlong '/', 3 bytes
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));         // surrogate U+D800
  EXPECT_FALSE(is_valid_utf8("\xed\xbf\xbf"));         // surrogate U+DFFF
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));     // U+110000
  EXPECT_FALSE(is_valid_utf8("ok \xe2\x82"));          // truncated at the end
}

TEST(TextControls, AllowsOnlyTabCrLf) {
  EXPECT_TRUE(has_only_text_controls(""));
  EXPECT_TRUE(has_only_text_controls("a\tb\r\nc"));
  EXPECT_TRUE(has_only_text_controls("caf\xc3\xa9"));
  EXPECT_FALSE(has_only_text_controls(std::string_view("\0", 1)));
  EXPECT_FALSE(has_only_text_controls("\x01"));
  EXPECT_FALSE(has_only_text_controls("\x1f"));
  EXPECT_FALSE(has_only_text_controls("\x1b"));
  EXPECT_FALSE(has_only_text_controls("\x7f"));
  EXPECT_FALSE(has_only_text_controls("text\b"));
}

TEST(AppendInt, WritesDecimal) {
  std::string out;
  append_int(out, 0);
  out += ' ';
  append_int(out, -42);
  out += ' ';
  append_int(out, std::numeric_limits<int64_t>::min());
  out += ' ';
  append_int(out, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(out, "0 -42 -9223372036854775808 9223372036854775807");
}

TEST(WithThousands, GroupsDigitsByThree) {
  EXPECT_EQ(with_thousands(0), "0");
  EXPECT_EQ(with_thousands(7), "7");
  EXPECT_EQ(with_thousands(999), "999");
  EXPECT_EQ(with_thousands(1000), "1,000");
  EXPECT_EQ(with_thousands(100000), "100,000");
  EXPECT_EQ(with_thousands(1234567), "1,234,567");
  EXPECT_EQ(with_thousands(std::numeric_limits<uint64_t>::max()), "18,446,744,073,709,551,615");
}

TEST(ParseInt64, AllOfTheTextInDecimalOrNothing) {
  EXPECT_EQ(parse_int64("0"), 0);
  EXPECT_EQ(parse_int64("42"), 42);
  EXPECT_EQ(parse_int64("-7"), -7);
  EXPECT_EQ(parse_int64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parse_int64("-9223372036854775808"), INT64_MIN);
  for (const char* bad : {"", " 1", "1 ", "+1", "1x", "x", "1.5", "0x10", "9223372036854775808",
                          "-", "99999999999999999999999"})
    EXPECT_FALSE(parse_int64(bad)) << bad;
}

}  // namespace
}  // namespace krow
