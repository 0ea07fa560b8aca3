#pragma once
// The output of decoding one key or one value. Text lives in a caller-owned arena (a
// std::string that grows per batch); a Slice names a range of it, so no per-message heap
// allocation is needed.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "codec/format.hpp"
#include "util/ids.hpp"

namespace krow {

struct Slice {
  size_t offset = 0;
  size_t size = 0;
  bool present = false;  // false means SQL NULL

  std::string_view view(const std::string& arena) const {
    return {arena.data() + offset, size};
  }
};

// Records what `arena` gained since `start` as a present slice.
inline Slice slice_since(const std::string& arena, size_t start) {
  return Slice{start, arena.size() - start, true};
}

struct Decoded {
  Format format = Format::none;
  std::optional<SchemaId> schema_id;  // registry schema ID, when schema-encoded
  Slice text;             // key: exact text, JSON, or base64; value: JSON text
  Slice base64;           // value only: the raw bytes when they could not be decoded
  Slice error;            // why decoding failed or what was noticed; NULL when all is well
};

}  // namespace krow
