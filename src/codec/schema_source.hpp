#pragma once
// Where the payload decoder gets the compiled decoder for a schema ID. Implemented by the
// registry side (registry/decoder_cache), injected into the codec, so that the codec stays
// pure and testable with a fake source.

#include <cstdint>
#include <string>

#include "codec/format.hpp"
#include "codec/schema_decoder.hpp"
#include "util/ids.hpp"

namespace krow {

class SchemaSource {
 public:
  enum class Status {
    ready,      // `decoder` decodes this ID
    unknown,    // the registry does not know the ID: the bytes were not framed after all
    unusable,   // definitive failure (unauthorized, unsupported or invalid schema): `reason`
  };
  struct Lookup {
    Status status = Status::unknown;
    const SchemaDecoder* decoder = nullptr;  // owned by the source; valid for its lifetime
    Format format = Format::none;            // avro, protobuf or json_schema
    std::string reason;
  };

  virtual ~SchemaSource() = default;
  // Transient registry failures are retried inside; when they outlast the retry budget this
  // throws Error(transient), so the sync stops instead of writing error rows.
  virtual Lookup lookup(SchemaId schema_id) = 0;
};

}  // namespace krow
