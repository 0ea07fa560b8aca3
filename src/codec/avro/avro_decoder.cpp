#include "codec/avro/avro_decoder.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "codec/avro/avro_format.hpp"
#include "codec/avro/output_cursor.hpp"
#include "util/text.hpp"

namespace krow::avro {

static_assert(std::endian::native == std::endian::little,
              "float, double and duration reads assume a little-endian host");

namespace {

// One decode: the cursor over the payload, the output, and the error once one happens.
// Every read function returns false after recording the error; callers return at once.
class Run {
 public:
  // JSON is usually about twice the size of the Avro payload: the first estimate.
  Run(const AvroPlan& plan, bool tagged, const uint8_t* data, size_t size, std::string& out)
      : plan_(plan), nodes_(plan.nodes.data()), tagged_(tagged), begin_(data), p_(data), end_(data + size),
        out_(out, 2 * size + 64) {}

  bool value(uint32_t index, uint32_t depth) {
    const Node& n = nodes_[index];
    switch (n.op) {
      case Op::null_value:
        out_.put("null", 4);
        return true;
      case Op::boolean: {
        if (p_ == end_) return truncated("boolean", p_);
        const uint8_t b = *p_;
        if (b > 1) return fail(p_, "boolean", "is ", b, ", neither 0 nor 1");
        ++p_;
        if (b) {
          out_.put("true", 4);
        } else {
          out_.put("false", 5);
        }
        return true;
      }
      case Op::int32: {
        int32_t v = 0;
        if (!read_int(v, "int")) return false;
        out_.put_int(v);
        return true;
      }
      case Op::int64: {
        int64_t v = 0;
        if (!read_long(v, "long")) return false;
        out_.put_int(v);
        return true;
      }
      case Op::float32: {
        float v = 0;
        if (!read_raw(&v, 4, "float")) return false;
        out_.reserve(kMaxFloatingChars);
        out_.advance(write_float(out_.pos(), v));
        return true;
      }
      case Op::float64: {
        double v = 0;
        if (!read_raw(&v, 8, "double")) return false;
        out_.reserve(kMaxFloatingChars);
        out_.advance(write_double(out_.pos(), v));
        return true;
      }
      case Op::bytes: {
        const uint8_t* at = nullptr;
        size_t len = 0;
        if (!read_length(at, len, "bytes")) return false;
        base64(at, len);
        return true;
      }
      case Op::string: {
        const uint8_t* at = nullptr;
        size_t len = 0;
        if (!read_length(at, len, "string")) return false;
        return string(at, len, "string");
      }
      case Op::record:
        return record(n, depth);
      case Op::enumeration: {
        const uint8_t* start = p_;
        int32_t i = 0;
        if (!read_int(i, "enum index")) return false;
        if (i < 0 || static_cast<uint32_t>(i) >= n.count) {
          return fail(start, "enum index", "is ", i, ", out of range for ", n.count, " symbols");
        }
        const std::string_view s = plan_.view(plan_.symbols[n.first + static_cast<uint32_t>(i)]);
        out_.put(s);
        return true;
      }
      case Op::array:
        return array(n, depth);
      case Op::map:
        return map(n, depth);
      case Op::fixed: {
        const uint8_t* at = nullptr;
        if (!read_fixed(at, n.count, "fixed")) return false;
        base64(at, n.count);
        return true;
      }
      case Op::union_type:
        return union_value(n, depth);
      case Op::decimal_bytes: {
        const uint8_t* at = nullptr;
        size_t len = 0;
        if (!read_length(at, len, "decimal")) return false;
        return decimal(at, len, n.scale);
      }
      case Op::decimal_fixed: {
        const uint8_t* at = nullptr;
        if (!read_fixed(at, n.count, "decimal")) return false;
        return decimal(at, n.count, n.scale);
      }
      case Op::uuid_fixed: {
        const uint8_t* at = nullptr;
        if (!read_fixed(at, 16, "uuid")) return false;
        out_.reserve(kUuidChars + 2);
        char* o = out_.pos();
        *o++ = '"';
        o = write_uuid(o, at);
        *o++ = '"';
        out_.advance(o);
        return true;
      }
      case Op::date: {
        int32_t v = 0;
        if (!read_int(v, "date")) return false;
        out_.reserve(kMaxDateChars + 2);
        char* o = out_.pos();
        *o++ = '"';
        o = write_date(o, v);
        *o++ = '"';
        out_.advance(o);
        return true;
      }
      case Op::time_millis: {
        const uint8_t* start = p_;
        int32_t v = 0;
        if (!read_int(v, "time-millis")) return false;
        return time_of_day(v, 3, start, "time-millis");
      }
      case Op::time_micros: {
        const uint8_t* start = p_;
        int64_t v = 0;
        if (!read_long(v, "time-micros")) return false;
        return time_of_day(v, 6, start, "time-micros");
      }
      case Op::timestamp_millis: return timestamp(3, true, "timestamp-millis");
      case Op::timestamp_micros: return timestamp(6, true, "timestamp-micros");
      case Op::timestamp_nanos: return timestamp(9, true, "timestamp-nanos");
      case Op::local_timestamp_millis: return timestamp(3, false, "local-timestamp-millis");
      case Op::local_timestamp_micros: return timestamp(6, false, "local-timestamp-micros");
      case Op::local_timestamp_nanos: return timestamp(9, false, "local-timestamp-nanos");
      case Op::duration: {
        const uint8_t* at = nullptr;
        if (!read_fixed(at, 12, "duration")) return false;
        uint32_t parts[3];
        std::memcpy(parts, at, sizeof parts);
        out_.put("{\"months\":", 10);
        out_.put_int(parts[0]);
        out_.put(",\"days\":", 8);
        out_.put_int(parts[1]);
        out_.put(",\"milliseconds\":", 16);
        out_.put_int(parts[2]);
        out_.put('}');
        return true;
      }
    }
    return fail(p_, "plan", "has an unknown node");  // unreachable: every Op is handled above
  }

