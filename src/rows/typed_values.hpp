#pragma once
// Typed columns' values (`columns: from_schema`): each planned column (columns/) read out of
// a row's decoded value JSON, checked against its type and stored compactly, one TypedCell
// per row and column. A value that does not fit its column (wrong JSON type, out of range,
// unparseable text) leaves the cell NULL and becomes a note for the row's decode_error; the
// row itself is kept whole (its `value` JSON still holds everything).
//
// Thread: a TypedExtractor is used by one thread at a time; layouts are shared read-only.

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "columns/column_spec.hpp"

namespace krow::rows {

// Decimals up to 38 digits (GCC and Clang's 128-bit integers; __extension__: not ISO C++).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

// How a table's values meet its typed columns (its column contract, `contract:`).
struct ValuePolicy {
  // Converted first where nothing is lost, rather than a misfit: a string of a number into a
  // number column, a number or boolean into text (its JSON text), "true"/"false" (and 0/1)
  // into a boolean, a number into a decimal, a date alone into a timestamp (its midnight, UTC).
  bool coerce = false;
  // "" is NULL in every typed column (no note), rather than "" in text and a misfit elsewhere.
  bool empty_as_null = false;
};

// The typed columns of one table, in plan order, and their paths as a tree, so that one pass
// over a value fills them all.
struct TypedLayout {
  explicit TypedLayout(std::vector<columns::ColumnSpec> columns, std::vector<std::string> labels = {},
                       ValuePolicy policy = {});

  const std::vector<columns::ColumnSpec> columns;
  // Per column: its type as the warehouse names it ("DECIMAL(12,2)"), for decode_error notes.
  const std::vector<std::string> labels;
  const ValuePolicy policy;

  // One field name of the paths; node 0 is the value's root.
  struct Node {
    std::vector<std::pair<std::string, uint32_t>> children;  // field name → node, sorted by name
    std::vector<uint32_t> columns;                           // the columns whose path ends here
  };
  // The paths of the columns that are filled (retired ones are not).
  std::vector<Node> tree;
};

// One typed value. What `a` and `b` hold depends on the column's type:
//   boolean: a = 0 or 1; int32, int64: a; uint64: a's bits; float32, float64: a's bits as a
//   double; decimal: the unscaled value, a the low and b the high 64 bits (two's
//   complement); date: days since 1970-01-01; time: microseconds since midnight;
//   timestamp: microseconds since 1970-01-01T00:00:00Z; text, bytes, json: the text's
//   offset (a) and size (b) in the batch's arena.
struct TypedCell {
  int64_t a = 0;
  int64_t b = 0;
  bool present = false;  // false: NULL

  double real() const {
    double d;
    std::memcpy(&d, &a, sizeof d);
    return d;
  }
  uint64_t unsigned_value() const { return static_cast<uint64_t>(a); }
  Int128 decimal() const {
    return static_cast<Int128>(static_cast<UInt128>(static_cast<uint64_t>(b)) << 64 |
                               static_cast<uint64_t>(a));
  }
  std::string_view text(const std::string& arena) const {
    return {arena.data() + a, static_cast<size_t>(b)};
  }
};

// Parses a decimal string ("-1234.50") as the unscaled integer of DECIMAL(precision, scale).
// False when it is no decimal, has more fractional digits than `scale` (other than trailing
// zeros) or more integer digits than precision - scale.
bool parse_decimal(std::string_view text, int32_t precision, int32_t scale, Int128& out);
// "YYYY-MM-DD" → days since 1970-01-01.
bool parse_date(std::string_view text, int64_t& days);
// "HH:MM:SS[.fraction][Z|±HH:MM]" → microseconds since midnight (digits past microseconds are
// cut); a time with a zone becomes that moment's time of day in UTC ("13:45:00+02:00" →
// 11:45), one without is kept as it is.
bool parse_time(std::string_view text, int64_t& micros);
// ISO 8601 / RFC 3339 "YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM]" → microseconds since the
// epoch (UTC; no zone is read as UTC, as Avro's local-timestamp values are by convention).
bool parse_timestamp(std::string_view text, int64_t& micros);

class TypedExtractor {
 public:
  TypedExtractor();
  ~TypedExtractor();
  TypedExtractor(const TypedExtractor&) = delete;
  TypedExtractor& operator=(const TypedExtractor&) = delete;

  // Fills `cells` (one per column of `layout`) from `json`, one value's JSON text. Text
  // values are appended to `arena` (which may hold `json` itself: it is copied first). Each
  // misfit leaves its cell NULL and appends a note to `notes` ("column amount
  // (DECIMAL(12,2)): got \"abc\""), notes separated by "; ". A missing field or a JSON null
  // is NULL without a note; when a field occurs twice, the first counts. Any JSON number is
  // read, integers beyond 64 bits too (a misfit for integer columns, kept exactly in JSON
  // ones). Allocates nothing once its buffers have grown, except for notes. Never throws for
  // any input.
  void extract(std::string_view json, const TypedLayout& layout, TypedCell* cells,
               std::string& arena, std::string& notes);

 private:
  struct State;  // simdjson's On Demand parsers and buffers
  std::unique_ptr<State> state_;
};

}  // namespace krow::rows
