#include "codec/protobuf/reflection_printer.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "codec/protobuf/decimal_text.hpp"
#include "codec/protobuf/json_numbers.hpp"
#include "codec/protobuf/wire_check.hpp"
#include "util/text.hpp"

namespace krow::pb {

namespace gpb = google::protobuf;

namespace {

// A map entry's key, for sorting.
struct MapKey {
  std::string_view text;  // string keys
  int64_t signed_value = 0;
  uint64_t unsigned_value = 0;
  const gpb::Message* entry = nullptr;
};

}  // namespace

bool ReflectionPrinter::fail(std::string reason) {
  error_ = std::move(reason);
  return false;
}

bool ReflectionPrinter::print(const gpb::Message& m, const MessagePlan& plan, int depth) {
  if (depth > kMaxNesting) return fail("messages nest deeper than 100 levels");
  const gpb::Reflection* r = m.GetReflection();
  switch (plan.form) {
    case MessageForm::object: {
      out_.push_back('{');
      bool first = true;
      if (!print_object_fields(m, plan, first, depth)) return false;
      out_.push_back('}');
      return true;
    }
    case MessageForm::timestamp:
    case MessageForm::duration: return print_time(m, plan);
    case MessageForm::field_mask: return print_field_mask(m, plan);
    case MessageForm::struct_: return print_map(m, *plan.first, depth);
    case MessageForm::list_value: return print_array(m, *plan.first, depth);
    case MessageForm::wrapper: return print_value<false>(m, *plan.first, 0, depth);
    case MessageForm::any: return print_any(m, plan, depth);
    case MessageForm::decimal: return print_decimal(m, plan);
    case MessageForm::value: {
      const gpb::FieldDescriptor* set = r->GetOneofFieldDescriptor(m, plan.descriptor->oneof_decl(0));
      const FieldPlan* f = set != nullptr ? plan.find(static_cast<uint32_t>(set->number())) : nullptr;
      if (f == nullptr) {
        out_.append("null");  // a Value with no kind set
        return true;
      }
      return print_value<false>(m, *f, 0, depth);
    }
  }
  return fail("internal error: unknown message form");
}

bool ReflectionPrinter::print_object_fields(const gpb::Message& m, const MessagePlan& plan, bool& first, int depth) {
  const gpb::Reflection* r = m.GetReflection();
  for (const FieldPlan& f : plan.fields) {
    if (!f.repeated && !f.always_printed && !r->HasField(m, f.field)) continue;
    if (!first) out_.push_back(',');
    first = false;
    out_.append(f.key);
    bool ok;
    if (f.is_map) {
      ok = print_map(m, f, depth);
    } else if (f.repeated) {
      ok = print_array(m, f, depth);
    } else {
      ok = print_value<false>(m, f, 0, depth);
    }
    if (!ok) return false;
  }
  return true;
}

template <bool kRepeated>
bool ReflectionPrinter::print_value(const gpb::Message& m, const FieldPlan& f, int index, int depth) {
  const gpb::Reflection* r = m.GetReflection();
  const gpb::FieldDescriptor* d = f.field;
  switch (f.kind) {
    case ValueKind::int32:
      append_int(out_, kRepeated ? r->GetRepeatedInt32(m, d, index) : r->GetInt32(m, d));
      return true;
    case ValueKind::int64:
      out_.push_back('"');
      append_int(out_, kRepeated ? r->GetRepeatedInt64(m, d, index) : r->GetInt64(m, d));
      out_.push_back('"');
      return true;
    case ValueKind::uint32:
      append_uint(out_, kRepeated ? r->GetRepeatedUInt32(m, d, index) : r->GetUInt32(m, d));
      return true;
    case ValueKind::uint64:
      out_.push_back('"');
      append_uint(out_, kRepeated ? r->GetRepeatedUInt64(m, d, index) : r->GetUInt64(m, d));
      out_.push_back('"');
      return true;
    case ValueKind::float32:
      append_json_float(out_, kRepeated ? r->GetRepeatedFloat(m, d, index) : r->GetFloat(m, d));
      return true;
    case ValueKind::float64:
      append_json_float(out_, kRepeated ? r->GetRepeatedDouble(m, d, index) : r->GetDouble(m, d));
      return true;
    case ValueKind::boolean:
      out_.append((kRepeated ? r->GetRepeatedBool(m, d, index) : r->GetBool(m, d)) ? "true" : "false");
      return true;
    case ValueKind::enumeration:
      print_enum(d, kRepeated ? r->GetRepeatedEnumValue(m, d, index) : r->GetEnumValue(m, d));
      return true;
    case ValueKind::null_value: out_.append("null"); return true;
    case ValueKind::string:
      return print_string(kRepeated ? r->GetRepeatedStringReference(m, d, index, &scratch_)
                                    : r->GetStringReference(m, d, &scratch_),
                          f);
    case ValueKind::bytes: {
      const std::string& bytes =
          kRepeated ? r->GetRepeatedStringReference(m, d, index, &scratch_) : r->GetStringReference(m, d, &scratch_);
      out_.push_back('"');
      append_base64(out_, bytes.data(), bytes.size());
      out_.push_back('"');
      return true;
    }
    case ValueKind::message:
      return print(kRepeated ? r->GetRepeatedMessage(m, d, index) : r->GetMessage(m, d), *f.message, depth + 1);
  }
  return fail("internal error: unknown value kind");
}

bool ReflectionPrinter::print_array(const gpb::Message& m, const FieldPlan& f, int depth) {
  const int n = m.GetReflection()->FieldSize(m, f.field);
  out_.push_back('[');
  for (int i = 0; i < n; ++i) {
    if (i != 0) out_.push_back(',');
    if (!print_value<true>(m, f, i, depth)) return false;
  }
  out_.push_back(']');
  return true;
}

bool ReflectionPrinter::print_map(const gpb::Message& m, const FieldPlan& f, int depth) {
  const gpb::Reflection* r = m.GetReflection();
  const int n = r->FieldSize(m, f.field);
  if (n == 0) {
    out_.append("{}");
    return true;
  }
  const MessagePlan& entry_plan = *f.message;
  const FieldPlan* key_plan = entry_plan.find(1);
  const FieldPlan* value_plan = entry_plan.find(2);
  if (key_plan == nullptr || value_plan == nullptr) return fail("internal error: map entry without key or value");
  const gpb::FieldDescriptor* key_field = key_plan->field;

  // Entries come out of protobuf in no fixed order (hash order, or wire order with
  // duplicate keys when reflection holds them as a list): sort them by key, and of equal
  // keys keep the last one, as a map would.
  std::vector<MapKey> keys(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const gpb::Message& entry = r->GetRepeatedMessage(m, f.field, i);
    const gpb::Reflection* er = entry.GetReflection();
    MapKey& k = keys[static_cast<size_t>(i)];
    k.entry = &entry;
    switch (key_plan->kind) {
      case ValueKind::string: k.text = er->GetStringReference(entry, key_field, &scratch_); break;
      case ValueKind::int32: k.signed_value = er->GetInt32(entry, key_field); break;
      case ValueKind::int64: k.signed_value = er->GetInt64(entry, key_field); break;
      case ValueKind::uint32: k.unsigned_value = er->GetUInt32(entry, key_field); break;
      case ValueKind::uint64: k.unsigned_value = er->GetUInt64(entry, key_field); break;
      case ValueKind::boolean: k.unsigned_value = er->GetBool(entry, key_field) ? 1 : 0; break;
      default: return fail("internal error: unsupported map key type");
    }
  }
  auto less = [](const MapKey& a, const MapKey& b) {
    if (a.text != b.text) return a.text < b.text;
    if (a.signed_value != b.signed_value) return a.signed_value < b.signed_value;
    return a.unsigned_value < b.unsigned_value;
  };
  std::stable_sort(keys.begin(), keys.end(), less);

  out_.push_back('{');
  bool first = true;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i + 1 < keys.size() && !less(keys[i], keys[i + 1])) continue;  // a later entry has the same key
    if (!first) out_.push_back(',');
    first = false;
    const MapKey& k = keys[i];
    switch (key_plan->kind) {
      case ValueKind::string:
        if (!print_string(k.text, *key_plan)) return false;
        break;
      case ValueKind::int32:
      case ValueKind::int64:
        out_.push_back('"');
        append_int(out_, k.signed_value);
        out_.push_back('"');
        break;
      case ValueKind::boolean: out_.append(k.unsigned_value != 0 ? "\"true\"" : "\"false\""); break;
      default:
        out_.push_back('"');
        append_uint(out_, k.unsigned_value);
        out_.push_back('"');
        break;
    }
    out_.push_back(':');
    if (!print_value<false>(*k.entry, *value_plan, 0, depth)) return false;
  }
  out_.push_back('}');
  return true;
}