  // After the top-level value: the payload must be used up.
  bool finish() { return p_ == end_ || fail_trailing(); }

  // The one-line error: the message and, when the failure was inside a field, its path.
  // Deep paths (a recursive type) keep their innermost kPathSegments segments.
  std::string error() const {
    if (path_.empty()) return message_;
    constexpr size_t kPathSegments = 16;
    const size_t shown = std::min(path_.size(), kPathSegments);
    std::string path = shown < path_.size() ? "..." : "";
    for (size_t i = shown; i-- > 0;) path += path_[i];
    if (path[0] == '.') path.erase(0, 1);
    return message_ + " (in " + path + ")";
  }

 private:
  bool record(const Node& n, uint32_t depth) {
    if (depth >= kMaxDepth) return too_deep();
    out_.put('{');
    const Field* f = plan_.fields.data() + n.first;
    for (uint32_t i = 0; i < n.count; ++i, ++f) {
      const std::string_view key = plan_.view(f->key);
      out_.put(key);
      if (!value(f->node, depth + 1)) return in_field(*f);
    }
    out_.put('}');
    return true;
  }

  bool array(const Node& n, uint32_t depth) {
    if (depth >= kMaxDepth) return too_deep();
    out_.put('[');
    const uint32_t item_min = nodes_[n.first].min_size;
    uint64_t index = 0;
    for (;;) {
      int64_t count = 0;
      const uint8_t* block_end = nullptr;
      if (!block(count, block_end, item_min, "array")) return false;
      if (count == 0) break;
      for (int64_t i = 0; i < count; ++i, ++index) {
        if (index != 0) out_.put(',');
        if (!value(n.first, depth + 1)) return in_item(index);
      }
      if (block_end && !block_size_matches(block_end, "array")) return false;
    }
    out_.put(']');
    return true;
  }

  bool map(const Node& n, uint32_t depth) {
    if (depth >= kMaxDepth) return too_deep();
    out_.put('{');
    const uint32_t value_min = nodes_[n.first].min_size;
    const uint32_t entry_min = value_min == std::numeric_limits<uint32_t>::max() ? value_min : value_min + 1;
    bool first = true;
    for (;;) {
      int64_t count = 0;
      const uint8_t* block_end = nullptr;
      if (!block(count, block_end, entry_min, "map")) return false;
      if (count == 0) break;
      for (int64_t i = 0; i < count; ++i) {
        if (!first) out_.put(',');
        first = false;
        const uint8_t* key = nullptr;
        size_t len = 0;
        if (!read_length(key, len, "map key") || !string(key, len, "map key")) return false;
        out_.put(':');
        if (!value(n.first, depth + 1)) return in_entry(key, len);
      }
      if (block_end && !block_size_matches(block_end, "map")) return false;
    }
    out_.put('}');
    return true;
  }

