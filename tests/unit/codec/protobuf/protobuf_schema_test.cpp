// Compiling Protobuf schemas (codec/protobuf): imports resolved from the registry's
// references (nested, and a diamond built once), built-in files (well-known types,
// Confluent's meta and decimal), and the one-line errors for schemas that do not compile.
// Payloads are built with protobuf's own API; expected JSON is written by hand.

#include <gmock/gmock.h>
#include <google/protobuf/compiler/parser.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "codec/protobuf/schema_pool.hpp"
#include "codec/schema_decoder.hpp"
#include "util/text.hpp"

namespace krow {
namespace {

namespace gpb = google::protobuf;
using ::testing::HasSubstr;

std::shared_ptr<ResolvedSchema> proto(std::string text, std::vector<ResolvedSchema::Reference> refs = {}) {
  auto s = std::make_shared<ResolvedSchema>();
  s->type = SchemaType::protobuf;
  s->id = 12;
  s->text = std::move(text);
  s->references = std::move(refs);
  return s;
}

// Serializes `text` (protobuf text format) as message `type` of `schema`, with the
// message-index list [0] in front.
std::string payload(const ResolvedSchema& schema, const std::string& type, const std::string& text) {
  pb::SchemaPool pool(schema);
  gpb::DynamicMessageFactory factory(&pool.pool());
  const gpb::Descriptor* d = pool.pool().FindMessageTypeByName(type);
  EXPECT_NE(d, nullptr) << type;
  if (d == nullptr) return {};
  std::unique_ptr<gpb::Message> m(factory.GetPrototype(d)->New());
  EXPECT_TRUE(gpb::TextFormat::ParseFromString(text, m.get())) << text;
  return std::string(1, '\0') + m->SerializeAsString();
}

std::string decode(const ResolvedSchema& schema, const std::string& bytes) {
  const std::unique_ptr<SchemaDecoder> decoder = compile_protobuf(schema, {});
  std::string out, error;
  EXPECT_TRUE(decoder->decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out, error)) << error;
  return out;
}

// The message of compile_protobuf's std::invalid_argument, or "" when it compiles.
std::string compile_error(const ResolvedSchema& schema) {
  try {
    compile_protobuf(schema, {});
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string_view(e.what()).find('\n'), std::string_view::npos) << e.what();
    return e.what();
  }
  return "";
}

TEST(ProtobufSchemaTest, ImportsAReferencedFile) {
  const auto money = proto(R"(syntax = "proto3";
package common;
message Money { string currency = 1; int64 units = 2; })");
  const auto order = proto(R"(syntax = "proto3";
package shop;
import "common/money.proto";
message Order { string id = 1; common.Money total = 2; })",
                           {{"common/money.proto", money}});
  EXPECT_EQ(decode(*order, payload(*order, "shop.Order", R"(id: "o1" total { currency: "EUR" units: 12 })")),
            R"({"id":"o1","total":{"currency":"EUR","units":"12"}})");
}

// The registry schema as Confluent's Python serializer registers it: the file's
// FileDescriptorProto, serialized and base64-encoded (here produced by protobuf's own
// parser, not krow's).
std::string descriptor_base64(const std::string& name, const std::string& text) {
  gpb::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  gpb::io::Tokenizer tokenizer(&input, nullptr);
  gpb::compiler::Parser parser;
  gpb::FileDescriptorProto file;
  EXPECT_TRUE(parser.Parse(&tokenizer, &file)) << text;
  file.set_name(name);
  const std::string bytes = file.SerializeAsString();
  std::string out;
  append_base64(out, bytes.data(), bytes.size());
  return out.substr(0, 40) + "\n" + out.substr(40);  // line breaks are allowed in base64
}

TEST(ProtobufSchemaTest, Base64FileDescriptorsAreReadLikeText) {
  const std::string money_text = R"(syntax = "proto3";
package common;
message Money { string currency = 1; int64 units = 2; })";
  const std::string order_text = R"(syntax = "proto3";
