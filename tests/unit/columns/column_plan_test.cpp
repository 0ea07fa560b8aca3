// The column planner (src/columns/): every type and logical type of Avro, Protobuf and JSON
// Schema, nested values flattened or kept as JSON, recursion, references, and the naming
// rules (metadata collisions, long names, case-only duplicates).

#include "columns/column_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "columns/column_names.hpp"
#include "util/text.hpp"

namespace krow::columns {
namespace {

std::shared_ptr<ResolvedSchema> schema(SchemaType type, std::string text,
                                       std::vector<ResolvedSchema::Reference> refs = {}) {
  auto s = std::make_shared<ResolvedSchema>();
  s->type = type;
  s->id = 7;
  s->text = std::move(text);
  s->references = std::move(refs);
  return s;
}

// One line per column: "name type[(p,s)] null|not-null path source".
std::vector<std::string> lines(const ColumnPlan& plan) {
  std::vector<std::string> out;
  for (const auto& c : plan.columns) {
    std::string t(column_type_name(c.type));
    if (c.type == ColumnType::decimal)
      t += "(" + std::to_string(c.precision) + "," + std::to_string(c.scale) + ")";
    out.push_back(c.name + " " + t + " " + (c.nullable ? "null" : "not-null") + " " +
                  path_text(c.path) + " " + c.source);
  }
  return out;
}

std::vector<std::string> avro(const std::string& text, ColumnOptions options = {},
                              std::vector<ResolvedSchema::Reference> refs = {}) {
  return lines(plan_columns(*schema(SchemaType::avro, text, std::move(refs)), options));
}

// --- Avro ---------------------------------------------------------------------------------

TEST(ColumnPlan, AvroEveryPrimitiveAndLogicalType) {
  const auto got = avro(R"({"type":"record","name":"All","namespace":"t","fields":[
    {"name":"b","type":"boolean"},
    {"name":"i","type":"int"},
    {"name":"l","type":"long"},
    {"name":"f","type":"float"},
    {"name":"d","type":"double"},
    {"name":"s","type":"string"},
    {"name":"raw","type":"bytes"},
    {"name":"fx","type":{"type":"fixed","name":"Hash","size":4}},
    {"name":"color","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
    {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
    {"name":"dec_fixed","type":{"type":"fixed","name":"Money","size":8,"logicalType":"decimal","precision":18,"scale":4}},
    {"name":"dec_wide","type":{"type":"bytes","logicalType":"decimal","precision":40,"scale":0}},
    {"name":"dec_38","type":{"type":"bytes","logicalType":"decimal","precision":38,"scale":38}},
    {"name":"dec_bad","type":{"type":"bytes","logicalType":"decimal","precision":0}},
    {"name":"day","type":{"type":"int","logicalType":"date"}},
    {"name":"tm","type":{"type":"int","logicalType":"time-millis"}},
    {"name":"tu","type":{"type":"long","logicalType":"time-micros"}},
    {"name":"ts_ms","type":{"type":"long","logicalType":"timestamp-millis"}},
    {"name":"ts_us","type":{"type":"long","logicalType":"timestamp-micros"}},
    {"name":"ts_ns","type":{"type":"long","logicalType":"timestamp-nanos"}},
    {"name":"lts_ms","type":{"type":"long","logicalType":"local-timestamp-millis"}},
    {"name":"lts_us","type":{"type":"long","logicalType":"local-timestamp-micros"}},
    {"name":"uid","type":{"type":"string","logicalType":"uuid"}},
    {"name":"uid_fixed","type":{"type":"fixed","name":"U","size":16,"logicalType":"uuid"}},
    {"name":"dur","type":{"type":"fixed","name":"Dur","size":12,"logicalType":"duration"}},
    {"name":"unknown_lt","type":{"type":"long","logicalType":"something-else"}},
    {"name":"nothing","type":"null"}
  ]})");
  const std::vector<std::string> want = {
      "b boolean not-null b boolean",
      "i int32 not-null i int",
      "l int64 not-null l long",
      "f float32 not-null f float",
      "d float64 not-null d double",
      "s text not-null s string",
      "raw bytes not-null raw bytes",
      "fx bytes not-null fx fixed t.Hash(4)",
      "color text not-null color enum t.Color",
      "dec decimal(10,2) not-null dec bytes (decimal(10,2))",
      "dec_fixed decimal(18,4) not-null dec_fixed fixed t.Money(8) (decimal(18,4))",
      "dec_wide text not-null dec_wide bytes (decimal(40,0))",
      "dec_38 decimal(38,38) not-null dec_38 bytes (decimal(38,38))",
      "dec_bad bytes not-null dec_bad bytes",
      "day date not-null day int (date)",
      "tm time not-null tm int (time-millis)",
      "tu time not-null tu long (time-micros)",
      "ts_ms timestamp not-null ts_ms long (timestamp-millis)",
      "ts_us timestamp not-null ts_us long (timestamp-micros)",
      "ts_ns timestamp not-null ts_ns long (timestamp-nanos)",
      "lts_ms timestamp not-null lts_ms long (local-timestamp-millis)",
      "lts_us timestamp not-null lts_us long (local-timestamp-micros)",
      "uid text not-null uid string",
      "uid_fixed text not-null uid_fixed fixed t.U(16) (uuid)",
      "dur json not-null dur fixed t.Dur(12) (duration)",
      "unknown_lt int64 not-null unknown_lt long",
      "nothing json null nothing null",
  };
  EXPECT_EQ(got, want);
}

TEST(ColumnPlan, AvroUnionsArraysAndMaps) {
  const auto got = avro(R"({"type":"record","name":"U","fields":[
    {"name":"maybe","type":["null","string"]},
    {"name":"maybe_last","type":["long","null"]},
    {"name":"maybe_ts","type":["null",{"type":"long","logicalType":"timestamp-millis"}]},
    {"name":"either","type":["int","string"]},
    {"name":"either_or_null","type":["null","int","string"]},
    {"name":"tags","type":{"type":"array","items":"string"}},
    {"name":"attrs","type":{"type":"map","values":"long"}}
  ]})");
  const std::vector<std::string> want = {
      "maybe text null maybe string",
      "maybe_last int64 null maybe_last long",
      "maybe_ts timestamp null maybe_ts long (timestamp-millis)",
      "either json not-null either union [int, string]",
      "either_or_null json null either_or_null union [null, int, string]",
      "tags json not-null tags array<string>",
      "attrs json not-null attrs map<long>",
  };
  EXPECT_EQ(got, want);
}