  bool union_value(const Node& n, uint32_t depth) {
    const uint8_t* start = p_;
    int32_t i = 0;
    if (!read_int(i, "union index")) return false;
    if (i < 0 || static_cast<uint32_t>(i) >= n.count) {
      return fail(start, "union index", "is ", i, ", out of range for ", n.count, " branches");
    }
    const uint32_t branch = plan_.branches[n.first + static_cast<uint32_t>(i)];
    const Node& b = nodes_[branch];
    if (!tagged_ || b.op == Op::null_value) return value(branch, depth);
    const std::string_view tag = plan_.view(b.tag);
    out_.put(tag);
    if (!value(branch, depth)) return false;
    out_.put('}');
    return true;
  }

  // Reads one block header of an array or map: the item count (0 ends the value) and, for
  // a negative count, the block's byte size, which sets `block_end`. The count is checked
  // against the bytes left (each item takes at least `item_min`) before any item is read.
  bool block(int64_t& count, const uint8_t*& block_end, uint32_t item_min, const char* kind) {
    const uint8_t* start = p_;
    const char* what = kind[0] == 'a' ? "array block count" : "map block count";
    if (!read_long(count, what)) return false;
    if (count < 0) {
      if (count == std::numeric_limits<int64_t>::min()) return fail(start, what, "is out of range");
      count = -count;
      const uint8_t* size_at = p_;
      int64_t bytes = 0;
      if (!read_long(bytes, "block byte size")) return false;
      if (bytes < 0 || static_cast<uint64_t>(bytes) > remaining()) {
        return fail(size_at, "block byte size", "is ", bytes, ", but only ", remaining(), " bytes are left");
      }
      block_end = p_ + bytes;
    }
    const auto n = static_cast<uint64_t>(count);
    if (item_min > 0) {
      if (n > remaining() / item_min) {
        return fail(start, what, "is ", n, " items of at least ", item_min, " bytes each, but only ", remaining(),
                    " bytes are left");
      }
    } else {
      if (n > empty_items_left_) {
        return fail(start, what, "is ", n, " items that take no bytes, over the limit of ", kMaxEmptyItems,
                    " such items per message");
      }
      empty_items_left_ -= n;
    }
    return true;
  }

  bool block_size_matches(const uint8_t* block_end, const char* kind) {
    if (p_ == block_end) return true;
    return fail_block_end(kind, block_end);
  }

  // Most strings are printable ASCII with nothing to escape: they are checked eight bytes
  // at a time and copied as they are. Anything else is validated and escaped byte by byte.
  bool string(const uint8_t* at, size_t len, const char* what) {
    if (!is_plain_ascii(at, len)) [[unlikely]] return escaped_string(at, len, what);
    out_.put('"');
    out_.put(reinterpret_cast<const char*>(at), len);
    out_.put('"');
    return true;
  }

  [[gnu::noinline]] bool escaped_string(const uint8_t* at, size_t len, const char* what) {
    const std::string_view s(reinterpret_cast<const char*>(at), len);
    if (!is_valid_utf8(s)) return fail(at, what, "is not valid UTF-8");
    append_json_string(out_.string(), s);
    out_.resume();
    return true;
  }

  // True when every byte is in 0x20..0x7f and none is '"' or '\\'. Words are tested
  // whole; the last (or, below 8 bytes, both) loads overlap instead of looping per byte.
  static bool is_plain_ascii(const uint8_t* p, size_t len) {
    if (len >= 8) {
      size_t i = 0;
      for (; i + 8 < len; i += 8) {
        if (!plain_word(load64(p + i))) return false;
      }
      return plain_word(load64(p + len - 8));
    }
    if (len >= 4) return plain_word(uint64_t{load32(p)} << 32 | load32(p + len - 4));
    for (size_t i = 0; i < len; ++i) {
      const uint8_t c = p[i];
      if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
    }
    return true;
  }

  static bool plain_word(uint64_t w) {
    constexpr uint64_t kOnes = 0x0101010101010101ull;
    constexpr uint64_t kHigh = 0x8080808080808080ull;
    // With no high bit set, a byte below 0x20 (or one equal to '"' or '\\', zero after
    // the XOR) is the only way to borrow into a high bit: each test is exact.
    const uint64_t control = (w - kOnes * 0x20) & ~w;
    const uint64_t q = w ^ (kOnes * '"');
    const uint64_t b = w ^ (kOnes * '\\');
    const uint64_t quote = (q - kOnes) & ~q;
    const uint64_t backslash = (b - kOnes) & ~b;
    return ((w | control | quote | backslash) & kHigh) == 0;
  }

