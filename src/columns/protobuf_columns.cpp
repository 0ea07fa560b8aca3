// Protobuf schema → columns. The schema is parsed into a descriptor pool exactly as the
// decoder parses it (codec/protobuf/schema_pool), imports and well-known types included, and
// the fields are named as the decoder writes them: by their .proto names.

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "codec/protobuf/schema_pool.hpp"
#include "columns/column_names.hpp"
#include "columns/column_plan.hpp"

namespace krow::columns {

namespace {

namespace gpb = google::protobuf;
using FD = gpb::FieldDescriptor;

// The column of a well-known message type that the decoder writes as one value; none for
// the others.
struct WellKnown {
  std::string_view name;
  ColumnType type;
};

constexpr WellKnown kWellKnown[] = {
    {"google.protobuf.Timestamp", ColumnType::timestamp},
    {"google.protobuf.Duration", ColumnType::text},   // "1.5s"
    {"google.protobuf.FieldMask", ColumnType::text},  // "a.fooBar,b"
    {"google.protobuf.Struct", ColumnType::json},
    {"google.protobuf.Value", ColumnType::json},
    {"google.protobuf.ListValue", ColumnType::json},
    {"google.protobuf.Any", ColumnType::json},
    {"google.protobuf.Empty", ColumnType::json},
    {"google.protobuf.DoubleValue", ColumnType::float64},
    {"google.protobuf.FloatValue", ColumnType::float32},
    {"google.protobuf.Int64Value", ColumnType::int64},
    {"google.protobuf.UInt64Value", ColumnType::uint64},
    {"google.protobuf.Int32Value", ColumnType::int32},
    {"google.protobuf.UInt32Value", ColumnType::int64},
    {"google.protobuf.BoolValue", ColumnType::boolean},
    {"google.protobuf.StringValue", ColumnType::text},
    {"google.protobuf.BytesValue", ColumnType::bytes},
    // Exact decimal text of any length. Its precision sits in a field option
    // ((confluent.field_meta).params) that is not read yet, so it is text.
    {"confluent.type.Decimal", ColumnType::text},
};

const WellKnown* well_known(const gpb::Descriptor* d) {
  for (const auto& w : kWellKnown)
    if (d->full_name() == w.name) return &w;
  return nullptr;
}

ColumnType scalar_type(const FD* f) {
  switch (f->type()) {
    case FD::TYPE_INT32:
    case FD::TYPE_SINT32:
    case FD::TYPE_SFIXED32:
      return ColumnType::int32;
    case FD::TYPE_UINT32:
    case FD::TYPE_FIXED32:
      return ColumnType::int64;  // beyond int32: the next wider signed type
    case FD::TYPE_INT64:
    case FD::TYPE_SINT64:
    case FD::TYPE_SFIXED64:
      return ColumnType::int64;
    case FD::TYPE_UINT64:
    case FD::TYPE_FIXED64:
      return ColumnType::uint64;
    case FD::TYPE_FLOAT:
      return ColumnType::float32;
    case FD::TYPE_DOUBLE:
      return ColumnType::float64;
    case FD::TYPE_BOOL:
      return ColumnType::boolean;
    case FD::TYPE_STRING:
      return ColumnType::text;
    case FD::TYPE_BYTES:
      return ColumnType::bytes;
    case FD::TYPE_ENUM:
      // NullValue is written as JSON null whatever its number.
      return f->enum_type()->full_name() == "google.protobuf.NullValue" ? ColumnType::json
                                                                        : ColumnType::text;
    case FD::TYPE_MESSAGE:
    case FD::TYPE_GROUP:
      return ColumnType::json;
  }
  return ColumnType::json;
}

// The field's type as the .proto names it: "int64", "enum acme.Color", "message acme.Address".
std::string value_source(const FD* f) {
  if (f->type() == FD::TYPE_ENUM) return "enum " + f->enum_type()->full_name();
  if (f->type() == FD::TYPE_MESSAGE || f->type() == FD::TYPE_GROUP)
    return std::string(f->type() == FD::TYPE_GROUP ? "group " : "message ") +
           f->message_type()->full_name();
  return f->type_name();
}

std::string field_source(const FD* f) {
  if (f->is_map()) {
    const auto* entry = f->message_type();
    return "map<" + value_source(entry->map_key()) + ", " + value_source(entry->map_value()) + ">";
  }
  std::string s = f->is_repeated() ? "repeated " + value_source(f) : value_source(f);
  if (f->real_containing_oneof())
    s += " (oneof " + f->real_containing_oneof()->name() + ")";
  else if (f->has_optional_keyword() && f->file()->syntax() == gpb::FileDescriptor::SYNTAX_PROTO3)
    s = "optional " + s;
  return s;
}

class ProtobufPlanner {
 public:
  ProtobufPlanner(const ColumnOptions& options, ColumnPlan& out) : options_(options), out_(out) {}

