// Registry answers that are not a registry's (HTML pages, wrong shapes, cut or huge bodies,
// reference loops) through krow's real HTTP path: http::Client (libcurl) under RegistryHttp,
// SchemaRegistry, DecoderCache and the PayloadDecoder a sync uses, against
// tests/support/garbage_registry.py.
// No Kafka and no real registry: each test decodes one framed value and checks what a user
// would get, a row (value_format, decode_error) or a transient error that writes no row.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "child_server.hpp"
#include "codec/format.hpp"
#include "codec/payload_decoder.hpp"
#include "registry/decoder_cache.hpp"
#include "util/error.hpp"

namespace krow {

// Readable failure messages: print a Format by its column name.
static void PrintTo(Format f, std::ostream* os) {
  *os << (f == Format::none ? std::string_view("none (NULL)") : format_name(f));
}

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// The registry password the tests configure; the server's login page echoes it back.
constexpr std::string_view kPassword = "pw-Garbage-7f3e";

// One garbage_registry.py process, stopped with its test (tests/support/child_server.hpp).
class GarbageRegistry : public ChildServer {
 public:
  GarbageRegistry()
      : ChildServer({"python3", std::string(KROW_SOURCE_DIR) + "/tests/support/garbage_registry.py"}) {}
};

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

class RegistryGarbage : public ::testing::Test {
 protected:
  // A short retry budget: retriable answers give up within about a second.
  static constexpr std::chrono::seconds kBudget{1};

  GarbageRegistry server;
  DecoderCache cache{config(), DecodeOptions{}, kBudget};
  PayloadDecoder decoder{DecoderOptions{}, &cache};
  std::string arena;

  RegistryConfig config() const {
    RegistryConfig c;
    c.url = server.url();
    c.username = "garbage-key";
    c.password = Secret(std::string(kPassword));
    return c;
  }

  // Decodes a value framed with `schema_id` (0x00, the big-endian ID, then `payload`).
  Decoded value(int32_t schema_id, std::string_view payload, PayloadDecoder* with = nullptr) {
    std::string bytes(1, '\0');
    for (int shift = 24; shift >= 0; shift -= 8)
      bytes += static_cast<char>((schema_id >> shift) & 0xff);
    bytes.append(payload);
    return (with ? *with : decoder).decode_value(bytes.data(), bytes.size(), arena);
  }
  std::string text(const Slice& s) const {
    return s.present ? std::string(s.view(arena)) : std::string();
  }

  // A definitive refusal: the row is kept as `schema_registry` with the schema ID and the raw
  // bytes, and one line of decode_error that names the ID and never the password. Returns
  // the decode_error.
  std::string expect_refused(int32_t schema_id) {
    const Decoded d = value(schema_id, "\x02");
    EXPECT_EQ(d.format, Format::schema_registry);
    EXPECT_EQ(d.schema_id, SchemaId(schema_id));
    EXPECT_FALSE(d.text.present);
    EXPECT_TRUE(d.base64.present);
    const std::string error = text(d.error);
    EXPECT_THAT(error, AllOf(HasSubstr("schema ID " + std::to_string(schema_id)),
                             Not(HasSubstr(std::string(kPassword)))));
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    RecordProperty("decode_error", error);  // in the XML report (--gtest_output=xml), for review
    return error;
  }

