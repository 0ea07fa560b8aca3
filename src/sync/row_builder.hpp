#pragma once
// Turns a Kafka message into a batch row: decodes key and value (codec/), renders the
// headers, and joins key and value decode errors. Knows nothing of warehouses.
//
// Thread: the reading thread.

#include <cstddef>

#include "codec/payload_decoder.hpp"
#include "kafka/message.hpp"
#include "rows/row_batch.hpp"

namespace krow {

class RowBuilder {
 public:
  // `schemas` decodes schema-framed payloads (null without a registry); it must outlive this.
  RowBuilder(const DecoderOptions& options, SchemaSource* schemas) : decoder_(options, schemas) {}

  // Appends the row of `m` to table slot `slot` of `batch` and returns it. Decoding never
  // fails: what cannot be decoded is kept raw with a decode_error. Throws only what the
  // schema source throws (a registry outage that outlasted its retries).
  const Row& add(const kafka::Message& m, RowBatch& batch, size_t slot);

 private:
  PayloadDecoder decoder_;
};

}  // namespace krow