  static uint64_t load64(const uint8_t* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  }

  static uint32_t load32(const uint8_t* p) {
    uint32_t w;
    std::memcpy(&w, p, 4);
    return w;
  }

  void base64(const uint8_t* at, size_t len) {
    out_.put('"');
    append_base64(out_.string(), at, len);
    out_.resume();
    out_.put('"');
  }

  bool decimal(const uint8_t* at, size_t len, int32_t scale) {
    if (len > kMaxDecimalBytes) {
      return fail(at, "decimal", "has ", len, " bytes, over the limit of ", kMaxDecimalBytes);
    }
    out_.reserve(decimal_max_chars(len, scale) + 2);
    char* o = out_.pos();
    *o++ = '"';
    o = write_decimal(o, at, len, scale);
    *o++ = '"';
    out_.advance(o);
    return true;
  }

  bool time_of_day(int64_t v, int digits, const uint8_t* start, const char* what) {
    const int64_t day = digits == 3 ? 86400000 : int64_t{86400000000};
    if (v < 0 || v >= day) return fail(start, what, "is ", v, ", outside one day");
    out_.reserve(kMaxTimeChars + 2);
    char* o = out_.pos();
    *o++ = '"';
    o = write_time_of_day(o, v, digits);
    *o++ = '"';
    out_.advance(o);
    return true;
  }

  bool timestamp(int digits, bool utc, const char* what) {
    int64_t v = 0;
    if (!read_long(v, what)) return false;
    out_.reserve(kMaxTimestampChars + 2);
    char* o = out_.pos();
    *o++ = '"';
    o = write_timestamp(o, v, digits, utc);
    *o++ = '"';
    out_.advance(o);
    return true;
  }

  // A zig-zag varint of at most 5 bytes whose value fits 32 bits (Avro int).
  [[gnu::always_inline]] bool read_int(int32_t& v, const char* what) {
    if (p_ != end_ && *p_ < 0x80) [[likely]] {
      const uint32_t u = *p_++;
      v = static_cast<int32_t>(u >> 1) ^ -static_cast<int32_t>(u & 1);
      return true;
    }
    return read_int_slow(v, what);
  }

  [[gnu::noinline]] bool read_int_slow(int32_t& v, const char* what) {
    const uint8_t* start = p_;
    uint32_t u = 0;
    for (int shift = 0; shift <= 28; shift += 7) {
      if (p_ == end_) return truncated(what, start);
      const uint8_t b = *p_++;
      u |= static_cast<uint32_t>(b & 0x7f) << shift;
      if (b < 0x80) {
        if (shift == 28 && b > 0x0f) return fail(start, what, "overflows 32 bits");
        v = static_cast<int32_t>(u >> 1) ^ -static_cast<int32_t>(u & 1);
        return true;
      }
    }
    return fail(start, what, "is longer than 5 bytes");
  }

  // A zig-zag varint of at most 10 bytes whose value fits 64 bits (Avro long).
  [[gnu::always_inline]] bool read_long(int64_t& v, const char* what) {
    if (p_ != end_ && *p_ < 0x80) [[likely]] {
      const uint64_t u = *p_++;
      v = static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
      return true;
    }
    return read_long_slow(v, what);
  }

  [[gnu::noinline]] bool read_long_slow(int64_t& v, const char* what) {
    const uint8_t* start = p_;
    uint64_t u = 0;
    for (int shift = 0; shift <= 63; shift += 7) {
      if (p_ == end_) return truncated(what, start);
      const uint8_t b = *p_++;
      u |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) {
        if (shift == 63 && b > 1) return fail(start, what, "overflows 64 bits");
        v = static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
        return true;
      }
    }
    return fail(start, what, "is longer than 10 bytes");
  }

  // A length-prefixed byte run (bytes, string, decimal, map key): its start and length.
  bool read_length(const uint8_t*& at, size_t& len, const char* what) {
    const uint8_t* start = p_;
    int64_t n = 0;
    if (!read_long(n, what)) return false;
    if (n < 0) return fail(start, what, "has a negative length ", n);
    if (static_cast<uint64_t>(n) > remaining()) {
      return fail(start, what, "declares ", n, " bytes, but only ", remaining(), " are left");
    }
    at = p_;
    len = static_cast<size_t>(n);
    p_ += len;
    return true;
  }

