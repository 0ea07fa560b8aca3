#pragma once
// The SchemaDecoder for Protobuf schemas (docs/row-contract.md): a payload's message-index list picks
// the message type, check_wire validates the wire data, and WirePrinter writes the JSON
// straight from the bytes. decode_reference() takes protobuf's own road instead (a
// DynamicMessage, then ReflectionPrinter): the tests and the fuzz target hold the two to
// the same output.

#include <google/protobuf/dynamic_message.h>

#include "codec/protobuf/message_plan.hpp"
#include "codec/protobuf/schema_pool.hpp"
#include "codec/schema_decoder.hpp"

namespace krow::pb {

class ProtobufDecoder final : public SchemaDecoder {
 public:
  // Compiles `schema` (see SchemaPool for how imports resolve) and plans every message
  // type. Throws std::invalid_argument with a one-line reason when the schema does not
  // compile. `schema` is only read during the call.
  explicit ProtobufDecoder(const ResolvedSchema& schema);

  // See SchemaDecoder::decode. Errors: a truncated or out-of-range message-index list,
  // malformed wire data (with its byte position in `data`), a proto3 string that is not
  // UTF-8, missing proto2 required fields, and values that have no JSON form (a Timestamp
  // out of range, an Any of a type outside the schema...). Unknown fields are skipped.
  bool decode(const uint8_t* data, size_t size, std::string& out, std::string& error) const override;

  // Same contract and output as decode(), through protobuf's parser (DynamicMessage on an
  // arena) and Reflection: about three times slower, kept as the reference decode() is
  // tested against.
  bool decode_reference(const uint8_t* data, size_t size, std::string& out, std::string& error) const;

 private:
  // Declaration order matters: plans point into the factory's prototypes, which point
  // into the pool's descriptors, so they are destroyed in that order.
  SchemaPool pool_;
  google::protobuf::DynamicMessageFactory factory_;
  MessagePlans plans_;
};

}  // namespace krow::pb
