#pragma once
// Runs an Avro decode plan (avro_schema.hpp) over one message's binary encoding and writes
// its JSON form. JSON shapes (docs/row-contract.md): records → objects with fields in schema order,
// enums → symbol strings, arrays → arrays, maps → objects, bytes and fixed → base64
// strings, long → a plain number, NaN/±infinity → "NaN"/"Infinity"/"-Infinity", decimals
// → exact decimal strings, dates, times and timestamps → ISO 8601 text (UTC ones with Z),
// uuid on fixed(16) → 8-4-4-4-12 hex, duration → {"months","days","milliseconds"}.
// Unions write the branch's plain value, or {"<branch type name>": value} with
// DecodeOptions::tagged_unions (a null branch is plain null in both modes).
//
// Hostile input never crashes nor allocates beyond the output: every read is bounded,
// lengths and block counts are checked against the bytes left before anything is written,
// nesting of records, arrays and maps stops at kMaxDepth, and bytes left after the value
// are an error. Error texts are one line: what failed, the byte offset in the payload
// (after the 5-byte framing header) and the field path, e.g.
//   string at byte 13 is not valid UTF-8 (in customer.name)

#include <cstddef>
#include <cstdint>
#include <string>

#include "codec/avro/avro_schema.hpp"
#include "codec/schema_decoder.hpp"

namespace krow::avro {

// Records, arrays and maps nested deeper than this are refused (a recursive schema could
// otherwise exhaust the stack).
inline constexpr uint32_t kMaxDepth = 512;

// Items that take no bytes at all (null, an empty record, fixed(0)) cost nothing in the
// input, so their count is bounded per message instead of by the bytes left.
inline constexpr uint64_t kMaxEmptyItems = uint64_t{1} << 20;

class AvroDecoder final : public SchemaDecoder {
 public:
  AvroDecoder(AvroPlan plan, const DecodeOptions& options);

  // See SchemaDecoder::decode. No heap allocation on success beyond growing `out`; the
  // plan is read-only, so any number of threads may decode at once.
  bool decode(const uint8_t* data, size_t size, std::string& out, std::string& error) const override;

  const AvroPlan& plan() const { return plan_; }

 private:
  AvroPlan plan_;
  bool tagged_unions_ = false;
};

}  // namespace krow::avro
