#pragma once
// Prints Protobuf wire bytes as JSON (docs/row-contract.md) straight from the bytes, with the
// message plans, without building a protobuf message: the decoder's fast path.
//
// The JSON: field names as written in the .proto, in declaration order; fields without
// presence always present, with their default value when unset (proto2 declared defaults
// included); unset message fields, oneof members and proto3 optional fields absent;
// repeated fields as arrays and maps as objects, present when empty; 64-bit integers as
// strings of their digits; floats as their shortest text, NaN and infinities as strings;
// bytes as base64; enums by name, or by number when the schema does not name it; map
// entries sorted by key; well-known types in their proto3 JSON form; confluent.type.Decimal
// as an exact decimal string.
//
// Wire semantics are protobuf's: the last value of a singular field wins; a message field
// sent several times is the merge of its parts; the last member of a oneof on the wire
// wins; repeated scalars are accepted packed and unpacked; a proto2 enum drops numbers it
// does not name; a map keeps the last entry of a key; unknown fields are skipped.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/protobuf/message_plan.hpp"

namespace krow::pb {

// One value of a known field, in wire order.
struct WireOccurrence {
  uint64_t value;       // varint, fixed32 or fixed64 value
  const uint8_t* data;  // length-delimited value, or a group's content
  size_t size;
  uint32_t field;       // index in the plan's fields
  uint32_t next;        // next occurrence of the same field, or none
  bool packed;          // a packed run of a repeated scalar
};

// A byte range holding (part of) a message.
struct WireSpan {
  const uint8_t* data;
  size_t size;
};

// WirePrinter's working memory, kept between calls so that decoding allocates nothing
// once warm. One per thread.
struct WireScratch {
  std::vector<WireOccurrence> occurrences;
  std::vector<uint32_t> links;
  std::vector<WireSpan> spans;
};

// Longest JSON text a payload may produce: kOutputFloor plus kOutputFactor times its size.
// Defaults make output larger than input (an empty nested message prints all its fields),
// and a hostile payload of many empty messages must not grow the text without bound.
inline constexpr size_t kOutputFloor = size_t{1} << 20;
inline constexpr size_t kOutputFactor = 64;

class WirePrinter {
 public:
  // `out` receives the JSON text and `error` a one-line reason on failure; `scratch` is
  // working memory. All are the caller's, and must not be shared with another thread
  // during the call.
  WirePrinter(const MessagePlans& plans, WireScratch& scratch, std::string& out, std::string& error)
      : plans_(plans), out_(out), error_(error), occ_(scratch.occurrences), links_(scratch.links), spans_(scratch.spans) {}

  // Appends the JSON form of the message of `plan`'s type held in `data[0, size)`, which
  // must have passed check_wire for that plan. Returns false with `error` set when a
  // proto2 required field is missing, a value has no JSON form (a Timestamp out of range,
  // an Any of a type outside the schema, a Decimal beyond its bounds...) or the text would
  // outgrow the kOutputFloor / kOutputFactor bound; `out` then holds partial text.
  bool print(const uint8_t* data, size_t size, const MessagePlan& plan);

 private:
  static constexpr uint32_t kNone = 0xffffffffu;
  using Occurrence = WireOccurrence;
  using Span = WireSpan;

  // A message's collected fields: its occurrences from occ_[occ_begin], and for field i
  // its first and last occurrence at links_[link_base + 2i] and [link_base + 2i + 1].
  struct Fields {
    const MessagePlan* plan;
    size_t occ_begin;
    size_t link_base;
  };

  bool print_message(size_t span_begin, size_t span_count, const MessagePlan& plan, int depth);
  // Checks, without printing, that a message holds its required fields at every depth, as
  // protobuf does for map entries a later entry of the same key replaces.
  bool check_required(size_t span_begin, size_t span_count, const MessagePlan& plan, int depth);
  bool collect(size_t span_begin, size_t span_count, const MessagePlan& plan, Fields& fields);
  void release(const Fields& fields);
  uint32_t head(const Fields& fs, size_t field) const { return links_[fs.link_base + 2 * field]; }
  uint32_t tail(const Fields& fs, size_t field) const { return links_[fs.link_base + 2 * field + 1]; }
  bool print_object(const Fields& fs, bool first, int depth);
  // Merges the occurrences of a message field that come after occurrence `after` (kNone:
  // all of them) and prints the result.
  bool print_merged(const Fields& fs, size_t field, uint32_t after, int depth);
  void print_scalar(const FieldPlan& f, uint64_t value, const uint8_t* data, size_t size);
  bool print_array(const Fields& fs, size_t field, int depth);
  bool print_map(const Fields& fs, size_t field, int depth);
  void print_enum(const FieldPlan& f, int32_t number);
  bool enum_known(const FieldPlan& f, int32_t number) const;
  bool print_special(const Fields& fs, int depth);
  bool print_any(const Fields& fs, int depth);
  bool corrupt();
  bool fail(std::string reason);

  const MessagePlans& plans_;
  std::string& out_;
  std::string& error_;
  size_t out_limit_ = 0;  // out_.size() must stay at most this
  // Stack-like: indexes, never pointers or references, are kept across nested calls,
  // which may grow the vectors.
  std::vector<Occurrence>& occ_;
  std::vector<uint32_t>& links_;
  std::vector<Span>& spans_;
};

}  // namespace krow::pb
