#include "codec/protobuf/message_index.hpp"

#include "util/text.hpp"

namespace krow::pb {

namespace {

// Reads one zig-zag varint of at most 10 bytes; false with `error` set when the data ends
// first or the varint runs longer.
bool read_zigzag(const uint8_t*& p, const uint8_t* end, int64_t& value, std::string& error) {
  uint64_t raw = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (p == end) {
      error = "truncated message-index list";
      return false;
    }
    const uint8_t b = *p++;
    raw |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      value = static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
      return true;
    }
  }
  error = "overlong varint in message-index list";
  return false;
}

}  // namespace

const MessagePlan* select_message(const MessagePlans& plans, const uint8_t* data, size_t size, size_t& consumed,
                                  std::string& error) {
  const uint8_t* p = data;
  const uint8_t* const end = data + size;
  int64_t count = 0;
  if (!read_zigzag(p, end, count, error)) return nullptr;
  if (count < 0 || count > kMaxMessageIndexes) {
    error = "bad message-index count ";
    append_int(error, count);
    return nullptr;
  }
  const MessagePlan* plan = nullptr;
  if (count == 0) {
    // The single byte 0x00: the first message of the file.
    if (plans.top().empty()) {
      error = "the schema defines no message";
      return nullptr;
    }
    plan = plans.top().front();
  }
  for (int64_t i = 0; i < count; ++i) {
    int64_t index = 0;
    if (!read_zigzag(p, end, index, error)) return nullptr;
    const std::vector<const MessagePlan*>& choices = plan == nullptr ? plans.top() : plan->nested;
    if (index < 0 || static_cast<uint64_t>(index) >= choices.size()) {
      error = "message index ";
      append_int(error, index);
      error += " out of range: ";
      if (plan == nullptr) {
        error += "the schema has ";
      } else {
        error += plan->descriptor->full_name() + " has ";
      }
      append_int(error, static_cast<int64_t>(choices.size()));
      error += plan == nullptr ? " top-level messages" : " nested messages";
      return nullptr;
    }
    plan = choices[static_cast<size_t>(index)];
  }
  consumed = static_cast<size_t>(p - data);
  return plan;
}

}  // namespace krow::pb
