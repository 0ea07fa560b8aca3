#include "registry/decoder_cache.hpp"

#include <stdexcept>

namespace krow {

DecoderCache::DecoderCache(const RegistryConfig& config, const DecodeOptions& options,
                           std::chrono::seconds retry_budget)
    : registry_(config, retry_budget), options_(options) {}

SchemaSource::Lookup DecoderCache::lookup(SchemaId schema_id) {
  if (auto it = entries_.find(schema_id); it != entries_.end()) return it->second.lookup;
  const auto answer = registry_.by_id(schema_id.value());  // throws Error(transient) when retries run out
  Entry e;
  if (answer.outcome == SchemaRegistry::Outcome::not_found) {
    e.lookup.status = Status::unknown;
    e.lookup.reason = answer.reason;
  } else if (answer.outcome == SchemaRegistry::Outcome::refused) {
    e.lookup.status = Status::unusable;
    e.lookup.reason = answer.reason;
  } else {
    const auto& schema = *answer.schema;
    try {
      switch (schema.type) {
        case SchemaType::avro:
          e.decoder = compile_avro(schema, options_);
          e.lookup.format = Format::avro;
          break;
        case SchemaType::protobuf:
          e.decoder = compile_protobuf(schema, options_);
          e.lookup.format = Format::protobuf;
          break;
        case SchemaType::json:
          e.decoder = compile_json_schema(schema, options_);
          e.lookup.format = Format::json_schema;
          break;
      }
      e.lookup.status = Status::ready;
      e.lookup.decoder = e.decoder.get();
    } catch (const std::exception& ex) {
      e.lookup.status = Status::unusable;
      e.lookup.reason = "schema ID " + std::to_string(schema_id.value()) + " cannot be used: " + ex.what();
      if (!answer.loop_cut.empty()) e.lookup.reason += "; " + answer.loop_cut;
    }
  }
  return entries_.emplace(schema_id, std::move(e)).first->second.lookup;
}

}  // namespace krow
