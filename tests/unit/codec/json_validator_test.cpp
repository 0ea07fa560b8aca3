// JsonValidator: exactly one RFC 8259 document, surrounding whitespace allowed.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "codec/json_validator.hpp"

namespace krow {
namespace {

class JsonValidatorTest : public ::testing::Test {
 protected:
  JsonValidator v;

  // Copies `text` into a heap block of exactly its size, so that ASan sees any read past
  // the end (there is no terminating NUL to hide it).
  bool valid(std::string_view text) {
    auto buf = std::make_unique<char[]>(text.size());
    if (!text.empty()) std::memcpy(buf.get(), text.data(), text.size());
    return v.is_document(std::string_view(buf.get(), text.size()));
  }
};

TEST_F(JsonValidatorTest, AcceptsEveryKindOfValue) {
  for (const char* doc : {"{}", "[]", "{\"a\":1}", "[1,\"two\",true,false,null,{},[]]", "0",
                          "-0", "0.5e-3", "1E+9", "-12.5", "\"\"", "\"x\"", "true", "false",
                          "null", "{\"a\":{\"b\":[{\"c\":null}]}}"}) {
    EXPECT_TRUE(valid(doc)) << doc;
  }
}

TEST_F(JsonValidatorTest, AcceptsSurroundingAndInnerWhitespace) {
  EXPECT_TRUE(valid(" \t\r\n{ \"a\" : [ 1 , 2 ] }\r\n "));
  EXPECT_TRUE(valid("\n42\n"));
}

TEST_F(JsonValidatorTest, AcceptsNumbersOfAnySize) {
  EXPECT_TRUE(valid("123456789012345678901234567890"));
  EXPECT_TRUE(valid("1e400"));
  EXPECT_TRUE(valid("-1.000000000000000000000000000001e-400"));
}

TEST_F(JsonValidatorTest, RejectsMalformedNumbers) {
  for (const char* doc : {"+1", ".5", "1.", "1e", "1e+", "01", "-", "-01", "0x10", "1.5.2",
                          "NaN", "Infinity", "-Infinity", "1 2"}) {
    EXPECT_FALSE(valid(doc)) << doc;
  }
}

TEST_F(JsonValidatorTest, RejectsEmptyAndWhitespaceOnly) {
  EXPECT_FALSE(valid(""));
  EXPECT_FALSE(valid(" \t\r\n"));
}

TEST_F(JsonValidatorTest, RejectsTrailingGarbage) {
  for (const char* doc : {"{} x", "[1]]", "{}{}", "truex", "null,", "\"a\"\"b\"", "1 ;"}) {
    EXPECT_FALSE(valid(doc)) << doc;
  }
}

TEST_F(JsonValidatorTest, RejectsBrokenStructure) {
  for (const char* doc : {"{\"a\":}", "[1,]", "[,1]", "{\"a\":1,}", "{,}", "{\"a\" 1}", "{a:1}",
                          "{\"a\":1]", "[1}", "[", "{", "]", "[1 2]", "{\"a\"}", "{1:2}",
                          "{'a':1}", "tru", "nul", "True"}) {
    EXPECT_FALSE(valid(doc)) << doc;
  }
}

TEST_F(JsonValidatorTest, StringEscapes) {
  EXPECT_TRUE(valid(R"("\" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00 \uABCD")"));
  EXPECT_FALSE(valid(R"("\u12")"));
  EXPECT_FALSE(valid(R"("\u12G4")"));
  EXPECT_FALSE(valid(R"("\x41")"));
  EXPECT_FALSE(valid(R"("\')"));
  EXPECT_FALSE(valid("\"\\"));
  EXPECT_FALSE(valid(R"("unterminated)"));
}

TEST_F(JsonValidatorTest, RejectsRawControlCharactersInStrings) {
  EXPECT_FALSE(valid("\"a\tb\""));
  EXPECT_FALSE(valid("\"a\nb\""));
  EXPECT_FALSE(valid("\"a\x01" "b\""));
  EXPECT_FALSE(valid(std::string_view("\"\0\"", 3)));
  EXPECT_TRUE(valid("\"a\x7f" "b\""));  // DEL is not a JSON control character
}

TEST_F(JsonValidatorTest, AllowsDuplicateKeys) {
  EXPECT_TRUE(valid(R"({"a":1,"a":2})"));
}

TEST_F(JsonValidatorTest, TruncatedInputNeverReadsPastTheEnd) {
  const std::string doc = R"({"key":[true,false,null,-1.5e+10,"s\u00e9\n"]})";
  for (size_t n = 0; n < doc.size(); ++n) EXPECT_FALSE(valid(doc.substr(0, n))) << n;
  EXPECT_TRUE(valid(doc));
}

TEST_F(JsonValidatorTest, DeepNestingDoesNotCrash) {
  const size_t depth = 10000;
  const std::string balanced = std::string(depth, '[') + std::string(depth, ']');
  const bool first = valid(balanced);
  EXPECT_EQ(valid(balanced), first) << "the answer must not depend on earlier calls";
  EXPECT_FALSE(valid(std::string(depth, '[')));
  EXPECT_FALSE(valid(balanced + "]"));

  std::string objects;
  for (size_t i = 0; i < depth; ++i) objects += "{\"a\":";
  objects += "1" + std::string(depth, '}');
  EXPECT_EQ(valid(objects), valid(objects));
  EXPECT_FALSE(valid(objects.substr(0, objects.size() - 1)));
}

TEST_F(JsonValidatorTest, IsReusableAfterAnyInput) {
  EXPECT_FALSE(valid("[[[[{\"a\":["));
  EXPECT_TRUE(valid("[]"));
  EXPECT_FALSE(valid("{\"a\":[1,"));
  EXPECT_TRUE(valid("1"));
}

}  // namespace
}  // namespace krow