  bool read_fixed(const uint8_t*& at, size_t len, const char* what) {
    if (len > remaining()) return truncated(what, p_);
    at = p_;
    p_ += len;
    return true;
  }

  bool read_raw(void* dst, size_t len, const char* what) {
    if (len > remaining()) return truncated(what, p_);
    std::memcpy(dst, p_, len);
    p_ += len;
    return true;
  }

  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  size_t offset(const uint8_t* at) const { return static_cast<size_t>(at - begin_); }

  // On failure inside a container: record where, innermost first (see error()).
  [[gnu::cold, gnu::noinline]] bool in_field(const Field& f) {
    path_.push_back("." + std::string(plan_.view(f.name)));
    return false;
  }

  [[gnu::cold, gnu::noinline]] bool in_item(uint64_t index) {
    path_.push_back("[" + std::to_string(index) + "]");
    return false;
  }

  // Long keys are cut (on a character boundary) to keep the error one short line.
  [[gnu::cold, gnu::noinline]] bool in_entry(const uint8_t* key, size_t len) {
    constexpr size_t kKeyShown = 64;
    size_t shown = len;
    if (shown > kKeyShown) {
      shown = kKeyShown;
      while (shown > 0 && (key[shown] & 0xc0) == 0x80) --shown;
    }
    std::string segment = "[";
    append_json_string(segment, std::string_view(reinterpret_cast<const char*>(key), shown));
    if (shown < len) segment.insert(segment.size() - 1, "...");
    segment.push_back(']');
    path_.push_back(std::move(segment));
    return false;
  }

  // Failures build their message out of line, so that the hot path holds no temporaries.
  template <typename... Parts>
  [[gnu::cold, gnu::noinline]] bool fail(const uint8_t* at, const char* what, const Parts&... parts) {
    message_ = what;
    message_ += " at byte ";
    message_ += std::to_string(offset(at));
    message_ += ' ';
    (append_part(message_, parts), ...);
    return false;
  }

  static void append_part(std::string& s, const char* part) { s += part; }
  template <typename Int>
  static void append_part(std::string& s, Int part) {
    s += std::to_string(part);
  }

  [[gnu::cold, gnu::noinline]] bool fail_trailing() {
    message_ = std::to_string(end_ - p_) + " trailing bytes after the record at byte " + std::to_string(offset(p_));
    return false;
  }

  [[gnu::cold, gnu::noinline]] bool fail_block_end(const char* kind, const uint8_t* block_end) {
    message_ = std::string(kind) + " block ends at byte " + std::to_string(offset(p_)) + ", not at byte " +
               std::to_string(offset(block_end)) + " as its byte size declares";
    return false;
  }

  bool truncated(const char* what, const uint8_t* at) {
    return fail(at, what, "is truncated: the payload ends at byte ", offset(end_));
  }

  bool too_deep() {
    return fail(p_, "value", "is nested deeper than ", kMaxDepth, " records, arrays and maps");
  }

  const AvroPlan& plan_;
  const Node* nodes_;
  const bool tagged_;
  const uint8_t* const begin_;
  const uint8_t* p_;
  const uint8_t* const end_;
  OutputCursor out_;
  uint64_t empty_items_left_ = kMaxEmptyItems;
  std::string message_;            // set on failure only
  std::vector<std::string> path_;  // on failure: the field path, innermost segment first
};

}  // namespace

AvroDecoder::AvroDecoder(AvroPlan plan, const DecodeOptions& options)
    : plan_(std::move(plan)), tagged_unions_(options.tagged_unions) {}

bool AvroDecoder::decode(const uint8_t* data, size_t size, std::string& out, std::string& error) const {
  Run run(plan_, tagged_unions_, data, size, out);
  if (run.value(plan_.root, 0) && run.finish()) return true;
  error = run.error();
  return false;
}

}  // namespace krow::avro

namespace krow {

std::unique_ptr<SchemaDecoder> compile_avro(const ResolvedSchema& schema, const DecodeOptions& options) {
  return std::make_unique<avro::AvroDecoder>(avro::compile_avro_plan(schema), options);
}

}  // namespace krow
