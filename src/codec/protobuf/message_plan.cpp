#include "codec/protobuf/message_plan.hpp"

#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <stdexcept>

#include "codec/protobuf/builtin_files.hpp"
#include "codec/protobuf/json_numbers.hpp"
#include "util/text.hpp"

namespace krow::pb {

namespace gpb = google::protobuf;

namespace {

ValueKind kind_of(const gpb::FieldDescriptor* field) {
  switch (field->type()) {
    case gpb::FieldDescriptor::TYPE_INT32:
    case gpb::FieldDescriptor::TYPE_SINT32:
    case gpb::FieldDescriptor::TYPE_SFIXED32: return ValueKind::int32;
    case gpb::FieldDescriptor::TYPE_INT64:
    case gpb::FieldDescriptor::TYPE_SINT64:
    case gpb::FieldDescriptor::TYPE_SFIXED64: return ValueKind::int64;
    case gpb::FieldDescriptor::TYPE_UINT32:
    case gpb::FieldDescriptor::TYPE_FIXED32: return ValueKind::uint32;
    case gpb::FieldDescriptor::TYPE_UINT64:
    case gpb::FieldDescriptor::TYPE_FIXED64: return ValueKind::uint64;
    case gpb::FieldDescriptor::TYPE_FLOAT: return ValueKind::float32;
    case gpb::FieldDescriptor::TYPE_DOUBLE: return ValueKind::float64;
    case gpb::FieldDescriptor::TYPE_BOOL: return ValueKind::boolean;
    case gpb::FieldDescriptor::TYPE_ENUM:
      return field->enum_type()->full_name() == "google.protobuf.NullValue" ? ValueKind::null_value
                                                                             : ValueKind::enumeration;
    case gpb::FieldDescriptor::TYPE_STRING: return ValueKind::string;
    case gpb::FieldDescriptor::TYPE_BYTES: return ValueKind::bytes;
    case gpb::FieldDescriptor::TYPE_MESSAGE:
    case gpb::FieldDescriptor::TYPE_GROUP: return ValueKind::message;
  }
  return ValueKind::bytes;  // not reached: every type is listed
}

// The plan's field called `name` when it has the expected type and is singular, else null.
const FieldPlan* field_named(const MessagePlan& plan, std::string_view name, gpb::FieldDescriptor::Type type,
                             bool repeated = false) {
  for (const FieldPlan& f : plan.fields) {
    if (f.field->name() == name) return f.field->type() == type && f.repeated == repeated ? &f : nullptr;
  }
  return nullptr;
}

// Gives the plan its special JSON form when its type is one of the well-known types (or
// Confluent's Decimal) with the expected shape; anything else stays an object.
void choose_form(MessagePlan& plan) {
  using T = gpb::FieldDescriptor;
  const std::string& name = plan.descriptor->full_name();
  auto pick = [&](MessageForm form, const FieldPlan* first, const FieldPlan* second, bool needs_second) {
    if (first == nullptr || (needs_second && second == nullptr)) return;
    plan.form = form;
    plan.first = first;
    plan.second = second;
  };
  if (name == "confluent.type.Decimal") {
    pick(MessageForm::decimal, field_named(plan, "value", T::TYPE_BYTES), field_named(plan, "scale", T::TYPE_INT32), true);
    return;
  }
  if (!name.starts_with("google.protobuf.")) return;
  // Only the linked well-known types qualify: a user's own google.protobuf.* message from a
  // file of another name keeps its plain form.
  const std::string& file = plan.descriptor->file()->name();
  if (std::find(std::begin(kWellKnownFiles), std::end(kWellKnownFiles), file) == std::end(kWellKnownFiles)) return;
  const std::string_view type = std::string_view(name).substr(16);
  if (type == "Timestamp" || type == "Duration") {
    pick(type == "Timestamp" ? MessageForm::timestamp : MessageForm::duration,
         field_named(plan, "seconds", T::TYPE_INT64), field_named(plan, "nanos", T::TYPE_INT32), true);
  } else if (type == "FieldMask") {
    pick(MessageForm::field_mask, field_named(plan, "paths", T::TYPE_STRING, true), nullptr, false);
  } else if (type == "Struct") {
    const FieldPlan* fields = field_named(plan, "fields", T::TYPE_MESSAGE, true);
    pick(MessageForm::struct_, fields != nullptr && fields->is_map ? fields : nullptr, nullptr, false);
  } else if (type == "Value") {
    if (plan.descriptor->oneof_decl_count() == 1 && !plan.fields.empty()) pick(MessageForm::value, &plan.fields.front(), nullptr, false);
  } else if (type == "ListValue") {
    pick(MessageForm::list_value, field_named(plan, "values", T::TYPE_MESSAGE, true), nullptr, false);
  } else if (type == "Any") {
    pick(MessageForm::any, field_named(plan, "type_url", T::TYPE_STRING), field_named(plan, "value", T::TYPE_BYTES), true);
  } else if (type == "DoubleValue" || type == "FloatValue" || type == "Int64Value" || type == "UInt64Value" ||
             type == "Int32Value" || type == "UInt32Value" || type == "BoolValue" || type == "StringValue" ||
             type == "BytesValue") {
    if (plan.fields.size() == 1 && plan.fields[0].field->name() == "value" && !plan.fields[0].repeated) {
      pick(MessageForm::wrapper, &plan.fields[0], nullptr, false);
    }
  }
}

// The JSON text of a singular field's value when it is unset: the type's zero, or the
// default a proto2 field declares.
std::string default_json(const gpb::FieldDescriptor* field) {
  std::string out;
  switch (field->cpp_type()) {
    case gpb::FieldDescriptor::CPPTYPE_INT32: append_int(out, field->default_value_int32()); break;
    case gpb::FieldDescriptor::CPPTYPE_INT64:
      out.push_back('"');
      append_int(out, field->default_value_int64());
      out.push_back('"');
      break;
    case gpb::FieldDescriptor::CPPTYPE_UINT32: out = std::to_string(field->default_value_uint32()); break;
    case gpb::FieldDescriptor::CPPTYPE_UINT64: out = "\"" + std::to_string(field->default_value_uint64()) + "\""; break;
    case gpb::FieldDescriptor::CPPTYPE_FLOAT: append_json_float(out, field->default_value_float()); break;
    case gpb::FieldDescriptor::CPPTYPE_DOUBLE: append_json_float(out, field->default_value_double()); break;
    case gpb::FieldDescriptor::CPPTYPE_BOOL: out = field->default_value_bool() ? "true" : "false"; break;
    case gpb::FieldDescriptor::CPPTYPE_ENUM:
      if (field->enum_type()->full_name() == "google.protobuf.NullValue") {
        out = "null";
      } else {
        out = "\"" + field->default_value_enum()->name() + "\"";
      }
      break;
    case gpb::FieldDescriptor::CPPTYPE_STRING: {
      const std::string& text = field->default_value_string();
      if (field->type() == gpb::FieldDescriptor::TYPE_BYTES) {
        out.push_back('"');
        append_base64(out, text.data(), text.size());
        out.push_back('"');
      } else if (is_valid_utf8(text)) {
        append_json_string(out, text);
      } else {
        throw std::invalid_argument(field->full_name() + ": default value is not valid UTF-8");
      }
      break;
    }
    case gpb::FieldDescriptor::CPPTYPE_MESSAGE: break;
  }
  return out;
}

// A table from enum number to quoted name, when the numbers are dense enough.
void fill_enum_table(FieldPlan& f) {
  const gpb::EnumDescriptor* e = f.field->enum_type();
  if (e->value_count() == 0) return;
  int32_t lo = e->value(0)->number(), hi = lo;
  for (int i = 1; i < e->value_count(); ++i) {
    lo = std::min(lo, e->value(i)->number());
    hi = std::max(hi, e->value(i)->number());
  }
  if (static_cast<int64_t>(hi) - lo > 4 * static_cast<int64_t>(e->value_count()) + 64) return;
  f.enum_min = lo;
  f.enum_json.resize(static_cast<size_t>(hi - lo) + 1);
  // The first name given to a number is its name (later ones are aliases), as
  // EnumDescriptor::FindValueByNumber answers.
  for (int i = e->value_count(); i-- > 0;) {
    const gpb::EnumValueDescriptor* v = e->value(i);
    f.enum_json[static_cast<size_t>(v->number() - lo)] = "\"" + v->name() + "\"";
  }
}

}  // namespace

const FieldPlan* MessagePlan::find_sparse(uint32_t number) const {
  const auto it = std::lower_bound(sparse_numbers.begin(), sparse_numbers.end(), std::pair<int32_t, int32_t>(int32_t(number), -1));
  if (it == sparse_numbers.end() || uint32_t(it->first) != number) return nullptr;
  return &fields[static_cast<size_t>(it->second)];
}

MessagePlans::MessagePlans(const gpb::DescriptorPool& pool, const gpb::FileDescriptor& root,
                           gpb::DynamicMessageFactory& factory)
    : pool_(pool) {
  add_file(&root);
  for (const std::string_view name : kWellKnownFiles) {
    if (const gpb::FileDescriptor* file = pool.FindFileByName(std::string(name))) add_file(file);
  }
  // Every plan exists before any field points at one.
  for (const gpb::FileDescriptor* file : files_) {
    for (int i = 0; i < file->message_type_count(); ++i) add_message(file->message_type(i), factory);
  }
  for (MessagePlan& plan : plans_) fill(plan);
  // Which types may hold a required field at any depth: a fixpoint, as types may recurse.
  for (bool changed = true; changed;) {
    changed = false;
    for (MessagePlan& plan : plans_) {
      if (plan.required_inside) continue;
      bool inside = plan.has_required;
      for (const FieldPlan& f : plan.fields) inside = inside || (f.message != nullptr && f.message->required_inside);
      if (inside) plan.required_inside = changed = true;
    }
  }
  for (int i = 0; i < root.message_type_count(); ++i) top_.push_back(find(root.message_type(i)));
}

void MessagePlans::add_file(const gpb::FileDescriptor* file) {
  if (std::find(files_.begin(), files_.end(), file) != files_.end()) return;
  files_.push_back(file);
  for (int i = 0; i < file->dependency_count(); ++i) add_file(file->dependency(i));
}

MessagePlan& MessagePlans::add_message(const gpb::Descriptor* descriptor, gpb::DynamicMessageFactory& factory) {
  MessagePlan& plan = plans_.emplace_back();
  plan.descriptor = descriptor;
  plan.prototype = factory.GetPrototype(descriptor);
  by_descriptor_.emplace(descriptor, &plan);
  for (int i = 0; i < descriptor->nested_type_count(); ++i) {
    const gpb::Descriptor* nested = descriptor->nested_type(i);
    MessagePlan& child = add_message(nested, factory);
    // Message indexes count every nested type of the descriptor, including the entry types
    // protobuf synthesizes for map fields: Confluent's serializers index the descriptor's
    // nested types as they are (checked against its Python serializer, whose own
    // deserializer reads the same indexes back).
    plan.nested.push_back(&child);
  }
  return plan;
}

void MessagePlans::fill(MessagePlan& plan) {
  const gpb::Descriptor* d = plan.descriptor;
  plan.fields.reserve(static_cast<size_t>(d->field_count()));
  int32_t max_number = 0;
  for (int i = 0; i < d->field_count(); ++i) {
    const gpb::FieldDescriptor* field = d->field(i);
    FieldPlan& f = plan.fields.emplace_back();
    f.field = field;
    append_json_string(f.key, field->name());
    f.key.push_back(':');
    f.kind = kind_of(field);
    f.repeated = field->is_repeated();
    f.is_map = field->is_map();
    f.always_printed = !f.repeated && field->containing_oneof() == nullptr && f.kind != ValueKind::message;
    // protobuf 3.21 checks the UTF-8 of strings declared in proto3 files while parsing.
    f.strict_utf8 = f.kind == ValueKind::string && field->file()->syntax() == gpb::FileDescriptor::SYNTAX_PROTO3;
    f.group = field->type() == gpb::FieldDescriptor::TYPE_GROUP;
    f.type = field->type();
    f.wire_type = static_cast<uint8_t>(gpb::internal::WireFormatLite::WireTypeForFieldType(
        static_cast<gpb::internal::WireFormatLite::FieldType>(field->type())));
    f.packable = field->is_packable();
    f.required = field->is_required();
    plan.has_required = plan.has_required || f.required;
    f.oneof = field->containing_oneof() != nullptr ? field->containing_oneof()->index() : -1;
    if (f.kind == ValueKind::enumeration) {
      // protobuf 3.21 keeps numbers an enum does not name only in proto3 files.
      f.closed_enum = field->file()->syntax() != gpb::FileDescriptor::SYNTAX_PROTO3;
      fill_enum_table(f);
    }
    if (!f.repeated && f.kind != ValueKind::message) f.default_json = default_json(field);
    if (f.kind == ValueKind::message) f.message = find(field->message_type());
    max_number = std::max(max_number, field->number());
  }
  plan.oneof_count = d->oneof_decl_count();
  // A dense table when numbers are reasonably packed, else a sorted list.
  if (max_number <= 4 * d->field_count() + 64) {
    plan.dense_numbers.assign(static_cast<size_t>(max_number) + 1, -1);
    for (size_t i = 0; i < plan.fields.size(); ++i) plan.dense_numbers[size_t(plan.fields[i].field->number())] = int32_t(i);
  } else {
    for (size_t i = 0; i < plan.fields.size(); ++i) plan.sparse_numbers.emplace_back(plan.fields[i].field->number(), int32_t(i));
    std::sort(plan.sparse_numbers.begin(), plan.sparse_numbers.end());
  }
  choose_form(plan);
}

const MessagePlan* MessagePlans::find(const gpb::Descriptor* descriptor) const {
  const auto it = by_descriptor_.find(descriptor);
  return it == by_descriptor_.end() ? nullptr : it->second;
}

const MessagePlan* MessagePlans::find(std::string_view full_name) const {
  const gpb::Descriptor* d = pool_.FindMessageTypeByName(std::string(full_name));
  return d == nullptr ? nullptr : find(d);
}

}  // namespace krow::pb
