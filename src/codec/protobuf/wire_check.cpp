#include "codec/protobuf/wire_check.hpp"

#include <cstring>
#include <limits>

#include "util/text.hpp"

namespace krow::pb {

namespace gpb = google::protobuf;

namespace {

// True when the bytes are valid UTF-8. Most strings are short and ASCII: those are settled
// eight bytes at a time before paying for the general validator's call.
bool utf8(const uint8_t* p, size_t size) {
  uint64_t high = 0;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    high |= word;
  }
  for (; i < size; ++i) high |= p[i];
  if ((high & 0x8080808080808080ull) == 0) return true;
  return is_valid_utf8(std::string_view(reinterpret_cast<const char*>(p), size));
}

class WireChecker {
 public:
  WireChecker(const MessagePlans& plans, const uint8_t* base, size_t offset, std::string& error)
      : plans_(plans), base_(base), offset_(offset), error_(error) {}

  // Checks the fields of one message (`plan` null: of unknown type) from `p` up to `end`,
  // or, when `group` is non-zero, up to the end-group tag of that field number, leaving
  // `p` just after it.
  bool message(const uint8_t*& p, const uint8_t* end, const MessagePlan* plan, int depth, uint32_t group) {
    while (p < end) {
      const uint8_t* const field_start = p;
      uint64_t tag = 0;
      if (!varint(p, end, tag)) return fail(field_start, "truncated or overlong field tag");
      // A tag is a 32-bit varint: at most 5 bytes, even when padded with zero bytes (protobuf
      // refuses longer ones, so krow does too).
      if (tag > std::numeric_limits<uint32_t>::max() || p - field_start > 5)
        return fail(field_start, "field tag out of range");
      const auto number = static_cast<uint32_t>(tag >> 3);
      const auto wire_type = static_cast<uint32_t>(tag & 7);
      if (number == 0) return fail(field_start, "field number 0");
      const FieldPlan* field = plan != nullptr ? plan->find(number) : nullptr;
      const gpb::FieldDescriptor* extension = nullptr;
      if (field == nullptr && plan != nullptr && plan->descriptor->extension_range_count() > 0) {
        extension = plans_.pool().FindExtensionByNumber(plan->descriptor, static_cast<int>(number));
      }
      switch (wire_type) {
        case 0: {
          uint64_t ignored = 0;
          if (!varint(p, end, ignored)) return fail(field_start, "truncated or overlong varint");
          break;
        }
        case 1:
          if (end - p < 8) return fail(field_start, "truncated 8-byte value");
          p += 8;
          break;
        case 5:
          if (end - p < 4) return fail(field_start, "truncated 4-byte value");
          p += 4;
          break;
        case 2: {
          uint64_t length = 0;
          const uint8_t* const length_start = p;
          if (!varint(p, end, length)) return fail(field_start, "truncated or overlong length");
          // Lengths are 32-bit sizes to protobuf: at most 5 bytes and below 2^31.
          if (p - length_start > 5 || length > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
            return fail(field_start, "length out of range");
          if (length > static_cast<uint64_t>(end - p)) return fail(field_start, "length runs past the end of the data");
          if (!length_delimited(field, extension, p, p + length, depth)) return false;
          p += length;
          break;
        }
        case 3: {
          if (depth + 1 > kMaxNesting) return fail(field_start, "messages nest deeper than 100 levels");
          const MessagePlan* inner = nullptr;
          if (field != nullptr && field->group) inner = field->message;
          if (extension != nullptr && extension->type() == gpb::FieldDescriptor::TYPE_GROUP) {
            inner = plans_.find(extension->message_type());
          }
          if (!message(p, end, inner, depth + 1, number)) return false;
          break;
        }
        case 4:
          if (group != 0 && number == group) return true;
          return fail(field_start, "unexpected end-group tag");
        default: return fail(field_start, "invalid wire type");
      }
    }
    if (group != 0) return fail(p, "group not closed");
    return true;
  }

 private:
  // A length-delimited value [p, end): strings are checked, messages are followed.
  bool length_delimited(const FieldPlan* field, const gpb::FieldDescriptor* extension, const uint8_t* p,
                        const uint8_t* end, int depth) {
    if (field != nullptr && field->packable && field->wire_type != 2) return packed(field, p, end);
    const MessagePlan* inner = nullptr;
    bool string = false;
    if (field != nullptr) {
      string = field->kind == ValueKind::string;
      if (field->kind == ValueKind::message && !field->group) inner = field->message;
    } else if (extension != nullptr) {
      string = extension->type() == gpb::FieldDescriptor::TYPE_STRING;
      if (extension->type() == gpb::FieldDescriptor::TYPE_MESSAGE) inner = plans_.find(extension->message_type());
    }
    // Every string is checked: protobuf's parser would reject a proto3 one only after
    // logging, and the JSON printer could not print a proto2 one.
    if (string) {
      if (!utf8(p, static_cast<size_t>(end - p))) {
        const std::string& name = field != nullptr ? field->field->full_name() : extension->full_name();
        return fail(p, ("string field " + name + " is not valid UTF-8").c_str());
      }
      return true;
    }
    if (inner == nullptr) return true;
    if (depth + 1 > kMaxNesting) return fail(p, "messages nest deeper than 100 levels");
    const uint8_t* q = p;
    return message(q, end, inner, depth + 1, 0);
  }

  // A packed run of a repeated scalar: whole values only, as protobuf's parser requires.
  bool packed(const FieldPlan* field, const uint8_t* p, const uint8_t* end) {
    const size_t size = static_cast<size_t>(end - p);
    if (field->wire_type == 5 && size % 4 != 0) return fail(p, "packed 4-byte values of a partial length");
    if (field->wire_type == 1 && size % 8 != 0) return fail(p, "packed 8-byte values of a partial length");
    if (field->wire_type == 0) {
      while (p < end) {
        const uint8_t* const start = p;
        uint64_t ignored = 0;
        if (!varint(p, end, ignored)) return fail(start, "truncated or overlong packed varint");
      }
    }
    return true;
  }

  // Reads a base-128 varint of at most 10 bytes, as protobuf does.
  static bool varint(const uint8_t*& p, const uint8_t* end, uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 70 && p < end; shift += 7) {
      const uint8_t b = *p++;
      value |= static_cast<uint64_t>(b & 0x7f) << shift;  // bits past 64 are dropped, as protobuf does
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }

  bool fail(const uint8_t* at, const char* what) {
    error_ = "invalid wire data at byte ";
    append_int(error_, static_cast<int64_t>(offset_ + static_cast<size_t>(at - base_)));
    error_ += ": ";
    error_ += what;
    return false;
  }

  const MessagePlans& plans_;
  const uint8_t* base_;
  size_t offset_;
  std::string& error_;
};

}  // namespace

bool check_wire(const MessagePlans& plans, const MessagePlan& plan, const uint8_t* data, size_t size, int depth,
                size_t offset, std::string& error) {
  WireChecker checker(plans, data, offset, error);
  const uint8_t* p = data;
  return checker.message(p, data + size, &plan, depth, 0);
}

}  // namespace krow::pb