constexpr const char* kNested = R"({"type":"record","name":"Order","namespace":"shop","fields":[
  {"name":"id","type":"long"},
  {"name":"customer","type":{"type":"record","name":"Customer","fields":[
    {"name":"name","type":"string"},
    {"name":"address","type":["null",{"type":"record","name":"Address","fields":[
      {"name":"city","type":"string"}]}]}]}},
  {"name":"billing","type":"Address"}
]})";

TEST(ColumnPlan, AvroNestedRecordsFlattenedWithTheSeparator) {
  const std::vector<std::string> want = {
      "value__id int64 not-null id long",
      "customer__name text not-null customer.name string",
      "customer__address__city text null customer.address.city string",
      "billing__city text not-null billing.city string",
  };
  EXPECT_EQ(avro(kNested), want);
  ColumnOptions dots;
  dots.separator = ".";
  EXPECT_EQ(avro(kNested, dots)[1], "customer.name text not-null customer.name string");
}

TEST(ColumnPlan, AvroNestedRecordsAsJson) {
  ColumnOptions options;
  options.nested = NestedMode::json;
  const std::vector<std::string> want = {
      "value__id int64 not-null id long",
      "customer json not-null customer record shop.Customer",
      "billing json not-null billing record shop.Address",
  };
  EXPECT_EQ(avro(kNested, options), want);
}

TEST(ColumnPlan, AvroTaggedUnionsPutTheBranchInThePath) {
  ColumnOptions options;
  options.tagged_unions = true;
  const auto got = avro(R"({"type":"record","name":"T","fields":[
    {"name":"note","type":["null","string"]},
    {"name":"at","type":["null",{"type":"record","name":"Place","namespace":"geo","fields":[{"name":"lat","type":"double"}]}]}
  ]})",
                        options);
  const std::vector<std::string> want = {
      "note__string text null note.string string",
      "at__geo.Place__lat float64 null at.geo.Place.lat double",
  };
  EXPECT_EQ(got, want);
}

