#include "codec/protobuf/builtin_files.hpp"

#include <google/protobuf/descriptor.h>

#include <string>

namespace krow::pb {

namespace gpb = google::protobuf;

namespace {

// Confluent's annotations for schemas, as its serializers define them (package `confluent`,
// options extended at field number 1088). Decoding never reads them, but a schema that
// uses them must import this file to compile.
constexpr std::string_view kConfluentMeta = R"proto(syntax = "proto3";
package confluent;

import "google/protobuf/descriptor.proto";

option go_package = "../confluent";
option java_package = "io.confluent.protobuf";
option java_outer_classname = "MetaProto";

message Meta {
  string doc = 1;
  map<string, string> params = 2;
  repeated string tags = 3;
}

extend google.protobuf.FileOptions { Meta file_meta = 1088; }
extend google.protobuf.MessageOptions { Meta message_meta = 1088; }
extend google.protobuf.FieldOptions { Meta field_meta = 1088; }
extend google.protobuf.EnumOptions { Meta enum_meta = 1088; }
extend google.protobuf.EnumValueOptions { Meta enum_value_meta = 1088; }
)proto";

// Confluent's decimal: an unscaled big-endian two's-complement integer and a scale; the
// decoder prints it as an exact decimal string.
constexpr std::string_view kConfluentDecimal = R"proto(syntax = "proto3";
package confluent.type;

option go_package = "../type";
option java_package = "io.confluent.protobuf.type";
option java_outer_classname = "DecimalProto";

message Decimal {
  bytes value = 1;
  uint32 precision = 2;
  int32 scale = 3;
}
)proto";

}  // namespace

bool copy_linked_file(std::string_view name, gpb::FileDescriptorProto& file) {
  if (!name.starts_with("google/protobuf/")) return false;
  // The generated pool knows every file compiled into the linked libprotobuf.
  const gpb::FileDescriptor* linked = gpb::DescriptorPool::generated_pool()->FindFileByName(std::string(name));
  if (linked == nullptr) return false;
  file.Clear();
  linked->CopyTo(&file);
  return true;
}

std::string_view confluent_file_text(std::string_view name) {
  if (name == "confluent/meta.proto") return kConfluentMeta;
  if (name == "confluent/type/decimal.proto") return kConfluentDecimal;
  return {};
}

}  // namespace krow::pb
