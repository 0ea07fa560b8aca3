#pragma once
// What the decoder knows about each message type ahead of time: its prototype, the JSON
// key and value kind of every field, its special JSON form (well-known types, Confluent's
// Decimal), its nested messages as the message-index list counts them, and a field lookup
// by number for the wire check. Built once per compiled schema, read-only afterwards, so
// any number of threads may read it.

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace krow::pb {

// How one value is printed.
enum class ValueKind : uint8_t {
  int32,        // JSON number
  int64,        // JSON string of the exact digits
  uint32,       // JSON number
  uint64,       // JSON string of the exact digits
  float32,      // JSON number; "NaN", "Infinity", "-Infinity" as strings
  float64,      // same
  boolean,      // true / false
  enumeration,  // the value's name, or its number when the schema does not name it
  null_value,   // google.protobuf.NullValue: null
  string,       // JSON string
  bytes,        // JSON string, base64 (RFC 4648, padded)
  message,      // the message's JSON form
};

// How a whole message is printed.
enum class MessageForm : uint8_t {
  object,      // {"field": value, ...}
  timestamp,   // "1972-01-01T10:00:20.021Z"
  duration,    // "1.000340012s"
  field_mask,  // "fooBar,baz.quxQuux"
  struct_,     // JSON object of its values
  value,       // the JSON value it holds
  list_value,  // JSON array
  any,         // {"@type": url, fields...} or {"@type": url, "value": special form}
  wrapper,     // the wrapped value (google.protobuf.Int64Value and the like)
  decimal,     // confluent.type.Decimal: "-123.45"
};

struct MessagePlan;

struct FieldPlan {
  const google::protobuf::FieldDescriptor* field = nullptr;
  std::string key;                       // "\"name\":", the name as written in the .proto
  ValueKind kind = ValueKind::int32;
  google::protobuf::FieldDescriptor::Type type{};  // the declared wire type (int32, sint32, fixed32...)
  uint8_t wire_type = 0;                 // the wire type its values are sent with (unpacked)
  bool repeated = false;                 // repeated or map: printed as [] or {} when empty
  bool is_map = false;
  bool packable = false;                 // repeated scalar: also accepted packed (wire type 2)
  bool always_printed = false;           // no presence (not a message, not in a oneof): printed when unset
  bool required = false;                 // proto2 required: a message without it does not decode
  bool closed_enum = false;              // proto2 enum: numbers it does not name are dropped, as protobuf does
  bool strict_utf8 = false;              // proto3 string: valid UTF-8 by construction (proto2 defaults
                                         // from the .proto text may hold any bytes)
  bool group = false;                    // proto2 group: sent between start- and end-group tags
  int32_t oneof = -1;                    // index of the containing oneof (proto3 optional included), or -1
  int32_t enum_min = 0;                  // enum_json[i] is the quoted name of number enum_min + i
  std::vector<std::string> enum_json;    // empty when the enum's numbers are too sparse for a table
  std::string default_json;              // singular non-message fields: the unset value's JSON
  const MessagePlan* message = nullptr;  // message fields: the type's plan; maps: the entry's plan
};

struct MessagePlan {
  const google::protobuf::Descriptor* descriptor = nullptr;
  const google::protobuf::Message* prototype = nullptr;  // owned by the decoder's factory
  MessageForm form = MessageForm::object;
  std::vector<FieldPlan> fields;                // declaration order
  int32_t oneof_count = 0;                      // oneofs, proto3 optional's synthetic ones included
  bool has_required = false;                    // some field is proto2 required
  bool required_inside = false;                 // has_required, here or in a message it may hold
  std::vector<const MessagePlan*> nested;       // nested types as the message-index list counts
                                                // them: all, map entries included
  const FieldPlan* first = nullptr;             // special forms: seconds, value, type_url, paths,
  const FieldPlan* second = nullptr;            // fields, values; nanos, value (Any), scale
  std::vector<int32_t> dense_numbers;           // field number -> index in `fields`, -1 = none
  std::vector<std::pair<int32_t, int32_t>> sparse_numbers;  // (number, index), sorted, when numbers are sparse

  // The field with this number, or null (unknown fields and extensions).
  const FieldPlan* find(uint32_t number) const {
    if (number < dense_numbers.size()) {
      const int32_t i = dense_numbers[number];
      return i < 0 ? nullptr : &fields[static_cast<size_t>(i)];
    }
    return sparse_numbers.empty() ? nullptr : find_sparse(number);
  }
  const FieldPlan* find_sparse(uint32_t number) const;
};

class MessagePlans {
 public:
  // Plans every message type of `root`, of the files it imports (transitively) and of the
  // well-known-type files of `pool`; prototypes come from `factory`, which must outlive
  // the plans. Not thread-safe while building; read-only and thread-safe afterwards.
  MessagePlans(const google::protobuf::DescriptorPool& pool, const google::protobuf::FileDescriptor& root,
               google::protobuf::DynamicMessageFactory& factory);

  // The plan of a type, or null when it is not in the pool.
  const MessagePlan* find(const google::protobuf::Descriptor* descriptor) const;
  // The plan of a type by its full name ("google.protobuf.Timestamp"), or null.
  const MessagePlan* find(std::string_view full_name) const;
  // The root file's top-level messages, in declaration order: the first message index.
  const std::vector<const MessagePlan*>& top() const { return top_; }
  const google::protobuf::DescriptorPool& pool() const { return pool_; }

 private:
  void add_file(const google::protobuf::FileDescriptor* file);
  MessagePlan& add_message(const google::protobuf::Descriptor* descriptor, google::protobuf::DynamicMessageFactory& factory);
  void fill(MessagePlan& plan);

  const google::protobuf::DescriptorPool& pool_;
  std::deque<MessagePlan> plans_;  // a deque: plans point at each other, addresses must stay
  std::unordered_map<const google::protobuf::Descriptor*, MessagePlan*> by_descriptor_;
  std::vector<const google::protobuf::FileDescriptor*> files_;
  std::vector<const MessagePlan*> top_;
};

}  // namespace krow::pb