TEST(ColumnPlan, AvroRecursiveRecordIsJsonWhereItRecurs) {
  const auto plan =
      plan_columns(*schema(SchemaType::avro, R"({"type":"record","name":"Node","fields":[
    {"name":"label","type":"string"},
    {"name":"next","type":["null","Node"]},
    {"name":"child","type":{"type":"record","name":"Leaf","fields":[{"name":"up","type":["null","Node"]},{"name":"n","type":"int"}]}}
  ]})"),
                   {});
  const std::vector<std::string> want = {
      "label text not-null label string",
      "next json null next record Node",
      "child__up json null child.up record Node",
      "child__n int32 not-null child.n int",
  };
  EXPECT_EQ(lines(plan), want);
  ASSERT_EQ(plan.notes.size(), 2u);
  EXPECT_NE(plan.notes[0].find("contains itself"), std::string::npos) << plan.notes[0];
  EXPECT_EQ(plan.root, "record Node");
}

TEST(ColumnPlan, AvroReferenceByName) {
  auto address = schema(SchemaType::avro, R"({"type":"record","name":"Address","namespace":"shop",
    "fields":[{"name":"street","type":"string"},{"name":"zip","type":["null","int"]}]})");
  auto money =
      schema(SchemaType::avro, R"({"type":"fixed","name":"Money","namespace":"shop","size":16,
    "logicalType":"decimal","precision":30,"scale":2})");
  const auto got = avro(R"({"type":"record","name":"Invoice","namespace":"shop","fields":[
    {"name":"to","type":"Address"},
    {"name":"total","type":"shop.Money"}]})",
                        {}, {{"shop-address", address}, {"shop-money", money}});
  const std::vector<std::string> want = {
      "to__street text not-null to.street string",
      "to__zip int32 null to.zip int",
      "total decimal(30,2) not-null total fixed shop.Money(16) (decimal(30,2))",
  };
  EXPECT_EQ(got, want);
}

TEST(ColumnPlan, AvroRootThatIsNotARecordIsOneColumn) {
  EXPECT_EQ(avro(R"("string")"),
            std::vector<std::string>{"value__value text not-null (root) string"});
  EXPECT_EQ(
      avro(R"({"type":"long","logicalType":"timestamp-millis"})"),
      std::vector<std::string>{"value__value timestamp not-null (root) long (timestamp-millis)"});
}

TEST(ColumnPlan, AvroInvalidSchemaThrows) {
  EXPECT_THROW(avro("{not json"), std::invalid_argument);
  EXPECT_THROW(avro(R"({"type":"record","name":"R","fields":[{"name":"a","type":"Missing"}]})"),
               std::invalid_argument);
}

// --- Protobuf -----------------------------------------------------------------------------

std::vector<std::string> proto(const std::string& text, ColumnOptions options = {},
                               std::vector<ResolvedSchema::Reference> refs = {}) {
  return lines(plan_columns(*schema(SchemaType::protobuf, text, std::move(refs)), options));
}

TEST(ColumnPlan, ProtobufEveryScalarType) {
  const auto got = proto(R"(syntax = "proto3";
package acme;
enum Color { RED = 0; GREEN = 1; }
message All {
  int32 i32 = 1; sint32 s32 = 2; sfixed32 sf32 = 3;
  uint32 u32 = 4; fixed32 f32 = 5;
  int64 i64 = 6; sint64 s64 = 7; sfixed64 sf64 = 8;
  uint64 u64 = 9; fixed64 f64 = 10;
  float fl = 11; double db = 12; bool ok = 13; string text = 14; bytes raw = 15;
  Color color = 16;
  optional string maybe = 17;
  oneof choice { string name = 18; int64 number = 19; }
  repeated int32 list = 20;
  map<string, int64> counts = 21;
}
message Other { string x = 1; })");
  const std::vector<std::string> want = {
      "i32 int32 not-null i32 int32",
      "s32 int32 not-null s32 sint32",
      "sf32 int32 not-null sf32 sfixed32",
      "u32 int64 not-null u32 uint32",
      "f32 int64 not-null f32 fixed32",
      "i64 int64 not-null i64 int64",
      "s64 int64 not-null s64 sint64",
      "sf64 int64 not-null sf64 sfixed64",
      "u64 uint64 not-null u64 uint64",
      "f64 uint64 not-null f64 fixed64",
      "fl float32 not-null fl float",
      "db float64 not-null db double",
      "ok boolean not-null ok bool",
      "text text not-null text string",
      "raw bytes not-null raw bytes",
      "color text not-null color enum acme.Color",
      "maybe text null maybe optional string",
      "name text null name string (oneof choice)",
      "number int64 null number int64 (oneof choice)",
      "list json not-null list repeated int32",
      "counts json not-null counts map<string, int64>",
  };
  EXPECT_EQ(got, want);
  const auto plan = plan_columns(
      *schema(SchemaType::protobuf,
              R"(syntax = "proto3"; message A { int32 a = 1; } message B { int32 b = 1; })"),
      {});
  EXPECT_EQ(plan.root, "message A");
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("first, A"), std::string::npos) << plan.notes[0];
}

