#include "codec/protobuf/wire_printer.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "codec/protobuf/decimal_text.hpp"
#include "codec/protobuf/json_numbers.hpp"
#include "codec/protobuf/wire_check.hpp"
#include "util/text.hpp"

namespace krow::pb {

namespace gpb = google::protobuf;

// Fixed-width values are read with memcpy: the wire's byte order must be the machine's.
static_assert(std::endian::native == std::endian::little, "the Protobuf wire printer reads little-endian values");

namespace {

// The bytes have passed check_wire, so these reads cannot fail on well-formed input; they
// still check their bounds, and a failure means a bug, reported as corrupt data.
bool read_varint(const uint8_t*& p, const uint8_t* end, uint64_t& value) {
  if (p < end && *p < 0x80) {
    value = *p++;
    return true;
  }
  value = 0;
  for (int shift = 0; shift < 70 && p < end; shift += 7) {
    const uint8_t b = *p++;
    value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

uint32_t load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Skips a group's fields up to its end-group tag (field `number`); `content_end` is where
// that tag starts and `p` ends just after it.
bool skip_group(const uint8_t*& p, const uint8_t* end, uint32_t number, const uint8_t*& content_end, int depth) {
  if (depth > kMaxNesting) return false;
  while (p < end) {
    const uint8_t* const tag_start = p;
    uint64_t tag = 0, v = 0;
    if (!read_varint(p, end, tag)) return false;
    switch (tag & 7) {
      case 0:
        if (!read_varint(p, end, v)) return false;
        break;
      case 1:
        if (end - p < 8) return false;
        p += 8;
        break;
      case 5:
        if (end - p < 4) return false;
        p += 4;
        break;
      case 2:
        if (!read_varint(p, end, v) || v > static_cast<uint64_t>(end - p)) return false;
        p += v;
        break;
      case 3: {
        const uint8_t* ignored = nullptr;
        if (!skip_group(p, end, static_cast<uint32_t>(tag >> 3), ignored, depth + 1)) return false;
        break;
      }
      case 4:
        if ((tag >> 3) != number) return false;
        content_end = tag_start;
        return true;
      default: return false;
    }
  }
  return false;
}

int32_t zigzag32(uint32_t n) { return static_cast<int32_t>((n >> 1) ^ (~(n & 1) + 1)); }
int64_t zigzag64(uint64_t n) { return static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1)); }

void append_quoted_int(std::string& out, int64_t v) {
  out.push_back('"');
  append_int(out, v);
  out.push_back('"');
}

void append_quoted_uint(std::string& out, uint64_t v) {
  out.push_back('"');
  append_uint(out, v);
  out.push_back('"');
}

// The value of a varint-typed field as protobuf reads it into its declared type, widened
// to 64 bits, for map keys and enum numbers.
int64_t signed_value(gpb::FieldDescriptor::Type type, uint64_t v) {
  switch (type) {
    case gpb::FieldDescriptor::TYPE_INT32:
    case gpb::FieldDescriptor::TYPE_SFIXED32:
    case gpb::FieldDescriptor::TYPE_ENUM: return static_cast<int32_t>(static_cast<uint32_t>(v));
    case gpb::FieldDescriptor::TYPE_SINT32: return zigzag32(static_cast<uint32_t>(v));
    case gpb::FieldDescriptor::TYPE_SINT64: return zigzag64(v);
    default: return static_cast<int64_t>(v);
  }
}

bool is_signed(gpb::FieldDescriptor::Type type) {
  switch (type) {
    case gpb::FieldDescriptor::TYPE_INT32:
    case gpb::FieldDescriptor::TYPE_SINT32:
    case gpb::FieldDescriptor::TYPE_SFIXED32:
    case gpb::FieldDescriptor::TYPE_INT64:
    case gpb::FieldDescriptor::TYPE_SINT64:
    case gpb::FieldDescriptor::TYPE_SFIXED64: return true;
    default: return false;
  }
}

}  // namespace

bool WirePrinter::corrupt() { return fail("internal error: wire data changed after its check"); }

bool WirePrinter::fail(std::string reason) {
  error_ = std::move(reason);
  return false;
}

bool WirePrinter::print(const uint8_t* data, size_t size, const MessagePlan& plan) {
  occ_.clear();
  links_.clear();
  spans_.clear();
  spans_.push_back({data, size});
  out_limit_ = out_.size() + kOutputFloor + kOutputFactor * size;
  const bool ok = print_message(0, 1, plan, 0);
  // A huge message leaves huge scratch behind: give it back rather than keep it per thread.
  constexpr size_t kKeep = 1 << 16;
  if (occ_.capacity() > kKeep) std::vector<Occurrence>().swap(occ_);
  if (links_.capacity() > kKeep) std::vector<uint32_t>().swap(links_);
  if (spans_.capacity() > kKeep) std::vector<Span>().swap(spans_);
  return ok;
}

bool WirePrinter::collect(size_t span_begin, size_t span_count, const MessagePlan& plan, Fields& fs) {
  fs.plan = &plan;
  fs.occ_begin = occ_.size();
  fs.link_base = links_.size();
  links_.resize(fs.link_base + 2 * plan.fields.size(), kNone);
  for (size_t s = span_begin; s < span_begin + span_count; ++s) {
    const uint8_t* p = spans_[s].data;
    const uint8_t* const end = p + spans_[s].size;
    while (p < end) {
      uint64_t tag = 0;
      if (!read_varint(p, end, tag)) return corrupt();
      const auto number = static_cast<uint32_t>(tag >> 3);
      const auto wire_type = static_cast<uint32_t>(tag & 7);
      const FieldPlan* f = plan.find(number);
      bool packed = false;
      if (f != nullptr && wire_type != f->wire_type) {
        if (f->packable && wire_type == 2) {
          packed = true;
        } else {
          f = nullptr;  // a known number with the wrong wire type: an unknown field, as for protobuf
        }
      }
      uint64_t value = 0;
      const uint8_t* data = nullptr;
      size_t size = 0;
      switch (wire_type) {
        case 0:
          if (!read_varint(p, end, value)) return corrupt();
          break;
        case 1:
          if (end - p < 8) return corrupt();
          value = load64(p);
          p += 8;
          break;
        case 5:
          if (end - p < 4) return corrupt();
          value = load32(p);
          p += 4;
          break;
        case 2:
          if (!read_varint(p, end, value) || value > static_cast<uint64_t>(end - p)) return corrupt();
          data = p;
          size = static_cast<size_t>(value);
          p += size;
          break;
        case 3: {
          data = p;
          const uint8_t* content_end = nullptr;
          if (!skip_group(p, end, number, content_end, 0)) return corrupt();
          size = static_cast<size_t>(content_end - data);
          break;
        }
        default: return corrupt();
      }
      if (f == nullptr) continue;
      // A proto2 enum keeps only numbers it names; others become unknown fields.
      if (f->closed_enum && !packed && !enum_known(*f, static_cast<int32_t>(value))) continue;
      const auto field = static_cast<uint32_t>(f - plan.fields.data());
      const auto index = static_cast<uint32_t>(occ_.size());
      occ_.push_back({value, data, size, field, kNone, packed});
      uint32_t& first = links_[fs.link_base + 2 * field];
      uint32_t& last = links_[fs.link_base + 2 * field + 1];
      if (last == kNone) {
        first = index;
      } else {
        occ_[last].next = index;
      }
      last = index;
    }
  }
  // proto2 required fields.
  if (plan.has_required) {
    for (size_t i = 0; i < plan.fields.size(); ++i) {
      if (plan.fields[i].required && head(fs, i) == kNone) {
        return fail(plan.descriptor->full_name() + " is missing required field " + plan.fields[i].field->name());
      }
    }
  }
  return true;
}

void WirePrinter::release(const Fields& fs) {
  occ_.resize(fs.occ_begin);
  links_.resize(fs.link_base);
}

bool WirePrinter::print_message(size_t span_begin, size_t span_count, const MessagePlan& plan, int depth) {
  if (depth > kMaxNesting) return fail("messages nest deeper than 100 levels");
  Fields fs{};
  bool ok = collect(span_begin, span_count, plan, fs);
  if (ok) {
    if (plan.form == MessageForm::object) {
      out_.push_back('{');
      ok = print_object(fs, true, depth);
      out_.push_back('}');
    } else {
      ok = print_special(fs, depth);
    }
  }
  release(fs);
  if (ok && out_.size() > out_limit_) return fail("JSON text would be larger than 1 MiB plus 64 times the payload");
  return ok;
}

bool WirePrinter::check_required(size_t span_begin, size_t span_count, const MessagePlan& plan, int depth) {
  if (!plan.required_inside) return true;
  if (depth > kMaxNesting) return fail("messages nest deeper than 100 levels");
  Fields fs{};
  bool ok = collect(span_begin, span_count, plan, fs);
  for (size_t i = 0; ok && i < plan.fields.size(); ++i) {
    const FieldPlan& f = plan.fields[i];
    if (f.message == nullptr || !f.message->required_inside) continue;
    if (f.is_map) {
      const MessagePlan& entry_plan = *f.message;
      const FieldPlan* value_plan = entry_plan.find(2);
      if (value_plan == nullptr || value_plan->message == nullptr) continue;
      const auto value_index = static_cast<size_t>(value_plan - entry_plan.fields.data());
      for (uint32_t k = head(fs, i); ok && k != kNone; k = occ_[k].next) {
        const size_t entry_span = spans_.size();
        spans_.push_back({occ_[k].data, occ_[k].size});
        Fields entry{};
        ok = collect(entry_span, 1, entry_plan, entry);
        const size_t value_span = spans_.size();
        for (uint32_t v = ok ? head(entry, value_index) : kNone; v != kNone; v = occ_[v].next) {
          spans_.push_back({occ_[v].data, occ_[v].size});
        }
        ok = ok && check_required(value_span, spans_.size() - value_span, *value_plan->message, depth + 2);
        release(entry);
        spans_.resize(entry_span);
      }
    } else if (f.repeated) {
      for (uint32_t k = head(fs, i); ok && k != kNone; k = occ_[k].next) {
        const size_t span = spans_.size();
        spans_.push_back({occ_[k].data, occ_[k].size});
        ok = check_required(span, 1, *f.message, depth + 1);
        spans_.resize(span);
      }
    } else if (tail(fs, i) != kNone) {
      // A oneof member counts only when it won, and only its parts after the other members.
      uint32_t after = kNone;
      if (f.oneof >= 0) {
        bool won = true;
        for (size_t j = 0; j < plan.fields.size(); ++j) {
          if (j == i || plan.fields[j].oneof != f.oneof || tail(fs, j) == kNone) continue;
          if (tail(fs, j) > tail(fs, i)) won = false;
          if (after == kNone || tail(fs, j) > after) after = tail(fs, j);
        }
        if (!won) continue;
      }
      const size_t span = spans_.size();
      for (uint32_t k = head(fs, i); k != kNone; k = occ_[k].next) {
        if (after == kNone || k > after) spans_.push_back({occ_[k].data, occ_[k].size});
      }
      ok = check_required(span, spans_.size() - span, *f.message, depth + 1);
      spans_.resize(span);
    }
  }
  release(fs);
  return ok;
}

bool WirePrinter::print_object(const Fields& fs, bool first, int depth) {
  const MessagePlan& plan = *fs.plan;
  // Each oneof's winner is the member seen last on the wire; a message member merges
  // only its parts sent after the last part of any other member.
  constexpr size_t kInlineOneofs = 8;
  uint32_t inline_best[kInlineOneofs], inline_second[kInlineOneofs];
  std::vector<uint32_t> heap_best, heap_second;
  uint32_t* best = inline_best;
  uint32_t* second = inline_second;
  const auto oneofs = static_cast<size_t>(plan.oneof_count);
  if (oneofs > kInlineOneofs) {
    heap_best.resize(oneofs);
    heap_second.resize(oneofs);
    best = heap_best.data();
    second = heap_second.data();
  }
  if (oneofs > 0) {
    std::fill(best, best + oneofs, kNone);
    std::fill(second, second + oneofs, kNone);
    for (size_t i = 0; i < plan.fields.size(); ++i) {
      const int32_t o = plan.fields[i].oneof;
      const uint32_t t = tail(fs, i);
      if (o < 0 || t == kNone) continue;
      const auto oi = static_cast<size_t>(o);
      if (best[oi] == kNone || t > best[oi]) {
        second[oi] = best[oi];
        best[oi] = t;
      } else if (second[oi] == kNone || t > second[oi]) {
        second[oi] = t;
      }
    }
  }

  for (size_t i = 0; i < plan.fields.size(); ++i) {
    const FieldPlan& f = plan.fields[i];
    const uint32_t last = tail(fs, i);
    uint32_t after = kNone;
    if (f.repeated) {
      // printed, even when empty
    } else if (f.oneof >= 0) {
      if (last == kNone || best[static_cast<size_t>(f.oneof)] != last) continue;
      after = second[static_cast<size_t>(f.oneof)];
    } else if (f.kind == ValueKind::message && last == kNone) {
      continue;
    }
    if (!first) out_.push_back(',');
    first = false;
    out_.append(f.key);
    if (f.is_map) {
      if (!print_map(fs, i, depth)) return false;
    } else if (f.repeated) {
      if (!print_array(fs, i, depth)) return false;
    } else if (f.kind == ValueKind::message) {
      if (!print_merged(fs, i, after, depth)) return false;
    } else if (last == kNone) {
      out_.append(f.default_json);
    } else {
      const Occurrence& o = occ_[last];
      print_scalar(f, o.value, o.data, o.size);
    }
  }
  return true;
}

bool WirePrinter::print_merged(const Fields& fs, size_t field, uint32_t after, int depth) {
  const size_t span_begin = spans_.size();
  for (uint32_t k = head(fs, field); k != kNone; k = occ_[k].next) {
    if (after == kNone || k > after) spans_.push_back({occ_[k].data, occ_[k].size});
  }
  const bool ok = print_message(span_begin, spans_.size() - span_begin, *fs.plan->fields[field].message, depth + 1);
  spans_.resize(span_begin);
  return ok;
}

void WirePrinter::print_scalar(const FieldPlan& f, uint64_t v, const uint8_t* data, size_t size) {
  using T = gpb::FieldDescriptor;
  switch (f.type) {
    case T::TYPE_INT32:
    case T::TYPE_SFIXED32: append_int(out_, static_cast<int32_t>(static_cast<uint32_t>(v))); return;
    case T::TYPE_SINT32: append_int(out_, zigzag32(static_cast<uint32_t>(v))); return;
    case T::TYPE_INT64:
    case T::TYPE_SFIXED64: append_quoted_int(out_, static_cast<int64_t>(v)); return;
    case T::TYPE_SINT64: append_quoted_int(out_, zigzag64(v)); return;
    case T::TYPE_UINT32:
    case T::TYPE_FIXED32: append_uint(out_, static_cast<uint32_t>(v)); return;
    case T::TYPE_UINT64:
    case T::TYPE_FIXED64: append_quoted_uint(out_, v); return;
    case T::TYPE_FLOAT: append_json_float(out_, std::bit_cast<float>(static_cast<uint32_t>(v))); return;
    case T::TYPE_DOUBLE: append_json_float(out_, std::bit_cast<double>(v)); return;
    case T::TYPE_BOOL: out_.append(v != 0 ? "true" : "false"); return;
    case T::TYPE_ENUM:
      if (f.kind == ValueKind::null_value) {
        out_.append("null");
      } else {
        print_enum(f, static_cast<int32_t>(static_cast<uint32_t>(v)));
      }
      return;
    case T::TYPE_STRING:  // its UTF-8 was checked by check_wire
      append_json_string(out_, std::string_view(reinterpret_cast<const char*>(data), size));
      return;
    case T::TYPE_BYTES:
      out_.push_back('"');
      append_base64(out_, data, size);
      out_.push_back('"');
      return;
    case T::TYPE_MESSAGE:
    case T::TYPE_GROUP: return;  // never scalars
  }
}

bool WirePrinter::enum_known(const FieldPlan& f, int32_t number) const {
  if (!f.enum_json.empty()) {
    const int64_t i = static_cast<int64_t>(number) - f.enum_min;
    return i >= 0 && i < static_cast<int64_t>(f.enum_json.size()) && !f.enum_json[static_cast<size_t>(i)].empty();
  }
  return f.field->enum_type()->FindValueByNumber(number) != nullptr;
}

void WirePrinter::print_enum(const FieldPlan& f, int32_t number) {
  if (!f.enum_json.empty()) {
    const int64_t i = static_cast<int64_t>(number) - f.enum_min;
    if (i >= 0 && i < static_cast<int64_t>(f.enum_json.size()) && !f.enum_json[static_cast<size_t>(i)].empty()) {
      out_.append(f.enum_json[static_cast<size_t>(i)]);
      return;
    }
  } else if (const gpb::EnumValueDescriptor* value = f.field->enum_type()->FindValueByNumber(number)) {
    out_.push_back('"');
    out_.append(value->name());
    out_.push_back('"');
    return;
  }
  append_int(out_, number);  // an open (proto3) enum holding a number the schema does not name
}

bool WirePrinter::print_array(const Fields& fs, size_t field, int depth) {
  const FieldPlan& f = fs.plan->fields[field];
  out_.push_back('[');
  bool first = true;
  for (uint32_t k = head(fs, field); k != kNone; k = occ_[k].next) {
    const Occurrence o = occ_[k];  // a copy: nested messages may grow occ_
    if (!o.packed) {
      if (!first) out_.push_back(',');
      first = false;
      if (f.kind == ValueKind::message) {
        const size_t span_begin = spans_.size();
        spans_.push_back({o.data, o.size});
        const bool ok = print_message(span_begin, 1, *f.message, depth + 1);
        spans_.resize(span_begin);
        if (!ok) return false;
      } else {
        print_scalar(f, o.value, o.data, o.size);
      }
      continue;
    }
    // A packed run: varints, or fixed-size values back to back.
    const uint8_t* p = o.data;
    const uint8_t* const end = o.data + o.size;
    while (p < end) {
      uint64_t v = 0;
      if (f.wire_type == 0) {
        if (!read_varint(p, end, v)) return corrupt();
        if (f.closed_enum && !enum_known(f, static_cast<int32_t>(static_cast<uint32_t>(v)))) continue;
      } else if (f.wire_type == 5) {
        if (end - p < 4) return corrupt();
        v = load32(p);
        p += 4;
      } else {
        if (end - p < 8) return corrupt();
        v = load64(p);
        p += 8;
      }
      if (!first) out_.push_back(',');
      first = false;
      print_scalar(f, v, nullptr, 0);
    }
  }
  out_.push_back(']');
  return true;
}

bool WirePrinter::print_map(const Fields& fs, size_t field, int depth) {
  const MessagePlan& entry_plan = *fs.plan->fields[field].message;
  const FieldPlan* key_plan = entry_plan.find(1);
  const FieldPlan* value_plan = entry_plan.find(2);
  if (key_plan == nullptr || value_plan == nullptr) return fail("internal error: map entry without key or value");
  const auto key_index = static_cast<size_t>(key_plan - entry_plan.fields.data());
  const auto value_index = static_cast<size_t>(value_plan - entry_plan.fields.data());
  const bool value_is_message = value_plan->kind == ValueKind::message;
  const bool signed_key = is_signed(key_plan->type);

  struct Entry {
    std::string_view text;  // string keys
    int64_t number;         // other keys, as their declared type's value (bool: 0 or 1)
    uint64_t value;         // a scalar value
    const uint8_t* data;
    size_t size;
    bool has_value;
    size_t span_begin;  // a message value's parts in spans_
    size_t span_count;
  };
  std::vector<Entry> entries;
  const size_t spans_start = spans_.size();
  for (uint32_t k = head(fs, field); k != kNone; k = occ_[k].next) {
    spans_.push_back({occ_[k].data, occ_[k].size});
    Fields entry{};
    if (!collect(spans_.size() - 1, 1, entry_plan, entry)) {
      release(entry);
      return false;
    }
    Entry e{};
    if (const uint32_t kt = tail(entry, key_index); kt != kNone) {
      const Occurrence& ko = occ_[kt];
      if (key_plan->kind == ValueKind::string) {
        e.text = std::string_view(reinterpret_cast<const char*>(ko.data), ko.size);
      } else if (key_plan->type == gpb::FieldDescriptor::TYPE_BOOL) {
        e.number = ko.value != 0 ? 1 : 0;
      } else if (signed_key) {
        e.number = signed_value(key_plan->type, ko.value);
      } else if (key_plan->type == gpb::FieldDescriptor::TYPE_UINT32 || key_plan->type == gpb::FieldDescriptor::TYPE_FIXED32) {
        e.number = static_cast<int64_t>(static_cast<uint32_t>(ko.value));
      } else {
        e.number = static_cast<int64_t>(ko.value);  // uint64: ordered by its bits below
      }
    }
    if (value_is_message) {
      e.span_begin = spans_.size();
      for (uint32_t v = head(entry, value_index); v != kNone; v = occ_[v].next) {
        spans_.push_back({occ_[v].data, occ_[v].size});
      }
      e.span_count = spans_.size() - e.span_begin;
    } else if (const uint32_t vt = tail(entry, value_index); vt != kNone) {
      e.has_value = true;
      e.value = occ_[vt].value;
      e.data = occ_[vt].data;
      e.size = occ_[vt].size;
    }
    release(entry);
    entries.push_back(e);
  }

  // Sorted by key; of equal keys the last sent wins, as in a map.
  const bool unsigned64 = key_plan->type == gpb::FieldDescriptor::TYPE_UINT64 || key_plan->type == gpb::FieldDescriptor::TYPE_FIXED64;
  auto less = [&](const Entry& a, const Entry& b) {
    if (key_plan->kind == ValueKind::string) return a.text < b.text;
    if (unsigned64) return static_cast<uint64_t>(a.number) < static_cast<uint64_t>(b.number);
    return a.number < b.number;
  };
  std::stable_sort(entries.begin(), entries.end(), less);

  out_.push_back('{');
  bool first = true;
  bool ok = true;
  for (size_t i = 0; ok && i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (i + 1 < entries.size() && !less(e, entries[i + 1])) {
      // A later entry has the same key and replaces this one, whose value protobuf still
      // requires to be complete.
      if (value_is_message) ok = check_required(e.span_begin, e.span_count, *value_plan->message, depth + 1);
      continue;
    }
    if (!first) out_.push_back(',');
    first = false;
    if (key_plan->kind == ValueKind::string) {
      append_json_string(out_, e.text);
    } else if (key_plan->type == gpb::FieldDescriptor::TYPE_BOOL) {
      out_.append(e.number != 0 ? "\"true\"" : "\"false\"");
    } else if (unsigned64) {
      append_quoted_uint(out_, static_cast<uint64_t>(e.number));
    } else {
      append_quoted_int(out_, e.number);
    }
    out_.push_back(':');
    if (value_is_message) {
      ok = print_message(e.span_begin, e.span_count, *value_plan->message, depth + 1);
    } else if (e.has_value) {
      print_scalar(*value_plan, e.value, e.data, e.size);
    } else {
      out_.append(value_plan->default_json);
    }
  }
  out_.push_back('}');
  spans_.resize(spans_start);
  return ok;
}

bool WirePrinter::print_special(const Fields& fs, int depth) {
  const MessagePlan& plan = *fs.plan;
  auto index_of = [&](const FieldPlan* f) { return static_cast<size_t>(f - plan.fields.data()); };
  // The last value of a singular scalar field, or 0 / empty when unset.
  auto last = [&](const FieldPlan* f, uint64_t& value, const uint8_t*& data, size_t& size) {
    value = 0;
    data = nullptr;
    size = 0;
    const uint32_t t = tail(fs, index_of(f));
    if (t == kNone) return;
    value = occ_[t].value;
    data = occ_[t].data;
    size = occ_[t].size;
  };
  uint64_t v1 = 0, v2 = 0;
  const uint8_t *d1 = nullptr, *d2 = nullptr;
  size_t s1 = 0, s2 = 0;
  switch (plan.form) {
    case MessageForm::object: return print_object(fs, true, depth);
    case MessageForm::timestamp:
    case MessageForm::duration: {
      last(plan.first, v1, d1, s1);
      last(plan.second, v2, d2, s2);
      const auto seconds = static_cast<int64_t>(v1);
      const auto nanos = static_cast<int32_t>(static_cast<uint32_t>(v2));
      const bool timestamp = plan.form == MessageForm::timestamp;
      if (timestamp ? append_timestamp(out_, seconds, nanos) : append_duration(out_, seconds, nanos)) return true;
      std::string reason = plan.descriptor->full_name() + " out of range (seconds ";
      append_int(reason, seconds);
      reason += ", nanos ";
      append_int(reason, nanos);
      return fail(reason + ")");
    }
    case MessageForm::field_mask: {
      FieldMaskText text;
      for (uint32_t k = head(fs, index_of(plan.first)); k != kNone; k = occ_[k].next) {
        text.add(reinterpret_cast<const char*>(occ_[k].data), occ_[k].size);
      }
      text.append_to(out_);
      return true;
    }
    case MessageForm::struct_: return print_map(fs, index_of(plan.first), depth);
    case MessageForm::list_value: return print_array(fs, index_of(plan.first), depth);
    case MessageForm::wrapper: {
      const uint32_t t = tail(fs, index_of(plan.first));
      if (t == kNone) {
        out_.append(plan.first->default_json);
      } else {
        print_scalar(*plan.first, occ_[t].value, occ_[t].data, occ_[t].size);
      }
      return true;
    }
    case MessageForm::value: {
      // The kind set last wins; a struct or list kind merges its parts sent after any
      // other kind.
      uint32_t best = kNone, second = kNone;
      size_t winner = 0;
      for (size_t i = 0; i < plan.fields.size(); ++i) {
        const uint32_t t = tail(fs, i);
        if (t == kNone) continue;
        if (best == kNone || t > best) {
          second = best;
          best = t;
          winner = i;
        } else if (second == kNone || t > second) {
          second = t;
        }
      }
      if (best == kNone) {
        out_.append("null");  // a Value with no kind set
        return true;
      }
      const FieldPlan& f = plan.fields[winner];
      if (f.kind == ValueKind::message) return print_merged(fs, winner, second, depth);
      print_scalar(f, occ_[best].value, occ_[best].data, occ_[best].size);
      return true;
    }
    case MessageForm::any: return print_any(fs, depth);
    case MessageForm::decimal: {
      last(plan.first, v1, d1, s1);
      last(plan.second, v2, d2, s2);
      const auto scale = static_cast<int32_t>(static_cast<uint32_t>(v2));
      out_.push_back('"');
      if (!append_decimal(out_, d1, s1, scale)) {
        std::string reason = "confluent.type.Decimal out of range (";
        append_int(reason, static_cast<int64_t>(s1));
        reason += " bytes, scale ";
        append_int(reason, scale);
        return fail(reason + ")");
      }
      out_.push_back('"');
      return true;
    }
  }
  return fail("internal error: unknown message form");
}

bool WirePrinter::print_any(const Fields& fs, int depth) {
  if (depth + 1 > kMaxNesting) return fail("messages nest deeper than 100 levels");
  const MessagePlan& plan = *fs.plan;
  const uint32_t url_at = tail(fs, static_cast<size_t>(plan.first - plan.fields.data()));
  const uint32_t value_at = tail(fs, static_cast<size_t>(plan.second - plan.fields.data()));
  const std::string_view url =
      url_at == kNone ? std::string_view() : std::string_view(reinterpret_cast<const char*>(occ_[url_at].data), occ_[url_at].size);
  const uint8_t* value = value_at == kNone ? nullptr : occ_[value_at].data;
  const size_t value_size = value_at == kNone ? 0 : occ_[value_at].size;
  if (url.empty()) {
    if (value_size != 0) return fail("google.protobuf.Any holds a value but no type URL");
    out_.append("{}");
    return true;
  }
  // The type's full name follows the URL's last slash ("type.googleapis.com/pkg.Msg").
  const size_t slash = url.rfind('/');
  const std::string_view type_name = slash == std::string_view::npos ? url : url.substr(slash + 1);
  const MessagePlan* inner = plans_.find(type_name);
  if (inner == nullptr) {
    // The name comes from the payload: quoted and escaped, so the reason stays one line.
    std::string reason = "google.protobuf.Any holds type ";
    append_json_string(reason, type_name);
    return fail(reason + ", which the schema does not define");
  }
  std::string reason;
  if (!check_wire(plans_, *inner, value, value_size, depth + 1, 0, reason)) {
    return fail("google.protobuf.Any value of type " + inner->descriptor->full_name() + ": " + reason);
  }
  out_.append("{\"@type\":");
  append_json_string(out_, url);
  const size_t span_begin = spans_.size();
  spans_.push_back({value, value_size});
  bool ok;
  if (inner->form == MessageForm::object) {
    Fields inner_fields{};
    ok = collect(span_begin, 1, *inner, inner_fields) && print_object(inner_fields, false, depth + 1);
    release(inner_fields);
  } else {
    out_.append(",\"value\":");
    ok = print_message(span_begin, 1, *inner, depth + 1);
  }
  spans_.resize(span_begin);
  out_.push_back('}');
  return ok;
}

}  // namespace krow::pb
