#pragma once
// A decoder compiled once from one registry schema (and the schemas it references), then
// used for every message framed with that schema's ID. Pure: no I/O, no registry access;
// the registry client resolves references before compiling.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace krow {

enum class SchemaType { avro, protobuf, json };

// A schema and, recursively, the schemas it references, as the registry returned them.
// `name` is the reference name: for Protobuf the import path, for Avro the referenced
// subject's (informational; named types are found by their full names), for JSON Schema
// the $ref URI.
struct ResolvedSchema {
  SchemaType type = SchemaType::avro;
  int32_t id = 0;                     // registry schema ID (0 for references fetched by subject/version)
  std::string text;                   // the schema document
  struct Reference {
    std::string name;
    std::shared_ptr<const ResolvedSchema> schema;  // shared: diamonds resolve once
  };
  std::vector<Reference> references;
};

struct DecodeOptions {
  // Avro unions: false writes the branch's plain value; true writes {"<branch type>": value}.
  bool tagged_unions = false;
};

class SchemaDecoder {
 public:
  virtual ~SchemaDecoder() = default;

  // Decodes one message: `data` is the payload after the 5-byte framing header (for
  // Protobuf it starts with the message-index list). Appends JSON text to `out` and returns
  // true, or returns false with a one-line reason in `error` (`out` may then hold partial
  // text; the caller truncates it). Safe to call from several threads at once.
  virtual bool decode(const uint8_t* data, size_t size, std::string& out, std::string& error) const = 0;
};

// Compile errors (an invalid or unsupported schema) throw std::invalid_argument with a
// one-line reason.
std::unique_ptr<SchemaDecoder> compile_avro(const ResolvedSchema& schema, const DecodeOptions& options);
std::unique_ptr<SchemaDecoder> compile_protobuf(const ResolvedSchema& schema, const DecodeOptions& options);
std::unique_ptr<SchemaDecoder> compile_json_schema(const ResolvedSchema& schema, const DecodeOptions& options);

}  // namespace krow