  // A retriable failure outlasting the budget: lookup throws Error(transient), so the sync
  // stops and writes no row for the message. Returns the error's message.
  std::string expect_transient(int32_t schema_id) {
    const auto start = std::chrono::steady_clock::now();
    try {
      value(schema_id, "\x02");
      ADD_FAILURE() << "schema ID " << schema_id << " gave a row instead of a transient error";
      return {};
    } catch (const Error& e) {
      EXPECT_EQ(e.error_class(), ErrorClass::transient) << e.what();
      // Within the budget, plus the last request and some slack for a loaded machine.
      EXPECT_LT(std::chrono::steady_clock::now() - start, kBudget + std::chrono::seconds(10));
      const std::string message = e.what();
      EXPECT_THAT(message, Not(HasSubstr(std::string(kPassword))));
      RecordProperty("transient_error", message);
      return message;
    }
  }
};

TEST_F(RegistryGarbage, AGoodAnswerDecodes) {
  const Decoded d = value(1, "\x2a");
  EXPECT_EQ(d.format, Format::avro);
  EXPECT_EQ(text(d.text), R"({"n":21})");
  EXPECT_FALSE(d.error.present);
}

TEST_F(RegistryGarbage, HtmlPageWithStatus200IsRefusedWithoutEchoingThePassword) {
  // A console's login page that echoes the password it was sent (in its title, which krow
  // quotes).
  const auto error = expect_refused(2);
  EXPECT_THAT(
      error,
      AllOf(HasSubstr("answered schema ID 2 with an HTML page titled \"Sign in to the console as "
                      "<registry.password>\", not a schema document"),
            HasSubstr("check that registry.url")));
}

TEST_F(RegistryGarbage, BadGateway502IsRetriedThenTransientNeverARow) {
  const auto message = expect_transient(3);
  EXPECT_THAT(message, AllOf(HasSubstr("kept failing (HTTP 502)"), HasSubstr("schema ID 3")));
  const int requests = cache.registry_requests();
  EXPECT_GE(requests, 2) << "a 502 must be retried";
  // Nothing was cached: the next message (or the next sync) asks again.
  expect_transient(3);
  EXPECT_GT(cache.registry_requests(), requests);
}

TEST_F(RegistryGarbage, A503ThatRecoversWithinTheBudgetDecodes) {
  DecoderCache patient(config(), DecodeOptions{}, std::chrono::seconds(10));
  PayloadDecoder with(DecoderOptions{}, &patient);
  const Decoded d = value(20, "\x2a", &with);
  EXPECT_EQ(d.format, Format::avro);
  EXPECT_EQ(text(d.text), R"({"n":21})");
  EXPECT_FALSE(d.error.present);
  EXPECT_EQ(patient.registry_requests(), 3);  // two 503 pages, then the schema
}

TEST_F(RegistryGarbage, Html404IsRefusedNotTakenForAnUnknownId) {
  // A web server's 404 page says the URL is wrong, not that the registry lacks the ID:
  // reading the value as plain bytes would hide that it is framed.
  const auto error = expect_refused(4);
  EXPECT_THAT(
      error,
      AllOf(HasSubstr("with HTTP 404 and an HTML page titled \"404 Not Found\", not the registry's "
                      "JSON error"),
            HasSubstr("check that registry.url")));
}

TEST_F(RegistryGarbage, RegistryJson404IsAnUnknownIdReadAsPlainBytes) {
  // The registry's own "schema not found" (error_code 40403), for contrast with the page above.
  const Decoded d = value(19, "\x02");
  EXPECT_EQ(d.format, Format::binary);
  EXPECT_FALSE(d.schema_id.has_value());
  EXPECT_THAT(text(d.error), HasSubstr("the schema registry does not know that ID"));
}

TEST_F(RegistryGarbage, SchemaServedAsTextPlainIsAccepted) {
  // The header is a label; the JSON document is the registry's answer, and it is a schema.
  const Decoded d = value(5, "\x2a");
  EXPECT_EQ(d.format, Format::avro);
  EXPECT_EQ(text(d.text), R"({"n":21})");
}

TEST_F(RegistryGarbage, NotASchemaAsAvro) {
  EXPECT_THAT(expect_refused(6),
              HasSubstr("schema ID 6 cannot be used: Avro schema: not valid JSON"));
}

TEST_F(RegistryGarbage, NotASchemaAsProtobuf) {
  // "thisisnotaschema" is also base64, so krow tried it as a serialized descriptor too.
  EXPECT_THAT(expect_refused(7),
              HasSubstr("schema ID 7 cannot be used: schema 7: base64 schema is not a serialized "
                        "FileDescriptorProto"));
}

TEST_F(RegistryGarbage, NotASchemaAsJsonSchema) {
  EXPECT_THAT(expect_refused(8),
              HasSubstr("schema ID 8 cannot be used: the JSON Schema is not valid JSON"));
}

TEST_F(RegistryGarbage, BodyCutShortIsRetriedThenTransientNeverARow) {
  const auto message = expect_transient(9);
  EXPECT_THAT(message, AllOf(HasSubstr("transfer closed with 440 bytes remaining"),
                             HasSubstr("schema ID 9")));
  EXPECT_GE(cache.registry_requests(), 2);
}

TEST_F(RegistryGarbage, HugeSchemaWithItsLengthAnnouncedIsRefusedUnread) {
  const long before = peak_rss_kib();
  const auto start = std::chrono::steady_clock::now();
  const auto error = expect_refused(10);
  EXPECT_THAT(error,
              HasSubstr("is announced as 50,000,000 bytes, over krow's limit of 16,777,216 bytes"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_LT(peak_rss_kib() - before, 8 << 10) << "KiB more at peak";
  EXPECT_EQ(cache.registry_requests(), 1);  // definitive: not retried
}

TEST_F(RegistryGarbage, HugeSchemaStreamedWithoutLengthIsCutAtTheLimit) {
  const long before = peak_rss_kib();
  const auto start = std::chrono::steady_clock::now();
  const auto error = expect_refused(11);
  EXPECT_THAT(error, AllOf(HasSubstr("is at least 16,7"),
                           HasSubstr("over krow's limit of 16,777,216 bytes")));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  // At most the limit's worth of body (and one regrowth of its buffer), never the 50 MB.
  EXPECT_LT(peak_rss_kib() - before, 40 << 10) << "KiB more at peak";
  EXPECT_EQ(cache.registry_requests(), 1);
}

TEST_F(RegistryGarbage, AvroReferenceLoopTerminatesAndIsRefusedNamingTheLoop) {
  // Root -> subject avro-loop-a -> avro-loop-b -> avro-loop-a: the loop is cut where it
  // closes, so loop.B is compiled without loop.A, and the reason says why it is missing.
  EXPECT_THAT(
      expect_refused(12),
      AllOf(
          HasSubstr("schema ID 12 cannot be used: Avro schema: unknown type \"loop.A\""),
          HasSubstr(
              "the references of schema ID 12 loop back to subject \"avro-loop-a\" version 1, and "
              "krow cut the loop there")));
  EXPECT_EQ(cache.registry_requests(), 3);  // the ID and each subject once
}

TEST_F(RegistryGarbage, ProtobufReferenceLoopTerminatesAndIsRefusedNamingTheLoop) {
  EXPECT_THAT(
      expect_refused(13),
      AllOf(HasSubstr("schema ID 13 cannot be used: "),
            HasSubstr(
                "the references of schema ID 13 loop back to subject \"proto-loop-a\" version 1")));
  EXPECT_EQ(cache.registry_requests(), 3);
}

TEST_F(RegistryGarbage, EndlessReferenceChainIsCut) {
  // Every version of subject "chain" references the next one: no loop ever closes.
  EXPECT_THAT(expect_refused(17),
              HasSubstr("the references of schema ID 17 nest deeper than 64 levels"));
  EXPECT_EQ(cache.registry_requests(), 1 + 64);
}

TEST_F(RegistryGarbage, ReferenceFailingTransientlyIsAskedAgainNotTakenForALoop) {
  // Subject flaky-a answers 502 three times, then its schema. The failed attempt must not
  // leave the reference marked as "being resolved", or the retry would drop it as a loop.
  bool decoded = false;
  for (int attempt = 0; attempt < 5 && !decoded; ++attempt) {
    try {
      const Decoded d = value(21, "\x2a");
      EXPECT_EQ(d.format, Format::avro) << text(d.error);
      EXPECT_EQ(text(d.text), R"({"a":{"b":21}})");
      decoded = true;
    } catch (const Error& e) {
      EXPECT_EQ(e.error_class(), ErrorClass::transient) << e.what();
    }
  }
  EXPECT_TRUE(decoded);
}

TEST_F(RegistryGarbage, WrongShapeEmptyArray) {
  EXPECT_THAT(expect_refused(14),
              HasSubstr("answered schema ID 14 with JSON that is an array, not a schema "
                        "document (an object with a \"schema\" string)"));
}

TEST_F(RegistryGarbage, WrongShapeSchemaIsANumber) {
  EXPECT_THAT(expect_refused(15), HasSubstr("answered schema ID 15 with a JSON object whose "
                                            "\"schema\" is a number, not the schema's text"));
}

TEST_F(RegistryGarbage, WrongShapeNull) {
  EXPECT_THAT(expect_refused(16),
              HasSubstr("answered schema ID 16 with JSON that is null, not a schema document"));
}

TEST_F(RegistryGarbage, UnknownSchemaTypeIsRefusedNotReadAsAvro) {
  EXPECT_THAT(expect_refused(18),
              HasSubstr("schema ID 18 has schemaType \"XML\", which krow cannot decode"));
}

TEST_F(RegistryGarbage, JsonSchemaValueThatIsNotJsonKeepsItsBytes) {
  const Decoded d = value(22, "{\"a\":");
  EXPECT_EQ(d.format, Format::schema_registry);
  EXPECT_EQ(d.schema_id, SchemaId(22));
  EXPECT_EQ(text(d.base64), "AAAAABZ7ImEiOg==");
  EXPECT_EQ(text(d.error),
            "value could not be decoded with schema ID 22 (json_schema): the payload after the "
            "JSON Schema header is "
            "not one valid JSON document");
}

}  // namespace
}  // namespace krow