bool ReflectionPrinter::print_string(std::string_view text, const FieldPlan& f) {
  // proto3 strings were checked by the parser; proto2 ones may hold any bytes.
  if (!f.strict_utf8 && !is_valid_utf8(text)) return fail("string field " + f.field->full_name() + " is not valid UTF-8");
  append_json_string(out_, text);
  return true;
}

void ReflectionPrinter::print_enum(const gpb::FieldDescriptor* field, int number) {
  const gpb::EnumValueDescriptor* value = field->enum_type()->FindValueByNumber(number);
  if (value == nullptr) {
    append_int(out_, number);  // an open (proto3) enum holding a number the schema does not name
    return;
  }
  out_.push_back('"');
  out_.append(value->name());
  out_.push_back('"');
}

bool ReflectionPrinter::print_time(const gpb::Message& m, const MessagePlan& plan) {
  const gpb::Reflection* r = m.GetReflection();
  const int64_t seconds = r->GetInt64(m, plan.first->field);
  const int32_t nanos = r->GetInt32(m, plan.second->field);
  const bool timestamp = plan.form == MessageForm::timestamp;
  if (timestamp ? append_timestamp(out_, seconds, nanos) : append_duration(out_, seconds, nanos)) return true;
  std::string reason = plan.descriptor->full_name() + " out of range (seconds ";
  append_int(reason, seconds);
  reason += ", nanos ";
  append_int(reason, nanos);
  return fail(reason + ")");
}

