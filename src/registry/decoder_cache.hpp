#pragma once
// The SchemaSource of a sync: asks the registry once per schema ID, compiles the schema
// once into a decoder, and keeps both for the run.
// Thread: the reading thread only.

#include <chrono>
#include <map>
#include <memory>

#include "codec/schema_source.hpp"
#include "registry/schema_registry.hpp"

namespace krow {

class DecoderCache : public SchemaSource {
 public:
  // `retry_budget`: how long transient registry failures are retried before lookup() throws
  // Error(transient) (SchemaRegistry).
  DecoderCache(const RegistryConfig& config, const DecodeOptions& options,
               std::chrono::seconds retry_budget = std::chrono::seconds(300));
  Lookup lookup(SchemaId schema_id) override;
  int registry_requests() const { return registry_.requests(); }

 private:
  struct Entry {
    Lookup lookup;
    std::unique_ptr<SchemaDecoder> decoder;
  };
  SchemaRegistry registry_;
  DecodeOptions options_;
  std::map<SchemaId, Entry> entries_;
};

}  // namespace krow
