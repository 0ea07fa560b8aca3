#pragma once
// Avro schema → decode plan. The schema JSON (and, first, every schema it references) is
// parsed once into a flat vector of typed nodes that point at each other by index; the
// decoder (avro_decoder.hpp) walks that plan for every message without looking at a name
// or a string again. A named type is one node, so a reference by name, a repeated
// definition and a recursive type all become an index to the same node.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codec/schema_decoder.hpp"

namespace krow::avro {

// What a node decodes. Logical types that change the JSON form have their own op; the
// others (uuid on string, unknown or invalid logical types) keep the underlying type's op.
enum class Op : uint8_t {
  null_value,
  boolean,
  int32,
  int64,
  float32,
  float64,
  bytes,
  string,
  record,       // fields: Field[first, first + count)
  enumeration,  // symbols: Text[first, first + count)
  array,        // items: node `first`
  map,          // values: node `first`
  fixed,        // `count` bytes
  union_type,   // branches: node indices branches[first, first + count)
  decimal_bytes,   // bytes holding a two's-complement unscaled integer; `scale`
  decimal_fixed,   // the same in `count` fixed bytes
  uuid_fixed,      // fixed(16)
  date,            // int: days since 1970-01-01
  time_millis,     // int: ms since midnight
  time_micros,     // long: µs since midnight
  timestamp_millis,
  timestamp_micros,
  timestamp_nanos,
  local_timestamp_millis,
  local_timestamp_micros,
  local_timestamp_nanos,
  duration,        // fixed(12): little-endian uint32 months, days, milliseconds
};

// A range of AvroPlan::text.
struct Text {
  uint32_t offset = 0;
  uint32_t size = 0;
};

struct Node {
  Op op = Op::null_value;
  uint32_t first = 0;     // see Op: first field / symbol / branch, or the item node
  uint32_t count = 0;     // fields, symbols, branches, or the fixed size in bytes
  int32_t scale = 0;      // decimals only
  int32_t precision = 0;  // decimals only (not used to decode; read by the column planner)
  uint32_t min_size = 0;  // a lower bound of the bytes one value takes (bounds block counts)
  Text tag;               // `{"<type name>":` written before a tagged union branch
};

struct Field {
  uint32_t node = 0;
  Text key;   // `"name":`, with a leading comma for every field but the first
  Text name;  // the bare name, for error messages
};

struct AvroPlan {
  std::vector<Node> nodes;
  std::vector<Field> fields;
  std::vector<Text> symbols;      // enum symbols as JSON string literals, quotes included
  std::vector<uint32_t> branches;
  std::string text;               // every Text points here
  uint32_t root = 0;              // the node of the top-level schema

  std::string_view view(Text t) const { return {text.data() + t.offset, t.size}; }
};

// Parses `schema` and, before it, its references (recursively, each distinct document once:
// a diamond or a repeated document is parsed once, and a cycle of references does not
// loop). A named type may be defined again only with an identical definition. Unknown or
// invalid logical types fall back to the underlying type, as the Avro specification says.
// Throws std::invalid_argument with a one-line reason when a document is not valid JSON,
// not an Avro schema, names an unknown type, or is not of type Avro. Any thread may call.
AvroPlan compile_avro_plan(const ResolvedSchema& schema);

}  // namespace krow::avro