TEST(ColumnPlan, ProtobufWellKnownTypes) {
  const auto got = proto(R"(syntax = "proto3";
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/wrappers.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/any.proto";
import "google/protobuf/field_mask.proto";
import "confluent/type/decimal.proto";
message W {
  google.protobuf.Timestamp at = 1;
  google.protobuf.Duration took = 2;
  google.protobuf.Int64Value i64 = 3;
  google.protobuf.UInt64Value u64 = 4;
  google.protobuf.Int32Value i32 = 5;
  google.protobuf.UInt32Value u32 = 6;
  google.protobuf.BoolValue flag = 7;
  google.protobuf.StringValue s = 8;
  google.protobuf.BytesValue b = 9;
  google.protobuf.DoubleValue d = 10;
  google.protobuf.FloatValue f = 11;
  google.protobuf.Struct st = 12;
  google.protobuf.Value v = 13;
  google.protobuf.ListValue lv = 14;
  google.protobuf.Any any = 15;
  google.protobuf.FieldMask mask = 16;
  google.protobuf.NullValue nothing = 17;
  confluent.type.Decimal amount = 18;
})");
  const std::vector<std::string> want = {
      "at timestamp null at message google.protobuf.Timestamp",
      "took text null took message google.protobuf.Duration",
      "i64 int64 null i64 message google.protobuf.Int64Value",
      "u64 uint64 null u64 message google.protobuf.UInt64Value",
      "i32 int32 null i32 message google.protobuf.Int32Value",
      "u32 int64 null u32 message google.protobuf.UInt32Value",
      "flag boolean null flag message google.protobuf.BoolValue",
      "s text null s message google.protobuf.StringValue",
      "b bytes null b message google.protobuf.BytesValue",
      "d float64 null d message google.protobuf.DoubleValue",
      "f float32 null f message google.protobuf.FloatValue",
      "st json null st message google.protobuf.Struct",
      "v json null v message google.protobuf.Value",
      "lv json null lv message google.protobuf.ListValue",
      "any json null any message google.protobuf.Any",
      "mask text null mask message google.protobuf.FieldMask",
      "nothing json not-null nothing enum google.protobuf.NullValue",
      "amount text null amount message confluent.type.Decimal",
  };
  EXPECT_EQ(got, want);
}

constexpr const char* kProtoNested = R"(syntax = "proto3";
package shop;
message Order {
  string id = 1;
  Customer customer = 2;
  message Customer { string name = 1; Address address = 2; }
  message Address { string city = 1; int32 zip = 2; }
  Tree tree = 3;
}
message Tree { string label = 1; repeated Tree children = 2; Tree parent = 3; })";