package shop;
import "common/money.proto";
import "google/protobuf/timestamp.proto";
message Order { string id = 1; common.Money total = 2; google.protobuf.Timestamp at = 3; })";
  const auto money = proto(descriptor_base64("common/money.proto", money_text));
  const auto order = proto(descriptor_base64("order.proto", order_text), {{"common/money.proto", money}});
  const auto as_text = proto(order_text, {{"common/money.proto", proto(money_text)}});
  const std::string message = R"(id: "o1" total { currency: "EUR" units: 12 } at { seconds: 1 })";
  const auto bytes = payload(*as_text, "shop.Order", message);
  EXPECT_EQ(decode(*order, bytes), decode(*as_text, bytes));
  EXPECT_EQ(decode(*order, bytes), R"({"id":"o1","total":{"currency":"EUR","units":"12"},"at":"1970-01-01T00:00:01Z"})");
  // Base64 of something else is refused with a reason, like bad text.
  EXPECT_THAT(compile_error(*proto("bm90IGEgZGVzY3JpcHRvcgpwbGVhc2UgaWdub3Jl/////w==")),
              HasSubstr("not a serialized FileDescriptorProto"));
}

TEST(ProtobufSchemaTest, NestedReferencesAndADiamondAreBuiltOnce) {
  // order imports a.proto and b.proto; both import base.proto, and base.proto is also a
  // reference of the root: the same file, built once.
  const auto base = proto(R"(syntax = "proto3";
package base;
message Id { string value = 1; })");
  const auto a = proto(R"(syntax = "proto3";
package a;
import "base/id.proto";
message A { base.Id id = 1; })",
                       {{"base/id.proto", base}});
  const auto b = proto(R"(syntax = "proto3";
package b;
import "base/id.proto";
message B { base.Id id = 1; })",
                       {{"base/id.proto", base}});
  const auto root = proto(R"(syntax = "proto3";
package root;
import "a.proto";
import "b.proto";
message Pair { a.A left = 1; b.B right = 2; })",
                          {{"a.proto", a}, {"b.proto", b}});
  EXPECT_EQ(decode(*root, payload(*root, "root.Pair", R"(left { id { value: "l" } } right { id { value: "r" } })")),
            R"({"left":{"id":{"value":"l"}},"right":{"id":{"value":"r"}}})");
}

TEST(ProtobufSchemaTest, ADiamondSentAsTwoCopiesIsStillBuiltOnce) {
  // Registries that do not share reference objects send the same file twice.
  auto base = [] { return proto("syntax = \"proto3\";\npackage base;\nmessage Id { string value = 1; }"); };
  const auto a = proto("syntax = \"proto3\";\npackage a;\nimport \"base.proto\";\nmessage A { base.Id id = 1; }",
                       {{"base.proto", base()}});
  const auto b = proto("syntax = \"proto3\";\npackage b;\nimport \"base.proto\";\nmessage B { base.Id id = 1; }",
                       {{"base.proto", base()}});
  const auto root = proto("syntax = \"proto3\";\nimport \"a.proto\";\nimport \"b.proto\";\nmessage P { a.A x = 1; b.B y = 2; }",
                          {{"a.proto", a}, {"b.proto", b}});
  EXPECT_EQ(compile_error(*root), "");
}

TEST(ProtobufSchemaTest, BuiltInFilesNeedNoReference) {
  const auto schema = proto(R"(syntax = "proto3";
package p;
import "google/protobuf/timestamp.proto";
import "google/protobuf/descriptor.proto";
import "confluent/meta.proto";
import "confluent/type/decimal.proto";
option (confluent.file_meta) = { doc: "orders" };
message M {
  option (confluent.message_meta) = { tags: ["PII"] };
  google.protobuf.Timestamp at = 1 [(confluent.field_meta) = { doc: "when" }];
  confluent.type.Decimal price = 2;
})");
  EXPECT_EQ(decode(*schema, payload(*schema, "p.M", R"(at { seconds: 1 } price { value: "\001\000" scale: 2 })")),
            R"({"at":"1970-01-01T00:00:01Z","price":"2.56"})");
}

