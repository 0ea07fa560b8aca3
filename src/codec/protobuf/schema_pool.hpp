#pragma once
// Builds the descriptors of one registry schema: its .proto text, the files it imports
// (the schema's references, recursively) and the built-in files no registry sends.

#include <google/protobuf/descriptor.h>

#include <memory>

#include "codec/schema_decoder.hpp"

namespace krow::pb {

class SchemaPool {
 public:
  // Parses `schema.text` and every file it imports, and links them into a pool of their
  // own. An import path is looked up, in order: google/protobuf/*.proto in the linked
  // libprotobuf; the importing schema's own references by `name`; any reference of the
  // whole tree by `name` (a file referenced twice, a diamond, is built once); the built-in
  // confluent/meta.proto and confluent/type/decimal.proto. Nothing is read from disk.
  //
  // Throws std::invalid_argument with a one-line reason: a syntax error as
  // "<file>:<line>:<column>: <parser message>", a link error as "<file>: <element>: <message>",
  // a missing import, an import cycle. `schema` is only read during the call.
  explicit SchemaPool(const ResolvedSchema& schema);

  // The pool that owns every descriptor; lookups are thread-safe.
  const google::protobuf::DescriptorPool& pool() const { return *pool_; }
  // The registry schema's own file, whose messages the message-index list selects.
  const google::protobuf::FileDescriptor& root() const { return *root_; }

 private:
  std::unique_ptr<google::protobuf::DescriptorPool> pool_;
  const google::protobuf::FileDescriptor* root_ = nullptr;
};

}  // namespace krow::pb
