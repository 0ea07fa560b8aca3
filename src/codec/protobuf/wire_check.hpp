#pragma once
// A pass over Protobuf wire bytes before protobuf's own parser sees them. It finds
// malformed data with its byte position, and rejects strings that are not UTF-8: protobuf
// 3.21's parser rejects a proto3 one only after logging a line to stderr (a hostile topic
// must not flood the worker's output), and no string without valid UTF-8 can be JSON.

#include <cstddef>
#include <cstdint>
#include <string>

#include "codec/protobuf/message_plan.hpp"

namespace krow::pb {

// Deepest nesting of messages and groups accepted, as protobuf's parser's default.
inline constexpr int kMaxNesting = 100;

// Checks that `data[0, size)` is well-formed wire data for `plan`'s type, whose value sits
// `depth` levels below the top-level message. Unknown fields are only skipped over;
// messages and groups are followed to the plans' types. Returns true, or false with a
// one-line reason in `error` ("invalid wire data at byte 12: ..."); byte positions are
// counted from `data` plus `offset`. Thread-safe: reads only the plans.
bool check_wire(const MessagePlans& plans, const MessagePlan& plan, const uint8_t* data, size_t size, int depth,
                size_t offset, std::string& error);

}  // namespace krow::pb