  void message(const gpb::Descriptor* d, const std::vector<std::string>& prefix, bool nullable) {
    stack_.push_back(d);
    for (int i = 0; i < d->field_count(); ++i) field(d->field(i), prefix, nullable);
    stack_.pop_back();
  }

 private:
  void add(std::vector<std::string> path, ColumnType type, bool nullable, std::string source) {
    out_.add(std::move(path), type, nullable, std::move(source));
  }

  void field(const FD* f, std::vector<std::string> path, bool nullable) {
    path.push_back(f->name());
    const std::string source = field_source(f);
    // Repeated fields and maps are always written ([] and {} when empty).
    if (f->is_repeated()) return add(path, ColumnType::json, nullable, source);
    // Written only when set: message fields, oneof members, proto3 `optional` (a synthetic
    // oneof). Every other field is written with its default value when unset.
    const bool is_message = f->type() == FD::TYPE_MESSAGE || f->type() == FD::TYPE_GROUP;
    const bool may_be_absent = nullable || is_message || f->containing_oneof() != nullptr;
    if (!is_message) return add(path, scalar_type(f), may_be_absent, source);
    const auto* d = f->message_type();
    if (const auto* w = well_known(d)) return add(path, w->type, true, source);
    if (options_.nested == NestedMode::json) return add(path, ColumnType::json, true, source);
    if (std::find(stack_.begin(), stack_.end(), d) != stack_.end()) {
      out_.notes.push_back(path_text(path) + ": message " + d->full_name() +
                           " contains itself, so it is one JSON column there");
      return add(path, ColumnType::json, true, source);
    }
    this->message(d, path, true);
  }

  const ColumnOptions& options_;
  ColumnPlan& out_;
  std::vector<const gpb::Descriptor*> stack_;  // messages being flattened (recursion check)
};

}  // namespace

ColumnPlan plan_protobuf_columns(const ResolvedSchema& schema, const ColumnOptions& options) {
  if (schema.type != SchemaType::protobuf)
    throw std::invalid_argument("the schema is not of type Protobuf");
  const pb::SchemaPool pool(schema);
  const auto& file = pool.root();
  if (file.message_type_count() == 0)
    throw std::invalid_argument("Protobuf schema: " + file.name() + " declares no message");
  const auto* root = file.message_type(0);
  ColumnPlan out;
  out.format = SchemaType::protobuf;
  out.root = "message " + root->full_name();
  if (file.message_type_count() > 1)
    out.notes.push_back("the schema declares " + std::to_string(file.message_type_count()) +
                        " top-level messages; the columns are those of the first, " +
                        root->full_name() + " (message index [0])");
  if (const auto* w = well_known(root)) {
    ColumnSpec c;
    c.type = w->type;
    c.source = "message " + root->full_name();
    out.columns.push_back(std::move(c));
  } else {
    ProtobufPlanner(options, out).message(root, {}, false);
  }
  assign_names(out.columns, options.separator, options.max_name_bytes);
  return out;
}

}  // namespace krow::columns
