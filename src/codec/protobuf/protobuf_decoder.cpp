#include "codec/protobuf/protobuf_decoder.hpp"

#include <google/protobuf/arena.h>

#include <cstddef>
#include <limits>

#include "codec/protobuf/message_index.hpp"
#include "codec/protobuf/reflection_printer.hpp"
#include "codec/protobuf/wire_check.hpp"
#include "codec/protobuf/wire_printer.hpp"

namespace krow::pb {

namespace gpb = google::protobuf;

namespace {

// The first block of each reference decode's arena lives on the stack: a message of a few
// hundred bytes is parsed without touching the heap's allocator for its fields.
constexpr size_t kArenaStackBytes = 8192;

// Selects the message type and checks the wire data: the common start of both roads.
const MessagePlan* select_and_check(const MessagePlans& plans, const uint8_t* data, size_t size, size_t& body_offset,
                                    std::string& error) {
  const MessagePlan* plan = select_message(plans, data, size, body_offset, error);
  if (plan == nullptr) return nullptr;
  if (size - body_offset > static_cast<size_t>(std::numeric_limits<int>::max())) {
    error = "message too large for protobuf (over 2 GiB)";
    return nullptr;
  }
  if (!check_wire(plans, *plan, data + body_offset, size - body_offset, 0, body_offset, error)) return nullptr;
  return plan;
}

}  // namespace

ProtobufDecoder::ProtobufDecoder(const ResolvedSchema& schema)
    : pool_(schema), factory_(&pool_.pool()), plans_(pool_.pool(), pool_.root(), factory_) {}

bool ProtobufDecoder::decode(const uint8_t* data, size_t size, std::string& out, std::string& error) const {
  size_t body = 0;
  const MessagePlan* plan = select_and_check(plans_, data, size, body, error);
  if (plan == nullptr) return false;
  thread_local WireScratch scratch;
  WirePrinter printer(plans_, scratch, out, error);
  return printer.print(data + body, size - body, *plan);
}

bool ProtobufDecoder::decode_reference(const uint8_t* data, size_t size, std::string& out, std::string& error) const {
  size_t body = 0;
  const MessagePlan* plan = select_and_check(plans_, data, size, body, error);
  if (plan == nullptr) return false;
  alignas(std::max_align_t) char first_block[kArenaStackBytes];
  gpb::ArenaOptions arena_options;
  arena_options.initial_block = first_block;
  arena_options.initial_block_size = sizeof first_block;
  gpb::Arena arena(arena_options);
  gpb::Message* message = plan->prototype->New(&arena);
  if (!message->ParsePartialFromArray(data + body, static_cast<int>(size - body))) {
    error = "invalid wire data for " + plan->descriptor->full_name();
    return false;
  }
  if (!message->IsInitialized()) {
    error = plan->descriptor->full_name() + " is missing required fields: " + message->InitializationErrorString();
    return false;
  }
  ReflectionPrinter printer(plans_, arena, out, error);
  const size_t start = out.size();
  if (!printer.print(*message, *plan, 0)) return false;
  if (out.size() - start > kOutputFloor + kOutputFactor * (size - body)) {
    error = "JSON text would be larger than 1 MiB plus 64 times the payload";
    return false;
  }
  return true;
}

}  // namespace krow::pb

namespace krow {

std::unique_ptr<SchemaDecoder> compile_protobuf(const ResolvedSchema& schema, const DecodeOptions& /*options*/) {
  return std::make_unique<pb::ProtobufDecoder>(schema);
}

}  // namespace krow
