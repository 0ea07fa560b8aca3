#pragma once
// The .proto files a Protobuf consumer supplies itself because the registry does not send
// them as references: Google's well-known types (google/protobuf/*.proto) and Confluent's
// own annotations (confluent/meta.proto, confluent/type/decimal.proto).

#include <google/protobuf/descriptor.pb.h>

#include <string_view>

namespace krow::pb {

// Copies the google/protobuf/*.proto file named `name` from the descriptors compiled into
// the linked libprotobuf (nothing is read from disk) and returns true; false when there is
// no such file. Thread-safe.
bool copy_linked_file(std::string_view name, google::protobuf::FileDescriptorProto& file);

// The .proto text of Confluent's built-in file `name` (confluent/meta.proto or
// confluent/type/decimal.proto), or an empty view for any other name. The text is static.
std::string_view confluent_file_text(std::string_view name);

// True for the import paths whose linked definition wins over a copy sent by the registry:
// google/protobuf/*.proto, whose wire format never changes and whose newer texts may use
// syntax this protobuf version cannot parse.
inline bool linked_file_preferred(std::string_view name) { return name.starts_with("google/protobuf/"); }

// The well-known-type files every pool holds, imported or not, so that a
// google.protobuf.Any can carry any of them.
inline constexpr std::string_view kWellKnownFiles[] = {
    "google/protobuf/any.proto",        "google/protobuf/api.proto",
    "google/protobuf/duration.proto",   "google/protobuf/empty.proto",
    "google/protobuf/field_mask.proto", "google/protobuf/source_context.proto",
    "google/protobuf/struct.proto",     "google/protobuf/timestamp.proto",
    "google/protobuf/type.proto",       "google/protobuf/wrappers.proto",
};

}  // namespace krow::pb