TEST(ColumnPlan, ProtobufNestedMessagesFlattenedOrJsonAndRecursion) {
  const auto plan = plan_columns(*schema(SchemaType::protobuf, kProtoNested), {});
  const std::vector<std::string> flat = {
      "value__id text not-null id string",
      "customer__name text null customer.name string",
      "customer__address__city text null customer.address.city string",
      "customer__address__zip int32 null customer.address.zip int32",
      "tree__label text null tree.label string",
      "tree__children json null tree.children repeated message shop.Tree",
      "tree__parent json null tree.parent message shop.Tree",
  };
  EXPECT_EQ(lines(plan), flat);
  ASSERT_EQ(plan.notes.size(), 2u);  // two top-level messages; the recursion
  EXPECT_NE(plan.notes[0].find("2 top-level messages"), std::string::npos) << plan.notes[0];
  EXPECT_NE(plan.notes[1].find("tree.parent"), std::string::npos) << plan.notes[1];
  ColumnOptions options;
  options.nested = NestedMode::json;
  const std::vector<std::string> json = {
      "value__id text not-null id string",
      "customer json null customer message shop.Order.Customer",
      "tree json null tree message shop.Tree",
  };
  EXPECT_EQ(proto(kProtoNested, options), json);
}

TEST(ColumnPlan, ProtobufImportedMessageFromAReference) {
  auto common = schema(
      SchemaType::protobuf,
      R"(syntax = "proto3"; package common; message Money { string currency = 1; int64 units = 2; })");
  const auto got = proto(
      R"(syntax = "proto3"; import "common/money.proto"; message Pay { common.Money amount = 1; })",
      {}, {{"common/money.proto", common}});
  const std::vector<std::string> want = {
      "amount__currency text null amount.currency string",
      "amount__units int64 null amount.units int64",
  };
  EXPECT_EQ(got, want);
}

TEST(ColumnPlan, ProtobufProto2) {
  const auto got = proto(
      R"(syntax = "proto2"; message P { optional int32 a = 1; required string b = 2; optional group G = 3 { optional int32 c = 4; } })");
  const std::vector<std::string> want = {
      "a int32 not-null a int32",
      "b text not-null b string",
      "g__c int32 null g.c int32",
  };
  EXPECT_EQ(got, want);
}

TEST(ColumnPlan, ProtobufInvalidSchemaThrows) {
  EXPECT_THROW(proto("syntax = \"proto3\"; message {"), std::invalid_argument);
  EXPECT_THROW(proto("syntax = \"proto3\"; enum E { A = 0; }"), std::invalid_argument);
}

// --- JSON Schema --------------------------------------------------------------------------

std::vector<std::string> json_schema(const std::string& text, ColumnOptions options = {},
                                     std::vector<ResolvedSchema::Reference> refs = {}) {
  return lines(plan_columns(*schema(SchemaType::json, text, std::move(refs)), options));
}

TEST(ColumnPlan, JsonSchemaEveryType) {
  const auto got = json_schema(
      R"({"$schema":"http://json-schema.org/draft-07/schema#","title":"Event","type":"object",
    "required":["name","count","at"],
    "properties":{
      "name":{"type":"string"},
      "count":{"type":"integer"},
      "small":{"type":"integer","connect.type":"int16"},
      "ratio":{"type":"number"},
      "single":{"type":"number","connect.type":"float32"},
      "ok":{"type":"boolean"},
      "at":{"type":"string","format":"date-time"},
      "day":{"type":"string","format":"date"},
      "clock":{"type":"string","format":"time"},
      "uid":{"type":"string","format":"uuid"},
      "blob":{"type":"string","connect.type":"bytes"},
      "maybe":{"type":["string","null"]},
      "mixed":{"type":["string","integer"]},
      "choice":{"anyOf":[{"type":"string"},{"type":"integer"}]},
      "opt":{"oneOf":[{"type":"null"},{"type":"integer"}]},
      "list":{"type":"array","items":{"type":"string"}},
      "free":{"type":"object"},
      "level":{"enum":["low","high"]},
      "anything":{},
      "nothing":{"type":"null"}
    }})");
  const std::vector<std::string> want = {
      "name text not-null name string",
      "count int64 not-null count integer",
      "small int32 null small integer (connect.type int16)",
      "ratio float64 null ratio number",
      "single float32 null single number (connect.type float32)",
      "ok boolean null ok boolean",
      "at timestamp not-null at string (format date-time)",
      "day date null day string (format date)",
      "clock time null clock string (format time)",
      "uid text null uid string (format uuid)",
      "blob bytes null blob string (connect.type bytes)",
      "maybe text null maybe string",
      "mixed json null mixed string | integer",
      "choice json null choice anyOf",
      "opt int64 null opt integer",
      "list json null list array",
      "free json null free object",
      "level text null level enum",
      "anything json null anything any",
      "nothing json null nothing null",
  };
  EXPECT_EQ(got, want);
}