bool ReflectionPrinter::print_field_mask(const gpb::Message& m, const MessagePlan& plan) {
  const gpb::Reflection* r = m.GetReflection();
  const int n = r->FieldSize(m, plan.first->field);
  FieldMaskText text;
  for (int i = 0; i < n; ++i) {
    const std::string& path = r->GetRepeatedStringReference(m, plan.first->field, i, &scratch_);
    text.add(path.data(), path.size());
  }
  text.append_to(out_);
  return true;
}

bool ReflectionPrinter::print_any(const gpb::Message& m, const MessagePlan& plan, int depth) {
  const gpb::Reflection* r = m.GetReflection();
  std::string url_scratch, value_scratch;
  const std::string& url = r->GetStringReference(m, plan.first->field, &url_scratch);
  const std::string& value = r->GetStringReference(m, plan.second->field, &value_scratch);
  if (url.empty()) {
    if (!value.empty()) return fail("google.protobuf.Any holds a value but no type URL");
    out_.append("{}");
    return true;
  }
  // The type's full name follows the URL's last slash ("type.googleapis.com/pkg.Msg").
  const size_t slash = url.rfind('/');
  const std::string_view type_name = slash == std::string::npos ? std::string_view(url) : std::string_view(url).substr(slash + 1);
  const MessagePlan* inner_plan = plans_.find(type_name);
  if (inner_plan == nullptr) {
    // The name comes from the payload: quoted and escaped, so the reason stays one line.
    std::string reason = "google.protobuf.Any holds type ";
    append_json_string(reason, type_name);
    return fail(reason + ", which the schema does not define");
  }
  if (value.size() > static_cast<size_t>(std::numeric_limits<int>::max())) return fail("google.protobuf.Any value too large");
  std::string reason;
  if (!check_wire(plans_, *inner_plan, reinterpret_cast<const uint8_t*>(value.data()), value.size(), depth + 1, 0, reason)) {
    return fail("google.protobuf.Any value of type " + inner_plan->descriptor->full_name() + ": " + reason);
  }
  gpb::Message* inner = inner_plan->prototype->New(&arena_);
  if (!inner->ParsePartialFromArray(value.data(), static_cast<int>(value.size()))) {
    return fail("google.protobuf.Any value: invalid wire data for " + inner_plan->descriptor->full_name());
  }
  if (!inner->IsInitialized()) {
    return fail("google.protobuf.Any value of type " + inner_plan->descriptor->full_name() +
                ": missing required fields: " + inner->InitializationErrorString());
  }
  out_.append("{\"@type\":");
  append_json_string(out_, url);  // a proto3 string: valid UTF-8
  if (inner_plan->form == MessageForm::object) {
    bool first = false;
    if (!print_object_fields(*inner, *inner_plan, first, depth + 1)) return false;
  } else {
    out_.append(",\"value\":");
    if (!print(*inner, *inner_plan, depth + 1)) return false;
  }
  out_.push_back('}');
  return true;
}

bool ReflectionPrinter::print_decimal(const gpb::Message& m, const MessagePlan& plan) {
  const gpb::Reflection* r = m.GetReflection();
  const std::string& unscaled = r->GetStringReference(m, plan.first->field, &scratch_);
  const int32_t scale = r->GetInt32(m, plan.second->field);
  out_.push_back('"');
  if (!append_decimal(out_, reinterpret_cast<const uint8_t*>(unscaled.data()), unscaled.size(), scale)) {
    std::string reason = "confluent.type.Decimal out of range (";
    append_int(reason, static_cast<int64_t>(unscaled.size()));
    reason += " bytes, scale ";
    append_int(reason, scale);
    return fail(reason + ")");
  }
  out_.push_back('"');
  return true;
}

}  // namespace krow::pb
