#pragma once
// Confluent's message-index list: which message of the schema's file a Protobuf payload
// holds. It starts the payload (after the 5-byte framing header): a count, then that many
// indexes, all zig-zag varints. A count of 0 (the single byte 0x00) stands for [0], the
// file's first message. The first index picks a top-level message, each later one a
// nested message of the previous.

#include <cstddef>
#include <cstdint>
#include <string>

#include "codec/protobuf/message_plan.hpp"

namespace krow::pb {

// Longest index list accepted: deeper than any real schema nests its messages.
inline constexpr int64_t kMaxMessageIndexes = 100;

// Reads the index list at the start of `data[0, size)` and returns the plan of the message
// it selects, with `consumed` set to the list's length in bytes; or returns null with a
// one-line reason in `error` (truncated list, bad count, index out of range). Thread-safe.
const MessagePlan* select_message(const MessagePlans& plans, const uint8_t* data, size_t size, size_t& consumed,
                                  std::string& error);

}  // namespace krow::pb