constexpr const char* kJsonNested =
    R"({"type":"object","title":"Order","required":["id","customer"],
  "properties":{
    "id":{"type":"integer"},
    "customer":{"type":"object","required":["name"],"properties":{
      "name":{"type":"string"},
      "address":{"$ref":"#/definitions/Address"}}},
    "parent":{"$ref":"#"}
  },
  "definitions":{"Address":{"type":"object","properties":{"city":{"type":"string"}}}}})";

TEST(ColumnPlan, JsonSchemaNestedObjectsRefsAndRecursion) {
  const auto plan = plan_columns(*schema(SchemaType::json, kJsonNested), {});
  const std::vector<std::string> flat = {
      "value__id int64 not-null id integer",
      "customer__name text not-null customer.name string",
      "customer__address__city text null customer.address.city string",
      "parent json null parent object Order",
  };
  EXPECT_EQ(lines(plan), flat);
  EXPECT_EQ(plan.root, "object Order");
  ASSERT_EQ(plan.notes.size(), 1u);
  ColumnOptions options;
  options.nested = NestedMode::json;
  const std::vector<std::string> json = {
      "value__id int64 not-null id integer",
      "customer json not-null customer object",
      "parent json null parent object Order",
  };
  EXPECT_EQ(json_schema(kJsonNested, options), json);
}

TEST(ColumnPlan, JsonSchemaReferenceToAnotherSchema) {
  auto address =
      schema(SchemaType::json, R"({"$id":"https://acme.example/address.json","type":"object",
    "properties":{"street":{"type":"string"},"since":{"type":"string","format":"date"}},"required":["street"]})");
  const auto got = json_schema(R"({"type":"object","properties":{
      "home":{"$ref":"address.json"},
      "work":{"$ref":"https://acme.example/address.json"}}})",
                               {}, {{"address.json", address}});
  const std::vector<std::string> want = {
      "home__street text null home.street string",
      "home__since date null home.since string (format date)",
      "work__street text null work.street string",
      "work__since date null work.since string (format date)",
  };
  EXPECT_EQ(got, want);
}

TEST(ColumnPlan, JsonSchemaErrors) {
  EXPECT_THROW(json_schema("{"), std::invalid_argument);
  EXPECT_THROW(json_schema(R"({"type":"object","properties":{"a":{"$ref":"missing.json"}}})"),
               std::invalid_argument);
  EXPECT_EQ(
      json_schema(R"({"type":"string","format":"date-time"})"),
      std::vector<std::string>{"value__value timestamp null (root) string (format date-time)"});
}

// --- Names --------------------------------------------------------------------------------

std::vector<ColumnSpec> specs(const std::vector<std::vector<std::string>>& paths) {
  std::vector<ColumnSpec> out;
  for (const auto& p : paths) {
    ColumnSpec c;
    c.path = p;
    out.push_back(c);
  }
  return out;
}

std::vector<std::string> names(const std::vector<ColumnSpec>& columns) {
  std::vector<std::string> out;
  for (const auto& c : columns) out.push_back(c.name);
  return out;
}

TEST(ColumnPlan, NamesCollidingWithMetadataColumnsGetAPrefix) {
  auto columns = specs(
      {{"id"}, {"Key"}, {"value"}, {"headers"}, {"kafka_offset"}, {"decode_error"}, {"other"}});
  assign_names(columns, "__", 0);
  const std::vector<std::string> want = {
      "value__id",           "value__Key",          "value__value", "value__headers",
      "value__kafka_offset", "value__decode_error", "other"};
  EXPECT_EQ(names(columns), want);
}

