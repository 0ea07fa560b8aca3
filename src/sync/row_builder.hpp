#pragma once
// Turns a Kafka message into a batch row: decodes key and value (codec/), renders the
// headers, and joins key and value decode errors. Knows nothing of warehouses.
//
// Thread: the reading thread.

#include <cstddef>
#include <string>

#include "codec/payload_decoder.hpp"
#include "kafka/message.hpp"
#include "rows/row_batch.hpp"

namespace krow {

class RowBuilder {
 public:
  // `schemas` decodes schema-framed payloads (null without a registry); it must outlive this.
  RowBuilder(const DecoderOptions& options, SchemaSource* schemas) : decoder_(options, schemas) {}

  // Appends the row of `m` to table slot `slot` of `batch` and returns it. Decoding never
  // fails: what cannot be decoded is kept raw with a decode_error. A table with typed
  // columns (TableRows::typed) also gets the row's typed cells, read from the decoded value;
  // a value that does not fit its column leaves it NULL with a note in decode_error. Throws
  // only what the schema source throws (a registry outage that outlasted its retries).
  const Row& add(const kafka::Message& m, RowBatch& batch, size_t slot);

 private:
  // Appends the typed cells of `row` (the last of `table`) and its misfits' notes.
  void add_typed(TableRows& table, Row& row, std::string& arena);

  PayloadDecoder decoder_;
  rows::TypedExtractor typed_;
  std::string notes_;  // typed columns' misfits of the current row
};

}  // namespace krow
