// PayloadDecoder: how plain key and value bytes become the row's columns (docs/row-contract.md).
// Expected base64 strings were worked out by hand from RFC 4648.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "codec/format.hpp"
#include "codec/payload_decoder.hpp"
#include "codec/schema_decoder.hpp"
#include "codec/schema_source.hpp"

namespace krow {

// Readable failure messages: print a Format by its column name.
static void PrintTo(Format f, std::ostream* os) {
  *os << (f == Format::none ? std::string_view("none (NULL)") : format_name(f));
}

namespace {

using ::testing::HasSubstr;

class PayloadTest : public ::testing::Test {
 protected:
  // The arena already holds text from earlier rows: slices must point past it.
  std::string arena = "earlier rows";
  PayloadDecoder decoder{DecoderOptions{}};

  Decoded value(std::string_view bytes) {
    return decoder.decode_value(bytes.data(), bytes.size(), arena);
  }
  Decoded key(std::string_view bytes) {
    return decoder.decode_key(bytes.data(), bytes.size(), true, arena);
  }
  std::string text(const Slice& s) {
    EXPECT_TRUE(s.present);
    return std::string(s.view(arena));
  }

  // A value read as JSON keeps its exact text, and nothing else is set.
  void expect_json_value(std::string_view in) {
    SCOPED_TRACE(std::string(in));
    const Decoded d = value(in);
    EXPECT_EQ(d.format, Format::json);
    EXPECT_EQ(text(d.text), in);
    EXPECT_FALSE(d.base64.present);
    EXPECT_FALSE(d.error.present);
    EXPECT_FALSE(d.schema_id.has_value());
  }
  // A value read as text becomes this JSON string literal.
  void expect_string_value(std::string_view in, std::string_view literal) {
    SCOPED_TRACE(std::string(in));
    const Decoded d = value(in);
    EXPECT_EQ(d.format, Format::string);
    EXPECT_EQ(text(d.text), literal);
    EXPECT_FALSE(d.base64.present);
    EXPECT_FALSE(d.error.present);
  }
  // A binary value: value NULL, raw bytes in base64.
  void expect_binary_value(std::string_view in, std::string_view base64) {
    SCOPED_TRACE(::testing::PrintToString(std::string(in)));
    const Decoded d = value(in);
    EXPECT_EQ(d.format, Format::binary);
    EXPECT_FALSE(d.text.present);
    EXPECT_EQ(text(d.base64), base64);
    EXPECT_FALSE(d.schema_id.has_value());
  }
};

TEST(FormatName, MatchesTheColumnVocabulary) {
  EXPECT_EQ(format_name(Format::none), "");
  EXPECT_EQ(format_name(Format::json), "json");
  EXPECT_EQ(format_name(Format::string), "string");
  EXPECT_EQ(format_name(Format::binary), "binary");
  EXPECT_EQ(format_name(Format::schema_registry), "schema_registry");
  EXPECT_EQ(format_name(Format::avro), "avro");
  EXPECT_EQ(format_name(Format::protobuf), "protobuf");
  EXPECT_EQ(format_name(Format::json_schema), "json_schema");
}

TEST_F(PayloadTest, JsonDocumentsKeepTheirExactText) {
  expect_json_value(R"({"id":1,"name":"a"})");
  expect_json_value("[1, 2, {\"x\": [true, false]}]");
  expect_json_value("42");
  expect_json_value("-3.25e+2");
  expect_json_value(R"("just a string")");
  expect_json_value("true");
  expect_json_value("null");
  expect_json_value(" \t\r\n{\"a\" : 1}\n ");  // surrounding whitespace is kept as is
}

TEST_F(PayloadTest, NumbersOfAnySizeAreJson) {
  expect_json_value("123456789012345678901234567890");
  expect_json_value("1e400");
  expect_json_value("-0.000000000000000000000000000000000001");
}

TEST_F(PayloadTest, InvalidJsonTextIsAString) {
  expect_string_value("hello", R"("hello")");
  expect_string_value(R"({"a":})", R"("{\"a\":}")");
  expect_string_value("[1,]", R"("[1,]")");
  expect_string_value("01", R"("01")");
  expect_string_value(R"("unterminated)", R"("\"unterminated")");
  expect_string_value("{\"a\":1} trailing", R"("{\"a\":1} trailing")");
}

TEST_F(PayloadTest, StringsEscapeQuotesBackslashesAndTextControls) {
  expect_string_value("say \"hi\"\tC:\\dir\r\nnext", R"("say \"hi\"\tC:\\dir\r\nnext")");
  expect_string_value("caf\xc3\xa9 \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
}

TEST_F(PayloadTest, EmptyValueIsTheEmptyString) {
  expect_string_value("", R"("")");
}

TEST_F(PayloadTest, TextWithOtherControlCharactersIsBinary) {
  expect_binary_value("a\x01" "b", "YQFi");
  expect_binary_value(std::string_view("\0", 1), "AA==");
  expect_binary_value("\x1b[0m", "G1swbQ==");  // ANSI escape
  expect_binary_value("a\x7f", "YX8=");       // DEL
  expect_binary_value("\b\f", "CAw=");
}

TEST_F(PayloadTest, C1ControlCharactersAreBinary) {
  // docs/row-contract.md: `string` is UTF-8 text with no control characters but tab, CR
  // and LF. U+0080..U+009F (here U+0085, NEXT LINE, bytes C2 85) are Unicode control
  // characters (category Cc).
  expect_binary_value("a\xc2\x85" "b", "YcKFYg==");
}

TEST_F(PayloadTest, InvalidUtf8IsBinary) {
  expect_binary_value("\xff", "/w==");
  expect_binary_value("\xc0\xaf", "wK8=");          // overlong '/'
  expect_binary_value("\xed\xa0\x80", "7aCA");      // UTF-16 surrogate D800
  expect_binary_value("\xf4\x90\x80\x80", "9JCAgA=="); // above U+10FFFF
  expect_binary_value("{\"a\":\"\xff\"}", "eyJhIjoi/yJ9");  // JSON shape, not UTF-8
}

TEST_F(PayloadTest, SmallJavaLongIsBinaryNotFramed) {
  // 42 as an 8-byte big-endian long: starts with 0x00, but its "schema ID" would be 0.
  expect_binary_value(std::string_view("\0\0\0\0\0\0\0\x2a", 8), "AAAAAAAAACo=");
}

TEST_F(PayloadTest, FourBytesAreTooShortToBeFramed) {
  expect_binary_value(std::string_view("\0\0\0\x01", 4), "AAAAAQ==");
}

TEST_F(PayloadTest, FramedValueWithoutRegistryIsSchemaRegistry) {
  const Decoded d = value(std::string_view("\0\0\0\0\x01", 5));
  EXPECT_EQ(d.format, Format::schema_registry);
  EXPECT_EQ(d.schema_id, SchemaId(1));
  EXPECT_FALSE(d.text.present);  // value NULL
  EXPECT_EQ(text(d.base64), "AAAAAAE=");
  EXPECT_THAT(text(d.error), HasSubstr("no schema registry"));
}

TEST_F(PayloadTest, SchemaIdIsBigEndian) {
  const Decoded d = value(std::string_view("\0\x01\x02\x03\x04", 5));
  EXPECT_EQ(d.format, Format::schema_registry);
  EXPECT_EQ(d.schema_id, SchemaId(0x01020304));
  EXPECT_EQ(text(d.base64), "AAECAwQ=");
}

TEST_F(PayloadTest, WrongMagicByteIsNotFramedButKeptAsBinary) {
  // A frame-like value whose first byte is 0x01 (a future or foreign framing): never
  // looked up in the registry, stored as raw bytes.
  expect_binary_value(std::string_view("\x01\0\0\0\x07\x02\x08", 7), "AQAAAAcCCA==");
}

TEST_F(PayloadTest, FramedLookingTextIsStillFramed) {
  // Byte 0 is 0x00, so this can never be text; the rest happens to be JSON.
  const Decoded d = value(std::string_view("\0\0\0\0\x07{}", 7));
  EXPECT_EQ(d.format, Format::schema_registry);
  EXPECT_EQ(d.schema_id, SchemaId(7));
}

TEST(PayloadLimit, ValueOverTheLimitIsNotStored) {
  PayloadDecoder decoder{DecoderOptions{10}};
  std::string arena;
  const std::string big = "\"123456789\"";  // 11 bytes of valid JSON
  const Decoded d = decoder.decode_value(big.data(), big.size(), arena);
  EXPECT_EQ(d.format, Format::none);
  EXPECT_EQ(format_name(d.format), "");
  EXPECT_FALSE(d.text.present);
  EXPECT_FALSE(d.base64.present);
  ASSERT_TRUE(d.error.present);
  const std::string error(d.error.view(arena));
  EXPECT_THAT(error, HasSubstr("limit"));
  EXPECT_THAT(error, HasSubstr("10"));
  EXPECT_THAT(error, HasSubstr("11"));
}

TEST(PayloadLimit, FramedValueOverTheLimitIsNotStoredEither) {
  PayloadDecoder decoder{DecoderOptions{5}};
  std::string arena;
  const std::string_view framed("\0\0\0\0\x01\x02", 6);
  const Decoded d = decoder.decode_value(framed.data(), framed.size(), arena);
  EXPECT_EQ(d.format, Format::none);
  EXPECT_FALSE(d.base64.present);
  EXPECT_TRUE(d.error.present);
}

TEST(PayloadLimit, ValueExactlyAtTheLimitIsStored) {
  PayloadDecoder decoder{DecoderOptions{10}};
  std::string arena;
  const std::string exact = "\"12345678\"";  // 10 bytes
  const Decoded d = decoder.decode_value(exact.data(), exact.size(), arena);
  EXPECT_EQ(d.format, Format::json);
  EXPECT_EQ(d.text.view(arena), exact);
  EXPECT_FALSE(d.error.present);
}

TEST_F(PayloadTest, AbsentKeyIsNull) {
  const Decoded d = decoder.decode_key(nullptr, 0, false, arena);
  EXPECT_EQ(d.format, Format::none);
  EXPECT_FALSE(d.text.present);
  EXPECT_FALSE(d.base64.present);
  EXPECT_FALSE(d.error.present);
}

TEST_F(PayloadTest, TextKeysKeepTheirExactText) {
  Decoded d = key("customer-42");
  EXPECT_EQ(d.format, Format::string);
  EXPECT_EQ(text(d.text), "customer-42");  // not JSON-quoted

  d = key("say \"hi\"\t\\");
  EXPECT_EQ(d.format, Format::string);
  EXPECT_EQ(text(d.text), "say \"hi\"\t\\");

  d = key(R"( {"id": 7} )");
  EXPECT_EQ(d.format, Format::json);
  EXPECT_EQ(text(d.text), R"( {"id": 7} )");

  d = key("");
  EXPECT_EQ(d.format, Format::string);
  EXPECT_EQ(text(d.text), "");
  EXPECT_FALSE(d.base64.present);
}

TEST_F(PayloadTest, BinaryKeysAreBase64) {
  Decoded d = key("\xff");
  EXPECT_EQ(d.format, Format::binary);
  EXPECT_EQ(text(d.text), "/w==");

  d = key("a\x01");
  EXPECT_EQ(d.format, Format::binary);
  EXPECT_EQ(text(d.text), "YQE=");

  d = key(std::string_view("\0\0\0\0\0\0\0\x2a", 8));  // Java Long 42
  EXPECT_EQ(d.format, Format::binary);
  EXPECT_FALSE(d.schema_id.has_value());
  EXPECT_EQ(text(d.text), "AAAAAAAAACo=");
}

TEST_F(PayloadTest, FramedKeyIsSchemaRegistry) {
  const Decoded d = key(std::string_view("\0\0\0\0\x05\x02\x03", 7));
  EXPECT_EQ(d.format, Format::schema_registry);
  EXPECT_EQ(d.schema_id, SchemaId(5));
  EXPECT_EQ(text(d.text), "AAAAAAUCAw==");
  EXPECT_THAT(text(d.error), HasSubstr("no schema registry"));
}

TEST_F(PayloadTest, SlicesOfSuccessiveDecodesStayValid) {
  const Decoded a = value("{\"n\":1}");
  const Decoded b = value("plain");
  const Decoded c = value("\xff");
  EXPECT_THAT(arena, ::testing::StartsWith("earlier rows"));
  EXPECT_EQ(text(a.text), "{\"n\":1}");
  EXPECT_EQ(text(b.text), "\"plain\"");
  EXPECT_EQ(text(c.base64), "/w==");
}

// A registry that knows one JSON Schema, ID 9: the decoder the registry side would compile.
class OneJsonSchema : public SchemaSource {
 public:
  OneJsonSchema() {
    ResolvedSchema schema;
    schema.type = SchemaType::json;
    schema.id = 9;
    schema.text = R"({"type":"object"})";
    decoder_ = compile_json_schema(schema, DecodeOptions{});
  }
  Lookup lookup(SchemaId id) override {
    Lookup l;
    if (id != SchemaId(9)) return l;
    l.status = Status::ready;
    l.decoder = decoder_.get();
    l.format = Format::json_schema;
    return l;
  }

 private:
  std::unique_ptr<SchemaDecoder> decoder_;
};

TEST(PayloadJsonSchema, ValidJsonIsJsonSchema) {
  OneJsonSchema registry;
  PayloadDecoder decoder{DecoderOptions{}, &registry};
  std::string arena;
  const std::string_view framed("\0\0\0\0\x09{\"a\":1}", 12);
  const Decoded d = decoder.decode_value(framed.data(), framed.size(), arena);
  EXPECT_EQ(d.format, Format::json_schema);
  EXPECT_EQ(d.schema_id, SchemaId(9));
  EXPECT_EQ(d.text.view(arena), R"({"a":1})");
  EXPECT_FALSE(d.base64.present);
  EXPECT_FALSE(d.error.present);
}

TEST(PayloadJsonSchema, BodyThatIsNotJsonIsSchemaRegistryWithItsBytes) {
  // docs/row-contract.md: a framed value that cannot be decoded is `schema_registry`, value NULL, the raw
  // bytes (header included) in value_base64, the reason in decode_error; never `string`.
  OneJsonSchema registry;
  PayloadDecoder decoder{DecoderOptions{}, &registry};
  const std::pair<std::string_view, std::string_view> cases[] = {
      {std::string_view("\0\0\0\0\x09{\"a\":", 10), "AAAAAAl7ImEiOg=="},  // cut short
      {std::string_view("\0\0\0\0\x09{} x", 9), "AAAAAAl7fSB4"},          // trailing text
      {std::string_view("\0\0\0\0\x09", 5), "AAAAAAk="},                  // no body at all
      {std::string_view("\0\0\0\0\x09\"\xff\"", 8), "AAAAAAki/yI="},      // not UTF-8
  };
  for (const auto& [framed, base64] : cases) {
    SCOPED_TRACE(::testing::PrintToString(std::string(framed)));
    std::string arena = "earlier rows";
    const Decoded d = decoder.decode_value(framed.data(), framed.size(), arena);
    EXPECT_EQ(d.format, Format::schema_registry);
    EXPECT_EQ(d.schema_id, SchemaId(9));
    EXPECT_FALSE(d.text.present);
    ASSERT_TRUE(d.base64.present);
    EXPECT_EQ(d.base64.view(arena), base64);
    ASSERT_TRUE(d.error.present);
    EXPECT_EQ(d.error.view(arena),
              "value could not be decoded with schema ID 9 (json_schema): the payload after the "
              "JSON Schema header is "
              "not one valid JSON document");
  }
}

}  // namespace
}  // namespace krow