TEST(ColumnPlan, NamesThatCollideAfterRenamingOrByCaseAreMadeDistinct) {
  auto columns =
      specs({{"id"}, {"value", "id"}, {"Name"}, {"name"}, {"NAME"}, {"a__b"}, {"a", "b"}});
  assign_names(columns, "__", 0);
  const auto got = names(columns);
  EXPECT_EQ(got[0], "value__id");
  EXPECT_EQ(got[1].rfind("value__id_", 0), 0u) << got[1];
  EXPECT_EQ(got[1].size(), std::string("value__id_").size() + 8);
  EXPECT_EQ(got[2], "Name");
  EXPECT_EQ(got[3].rfind("name_", 0), 0u) << got[3];
  EXPECT_EQ(got[4].rfind("NAME_", 0), 0u) << got[4];
  EXPECT_NE(got[3], got[4]);
  EXPECT_EQ(got[5], "a__b");
  EXPECT_EQ(got[6].rfind("a__b_", 0), 0u) << got[6];
  // Deterministic: the same paths give the same names.
  auto again = specs({{"id"}, {"value", "id"}, {"Name"}, {"name"}, {"NAME"}, {"a__b"}, {"a", "b"}});
  assign_names(again, "__", 0);
  EXPECT_EQ(names(again), got);
}

TEST(ColumnPlan, NamesInTheVariantColumnsNamespaceGetAPrefix) {
  auto columns = specs({{"__krow_nc__name"}, {"__KROW_NC__x"}, {"__krow_n"}});
  assign_names(columns, "__", 0);
  const std::vector<std::string> want = {"value____krow_nc__name", "value____KROW_NC__x",
                                         "__krow_n"};
  EXPECT_EQ(names(columns), want);
}

// A table made from v1 {n, a: {b}, Name}; later versions add fields whose plain names are
// those columns'. Each field keeps its column; a new one never takes another's.
TEST(ColumnNames, AFieldKeepsItsColumnAndNewFieldsNeverTakeOne) {
  auto v1 = specs({{"n"}, {"a", "b"}, {"Name"}});
  assign_names(v1, "__", 0);
  ASSERT_EQ(names(v1), (std::vector<std::string>{"n", "a__b", "Name"}));
  const auto bindings = bindings_of(v1);
  const std::vector<std::string> table = {"n", "a__b", "Name"};

  // v2 puts a top-level `a__b` before `a`, and `name` before `Name`: alone, the rules would
  // give them the plain names (first in schema order).
  auto v2 = specs({{"n"}, {"a__b"}, {"a", "b"}, {"name"}, {"Name"}});
  assign_names(v2, "__", 0);
  EXPECT_EQ(v2[1].name, "a__b");
  bind_names(v2, bindings, table, "__", 0);
  EXPECT_EQ(v2[0].name, "n");
  EXPECT_EQ(v2[2].name, "a__b");  // a.b keeps its column
  EXPECT_EQ(v2[4].name, "Name");
  EXPECT_EQ(v2[1].name.rfind("a__b_", 0), 0u) << v2[1].name;
  EXPECT_EQ(v2[1].wanted, "a__b");
  EXPECT_EQ(v2[3].name.rfind("name_", 0), 0u) << v2[3].name;  // not `name`: DuckDB folds case
  EXPECT_EQ(v2[3].wanted, "name");
  EXPECT_TRUE(v2[0].wanted.empty());
  EXPECT_TRUE(v2[2].wanted.empty());

  // v3, once v2's columns are recorded too: every earlier field keeps its column, whatever
  // order the schema lists them in; a new field whose name is free takes it plainly.
  auto recorded = bindings;
  for (const auto& b : bindings_of(v2))
    if (std::none_of(recorded.begin(), recorded.end(),
                     [&](const ColumnBinding& r) { return r.path == b.path; }))
      recorded.push_back(b);
  auto now = table;
  now.push_back(v2[1].name);
  now.push_back(v2[3].name);
  auto v3 = specs({{"Name"}, {"name"}, {"a", "c"}, {"a", "b"}, {"a__b"}, {"n"}, {"A__B"}});
  bind_names(v3, recorded, now, "__", 0);
  EXPECT_EQ(v3[0].name, "Name");
  EXPECT_EQ(v3[1].name, v2[3].name);
  EXPECT_EQ(v3[2].name, "a__c");
  EXPECT_TRUE(v3[2].wanted.empty());
  EXPECT_EQ(v3[3].name, "a__b");
  EXPECT_EQ(v3[4].name, v2[1].name);
  EXPECT_EQ(v3[5].name, "n");
  EXPECT_EQ(v3[6].wanted, "A__B");  // a__b's, ignoring case
  EXPECT_EQ(v3[6].name.rfind("A__B_", 0), 0u) << v3[6].name;
  std::set<std::string> distinct;
  for (const auto& c : v3) distinct.insert(lower_ascii(c.name));
  EXPECT_EQ(distinct.size(), v3.size());
}