TEST(ProtobufSchemaTest, RegistryCopyOfAConfluentFileWins) {
  // A registry may send confluent/type/decimal.proto itself; its text is used.
  const auto decimal = proto(R"(syntax = "proto3";
package confluent.type;
message Decimal { bytes value = 1; uint32 precision = 2; int32 scale = 3; string note = 4; })");
  const auto schema = proto(R"(syntax = "proto3";
import "confluent/type/decimal.proto";
message M { confluent.type.Decimal d = 1; })",
                            {{"confluent/type/decimal.proto", decimal}});
  EXPECT_EQ(decode(*schema, payload(*schema, "M", R"(d { value: "\005" scale: 1 note: "x" })")), R"({"d":"0.5"})");
}

TEST(ProtobufSchemaTest, SyntaxErrorsCarryLineAndColumn) {
  EXPECT_EQ(compile_error(*proto("syntax = \"proto3\";\nmessage M {\n  int32 x = ;\n}\n")),
            "schema 12:3:13: Expected field number.");
  EXPECT_EQ(compile_error(*proto("syntax = \"proto3\";\nmessage M {\n  int32 x = 1;\n")),
            "schema 12:4:1: Reached end of input in message definition (missing '}').");
  EXPECT_THAT(compile_error(*proto("not a proto at all")), HasSubstr("schema 12:1:1: "));
}

TEST(ProtobufSchemaTest, ErrorsInAReferenceNameIt) {
  const auto broken = proto("syntax = \"proto3\";\nmessage X {");
  const auto root = proto("syntax = \"proto3\";\nimport \"dep/x.proto\";\nmessage M { X x = 1; }",
                          {{"dep/x.proto", broken}});
  EXPECT_THAT(compile_error(*root), HasSubstr("dep/x.proto:2:12: "));
}

TEST(ProtobufSchemaTest, LinkErrors) {
  EXPECT_EQ(compile_error(*proto("syntax = \"proto3\";\nmessage M { Missing m = 1; }")),
            "schema 12: M.m: \"Missing\" is not defined.");
  EXPECT_EQ(compile_error(*proto("syntax = \"proto3\";\nmessage M { int32 a = 1; int32 b = 1; }")),
            "schema 12: M.b: Field number 1 has already been used in \"M\" by field \"a\".");
}

TEST(ProtobufSchemaTest, MissingImportsAndCycles) {
  EXPECT_EQ(compile_error(*proto("syntax = \"proto3\";\nimport \"nowhere.proto\";\nmessage M {}")),
            "schema 12: import \"nowhere.proto\" is neither a reference of the schema nor a built-in file");
  // Two files that import each other.
  auto a = proto("syntax = \"proto3\";\nimport \"b.proto\";\nmessage A {}");
  auto b = proto("syntax = \"proto3\";\nimport \"a.proto\";\nmessage B {}", {{"a.proto", a}});
  a->references.push_back({"b.proto", b});
  const auto root = proto("syntax = \"proto3\";\nimport \"a.proto\";\nmessage M {}", {{"a.proto", a}});
  EXPECT_THAT(compile_error(*root), HasSubstr("import cycle"));
  a->references.clear();  // break the shared_ptr cycle
}

TEST(ProtobufSchemaTest, OtherSchemaTypesAreRefused) {
  auto schema = proto("syntax = \"proto3\";\nmessage M {}");
  schema->type = SchemaType::avro;
  EXPECT_EQ(compile_error(*schema), "not a Protobuf schema");
}

TEST(ProtobufSchemaTest, AFileWithoutMessagesCompilesButDecodesNothing) {
  const auto schema = proto("syntax = \"proto3\";\nenum E { A = 0; }");
  const std::unique_ptr<SchemaDecoder> decoder = compile_protobuf(*schema, {});
  std::string out, error;
  const uint8_t zero = 0;
  EXPECT_FALSE(decoder->decode(&zero, 1, out, error));
  EXPECT_EQ(error, "the schema defines no message");
}

}  // namespace
}  // namespace krow