TEST(ColumnNames, ATableFromBeforeBindingsKeepsTheNamesItHas) {
  // No bindings recorded: each column goes to the field whose plain name it is, a retired
  // column back to its field when the field returns; variant columns are nobody's.
  auto planned = specs({{"n"}, {"gone"}, {"fresh"}});
  bind_names(planned, {}, {"n", "gone", "__krow_nc__n"}, "__", 0);
  EXPECT_EQ(names(planned), (std::vector<std::string>{"n", "gone", "fresh"}));
  for (const auto& c : planned) EXPECT_TRUE(c.wanted.empty()) << c.name;
}

TEST(ColumnNames, BindingsOfSkipVariantAndRetiredColumns) {
  auto columns = specs({{"a"}, {"b"}, {"a"}});
  columns[0].name = "a";
  columns[1].name = "b";
  columns[1].retired = true;
  columns[2].name = "__krow_nc__a";
  const auto got = bindings_of(columns);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].column, "a");
  EXPECT_EQ(got[0].path, std::vector<std::string>{"a"});
}

TEST(ColumnNames, PathKeysReadBack) {
  for (const auto& path : std::vector<std::vector<std::string>>{
           {}, {"a"}, {"a.b", "c"}, {"quote\"s", "back\\slash", "tab\t", "é✓"}, {""}}) {
    const auto key = path_key(path);
    const auto back = path_of_key(key);
    ASSERT_TRUE(back) << key;
    EXPECT_EQ(*back, path) << key;
  }
  EXPECT_EQ(path_key({"a", "b"}), R"(["a","b"])");
  EXPECT_FALSE(path_of_key("a.b"));
  EXPECT_FALSE(path_of_key("[1]"));
}

TEST(ColumnPlan, LongNamesAreShortenedWithAHashWithinTheLimit) {
  const std::string long_field(40, 'x');
  auto columns = specs({{long_field, long_field},
                        {long_field, long_field + "y"},
                        {"short"},
                        {"é" + std::string(70, 'z')}});
  assign_names(columns, "__", 63);
  const auto got = names(columns);
  for (const auto& n : got) EXPECT_LE(n.size(), 63u) << n;
  EXPECT_EQ(got[0].size(), 63u);
  EXPECT_EQ(got[0].substr(0, 54), (long_field + "__" + long_field).substr(0, 54));
  EXPECT_NE(got[0], got[1]);
  EXPECT_EQ(got[2], "short");
  EXPECT_EQ(got[3].substr(0, 2), "é");
  auto again = specs({{long_field, long_field}});
  assign_names(again, "__", 63);
  EXPECT_EQ(again[0].name, got[0]);
  // Without a limit, names are kept whole.
  auto unlimited = specs({{long_field, long_field}});
  assign_names(unlimited, "__", 0);
  EXPECT_EQ(unlimited[0].name, long_field + "__" + long_field);
}

TEST(ColumnPlan, OddFieldNamesStayUsable) {
  auto columns = specs({{""}, {"a\tb"}, {"first name"}});
  assign_names(columns, "__", 0);
  const std::vector<std::string> want = {"_", "a_b", "first name"};
  EXPECT_EQ(names(columns), want);
}

TEST(ColumnPlan, PlannedNamesRespectTheLimitForEveryFormat) {
  ColumnOptions options;
  options.max_name_bytes = 63;
  std::string fields;
  for (int i = 0; i < 3; ++i)
    fields += std::string(i ? "," : "") + R"({"name":"a_rather_long_field_name_number_)" +
              std::to_string(i) + R"(_that_goes_on_and_on","type":"int"})";
  const auto plan = plan_columns(
      *schema(SchemaType::avro, R"({"type":"record","name":"R","fields":[)" + fields + "]}"),
      options);
  ASSERT_EQ(plan.columns.size(), 3u);
  for (const auto& c : plan.columns) EXPECT_LE(c.name.size(), 63u) << c.name;
  EXPECT_NE(plan.columns[0].name, plan.columns[1].name);
}

}  // namespace
}  // namespace krow::columns
