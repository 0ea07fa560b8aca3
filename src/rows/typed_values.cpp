#include "rows/typed_values.hpp"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "util/json_tokens.hpp"
#include "util/text.hpp"

namespace krow::rows {

namespace {

namespace od = simdjson::ondemand;

bool digits(std::string_view s, size_t at, size_t n, int& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool leap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

// "YYYY-MM-DD" at the start of `s`; `used` is set to 10.
bool date_prefix(std::string_view s, int64_t& days) {
  int y, m, d;
  if (!digits(s, 0, 4, y) || s.size() < 10 || s[4] != '-' || !digits(s, 5, 2, m) || s[7] != '-' ||
      !digits(s, 8, 2, d))
    return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1 || d > kDays[m - 1] + (m == 2 && leap(y))) return false;
  days = days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

// "HH:MM:SS[.fraction]" at the start of `s`; `used` is how much of `s` it took.
bool time_prefix(std::string_view s, int64_t& micros, size_t& used) {
  int h, m, sec;
  if (!digits(s, 0, 2, h) || s.size() < 8 || s[2] != ':' || !digits(s, 3, 2, m) || s[5] != ':' ||
      !digits(s, 6, 2, sec))
    return false;
  if (h > 23 || m > 59 || sec > 60) return false;  // 60: a leap second, as RFC 3339 allows
  int64_t fraction = 0;
  size_t i = 8;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t n = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++n)
      if (n < 6) fraction = fraction * 10 + (s[i] - '0');
    if (n == 0) return false;
    for (; n < 6; ++n) fraction *= 10;
  }
  micros = ((int64_t{h} * 60 + m) * 60 + sec) * 1'000'000 + fraction;
  used = i;
  return true;
}

// A time's zone: none or `Z` (UTC), or `±HH:MM` (also `±HHMM`); the offset east of UTC.
bool zone_offset(std::string_view zone, int64_t& offset_minutes) {
  offset_minutes = 0;
  if (zone.empty() || zone == "Z" || zone == "z") return true;
  if ((zone[0] != '+' && zone[0] != '-') || (zone.size() != 6 && zone.size() != 5)) return false;
  int h, m;
  const size_t at = zone.size() == 6 ? 4 : 3;
  if (!digits(zone, 1, 2, h) || (zone.size() == 6 && zone[3] != ':') || !digits(zone, at, 2, m) ||
      h > 23 || m > 59)
    return false;
  offset_minutes = (zone[0] == '-' ? -1 : 1) * (h * 60 + m);
  return true;
}

bool parse_int64(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  const char* begin = s.data();
  if (*begin == '+') return false;
  const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool parse_uint64(std::string_view s, uint64_t& out) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// A scalar JSON value, read once (On Demand reads each value once) and then offered to every
// column whose path ends at it.
struct Scalar {
  enum class Kind { string, number, boolean } kind = Kind::number;
  std::string_view text;  // string: unescaped (in the parser's buffer); number: its token
  bool flag = false;      // boolean
  std::string_view raw;   // the value's JSON text, for JSON columns and notes
};

bool parse_real(std::string_view token, double& d) {
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), d);
  return ec == std::errc() && end == token.data() + token.size() && std::isfinite(d);
}

// An integral JSON number, or a string of exact digits (how decoders write 64-bit integers).
bool signed_value(const Scalar& v, int64_t& out) {
  if (v.kind == Scalar::Kind::string) return parse_int64(v.text, out);
  if (v.kind != Scalar::Kind::number) return false;
  switch (classify_json_number(v.text)) {
    case JsonNumber::int64:
      return parse_int64(v.text, out);
    case JsonNumber::real: {
      double d;
      if (!parse_real(v.text, d) || !(d >= -9223372036854775808.0 && d < 9223372036854775808.0) ||
          std::trunc(d) != d)
        return false;
      out = static_cast<int64_t>(d);
      return true;
    }
    default:
      return false;
  }
}

bool unsigned_value(const Scalar& v, uint64_t& out) {
  if (v.kind == Scalar::Kind::string) return parse_uint64(v.text, out);
  if (v.kind != Scalar::Kind::number) return false;
  switch (classify_json_number(v.text)) {
    case JsonNumber::int64:
    case JsonNumber::uint64:
      return parse_uint64(v.text, out);  // false for a negative one
    case JsonNumber::real: {
      double d;
      if (!parse_real(v.text, d) || !(d >= 0 && d < 18446744073709551616.0) || std::trunc(d) != d)
        return false;
      out = static_cast<uint64_t>(d);
      return true;
    }
    case JsonNumber::big_integer:
      return false;
  }
  return false;
}

bool real_value(const Scalar& v, double& d) {
  if (v.kind == Scalar::Kind::number)
    return parse_real(v.text, d);  // any number; none beyond DOUBLE's range
  if (v.kind != Scalar::Kind::string) return false;
  // How the decoders write what JSON numbers cannot hold.
  if (v.text == "NaN")
    d = std::numeric_limits<double>::quiet_NaN();
  else if (v.text == "Infinity")
    d = std::numeric_limits<double>::infinity();
  else if (v.text == "-Infinity")
    d = -std::numeric_limits<double>::infinity();
  else
    return false;
  return true;
}

void set_real(TypedCell& c, double d) {
  std::memcpy(&c.a, &d, sizeof d);
  c.present = true;
}

void set_decimal(TypedCell& c, Int128 d) {
  const auto u = static_cast<UInt128>(d);
  c.a = static_cast<int64_t>(static_cast<uint64_t>(u));
  c.b = static_cast<int64_t>(static_cast<uint64_t>(u >> 64));
  c.present = true;
}

void append_text(TypedCell& c, std::string_view text, std::string& arena) {
  c.a = static_cast<int64_t>(arena.size());
  c.b = static_cast<int64_t>(text.size());
  arena.append(text);
  c.present = true;
}

void append_json(TypedCell& c, std::string_view raw, std::string& arena) {
  c.a = static_cast<int64_t>(arena.size());
  append_minified_json(arena, raw);
  c.b = static_cast<int64_t>(arena.size()) - c.a;
  c.present = true;
}

// Fills `c` from the scalar `v` for a column of `spec`'s type; false when it does not fit.
bool fill(const Scalar& v, const columns::ColumnSpec& spec, TypedCell& c, std::string& arena) {
  const bool is_string = v.kind == Scalar::Kind::string;
  switch (spec.type) {
    case ColumnType::boolean:
      if (v.kind != Scalar::Kind::boolean) return false;
      c.a = v.flag;
      c.present = true;
      return true;
    case ColumnType::int32:
    case ColumnType::int64: {
      int64_t i;
      if (!signed_value(v, i)) return false;
      if (spec.type == ColumnType::int32 &&
          (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max()))
        return false;
      c.a = i;
      c.present = true;
      return true;
    }
    case ColumnType::uint64: {
      uint64_t u;
      if (!unsigned_value(v, u)) return false;
      c.a = static_cast<int64_t>(u);
      c.present = true;
      return true;
    }
    case ColumnType::float32:
    case ColumnType::float64: {
      double d;
      if (!real_value(v, d)) return false;
      if (spec.type == ColumnType::float32 && std::isfinite(d) &&
          std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))
        return false;
      set_real(c, d);
      return true;
    }
    case ColumnType::decimal: {
      Int128 d;
      if (!is_string || !parse_decimal(v.text, spec.precision, spec.scale, d)) return false;
      set_decimal(c, d);
      return true;
    }
    case ColumnType::text:
    case ColumnType::bytes:
      if (!is_string) return false;
      append_text(c, v.text, arena);
      return true;
    case ColumnType::date:
      if (!is_string || !parse_date(v.text, c.a)) return false;
      c.present = true;
      return true;
    case ColumnType::time:
      if (!is_string || !parse_time(v.text, c.a)) return false;
      c.present = true;
      return true;
    case ColumnType::timestamp:
      if (!is_string || !parse_timestamp(v.text, c.a)) return false;
      c.present = true;
      return true;
    case ColumnType::json:
      append_json(c, v.raw, arena);
      return true;
  }
  return false;
}

// A column contract's `enforce: coerce`: `v` converted into `spec`'s type where nothing is
// lost, after fill() found it does not fit as it is. False when it cannot be.
bool coerce(const Scalar& v, const columns::ColumnSpec& spec, TypedCell& c, std::string& arena) {
  const bool is_string = v.kind == Scalar::Kind::string;
  switch (spec.type) {
    case ColumnType::boolean:
      if (is_string && (v.text == "true" || v.text == "false")) {
        c.a = v.text == "true";
        c.present = true;
        return true;
      }
      if (v.kind == Scalar::Kind::number && (v.text == "0" || v.text == "1")) {
        c.a = v.text == "1";
        c.present = true;
        return true;
      }
      return false;
    case ColumnType::int32:
    case ColumnType::int64:
    case ColumnType::uint64:
    case ColumnType::float32:
    case ColumnType::float64: {
      // A string that is a JSON number ("12", "-3.5e2"), read as that number.
      if (!is_string || classify_json_number(v.text) == JsonNumber::big_integer) return false;
      double d;
      if (!parse_real(v.text, d)) return false;
      const Scalar number{Scalar::Kind::number, v.text, false, v.text};
      return fill(number, spec, c, arena);
    }
    case ColumnType::decimal: {
      Int128 d;
      if (v.kind != Scalar::Kind::number || !parse_decimal(v.text, spec.precision, spec.scale, d)) return false;
      set_decimal(c, d);
      return true;
    }
    case ColumnType::text:
      if (is_string) return false;
      append_text(c, v.raw, arena);  // a number's or a boolean's JSON text
      return true;
    case ColumnType::timestamp: {
      // A date alone ("2026-03-01"): its midnight, UTC.
      int64_t days;
      if (!is_string || !parse_date(v.text, days)) return false;
      c.a = days * 86'400'000'000;
      c.present = true;
      return true;
    }
    default:
      return false;
  }
}

constexpr size_t kNoteValueBytes = 64;  // of a misfit value, in its decode_error note

void add_note(std::string& notes, const columns::ColumnSpec& spec, const std::string& label,
              std::string_view raw) {
  if (!notes.empty()) notes += "; ";
  notes.append("column ").append(spec.name).append(" (").append(label).append("): got ");
  const size_t start = notes.size();
  append_minified_json(notes, raw);
  if (notes.size() - start > kNoteValueBytes) {
    size_t cut = start + kNoteValueBytes;
    while (cut > start && (static_cast<unsigned char>(notes[cut]) & 0xC0) == 0x80)
      --cut;  // whole characters
    notes.resize(cut);
    notes += "...";
  }
}

}  // namespace

bool parse_decimal(std::string_view s, int32_t precision, int32_t scale, Int128& out) {
  size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative || (!s.empty() && s[0] == '+')) ++i;
  UInt128 v = 0;
  int32_t integer_digits = 0, fraction_digits = 0, significant = 0;
  bool any = false;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    any = true;
    if (v == 0 && s[i] == '0') continue;  // leading zeros
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
    ++integer_digits;
    if (++significant > 38) return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    bool fraction = false;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      fraction = true;
      if (fraction_digits == scale) {
        if (s[i] != '0') return false;  // would lose a digit
        continue;
      }
      v = v * 10 + static_cast<unsigned>(s[i] - '0');
      ++fraction_digits;
      if (v != 0 && ++significant > 38) return false;
    }
    if (!fraction) return false;
  }
  if (!any || i != s.size()) return false;
  if (integer_digits > precision - scale) return false;
  for (; fraction_digits < scale; ++fraction_digits) v *= 10;
  out = negative ? -static_cast<Int128>(v) : static_cast<Int128>(v);
  return true;
}

bool parse_date(std::string_view s, int64_t& days) {
  return s.size() == 10 && date_prefix(s, days);
}

bool parse_time(std::string_view s, int64_t& micros) {
  size_t used = 0;
  int64_t offset_minutes = 0;
  if (!time_prefix(s, micros, used) || !zone_offset(s.substr(used), offset_minutes)) return false;
  // A time with a zone (RFC 3339's full-time) is stored as the same instant's time of day in UTC.
  constexpr int64_t kDay = 86'400'000'000;
  if (offset_minutes != 0) micros = ((micros - offset_minutes * 60'000'000) % kDay + kDay) % kDay;
  return true;
}

bool parse_timestamp(std::string_view s, int64_t& micros) {
  int64_t days, time;
  size_t used = 0;
  if (s.size() < 19 || !date_prefix(s, days) || (s[10] != 'T' && s[10] != 't' && s[10] != ' '))
    return false;
  const auto rest = s.substr(11);
  int64_t offset_minutes = 0;
  if (!time_prefix(rest, time, used) || !zone_offset(rest.substr(used), offset_minutes))
    return false;
  micros = days * 86'400'000'000 + time - offset_minutes * 60'000'000;
  return true;
}

TypedLayout::TypedLayout(std::vector<columns::ColumnSpec> columns_,
                         std::vector<std::string> labels_, ValuePolicy policy_)
    : columns(std::move(columns_)), labels(std::move(labels_)), policy(policy_), tree(1) {
  for (uint32_t i = 0; i < columns.size(); ++i) {
    if (columns[i].retired) continue;
    uint32_t node = 0;
    for (const auto& step : columns[i].path) {
      auto& children = tree[node].children;
      auto it = std::lower_bound(
          children.begin(), children.end(), step,
          [](const auto& child, const std::string& key) { return child.first < key; });
      if (it == children.end() || it->first != step) {
        it = children.insert(it, {step, static_cast<uint32_t>(tree.size())});
        node = it->second;
        tree.emplace_back();  // `children` may move with the tree: not used after this
        continue;
      }
      node = it->second;
    }
    tree[node].columns.push_back(i);
  }
}

namespace {

// A parser and its padded copy of the text it reads.
struct Level {
  od::parser parser;
  std::string padded;
};

struct Buffers {
  // Level 0 reads the value; a deeper one re-reads a part of it that both fills a column whole
  // and holds fields of other columns (rare: an inferred column kept beside a newer JSON one).
  std::vector<std::unique_ptr<Level>> levels;
  std::vector<char> done;  // per column: met (filled, NULL or noted)
  std::vector<char>
      visited;  // per tree node: its field met (when a name occurs twice, the first counts)
};

// One pass over a value's JSON, filling the cells of the columns whose paths it meets.
class Walk {
 public:
  Walk(const TypedLayout& layout, TypedCell* cells, std::string& arena, std::string& notes,
       Buffers& buffers)
      : layout_(layout), cells_(cells), arena_(arena), notes_(notes), b_(buffers) {}

  // Reads `json`, the value at tree node `node`, with the parser of level `depth`.
  simdjson::error_code text(std::string_view json, uint32_t node, size_t depth) {
    if (b_.levels.size() <= depth) b_.levels.push_back(std::make_unique<Level>());
    Level& level = *b_.levels[depth];
    level.padded.assign(json);
    level.padded.append(simdjson::SIMDJSON_PADDING, ' ');
    od::document doc;
    od::json_type type;
    if (auto e =
            level.parser.iterate(level.padded.data(), json.size(), level.padded.size()).get(doc))
      return e;
    if (auto e = doc.type().get(type)) return e;
    if (type == od::json_type::object || type == od::json_type::array) {
      od::value v;
      if (auto e = doc.get_value().get(v)) return e;
      return value(v, type, node, depth);
    }
    // A scalar document: a root that is not a record, one column `value`.
    if (type == od::json_type::null) return nulls(node);
    Scalar s;
    if (auto e = scalar(doc, type, s)) return e;
    leaves(node, s);
    return simdjson::SUCCESS;
  }

 private:
  simdjson::error_code value(od::value& v, od::json_type type, uint32_t node, size_t depth) {
    const auto& n = layout_.tree[node];
    const bool leaves_left =
        std::any_of(n.columns.begin(), n.columns.end(), [&](uint32_t c) { return !b_.done[c]; });
    std::string_view raw;
    switch (type) {
      case od::json_type::null:
        return nulls(node);
      case od::json_type::object: {
        od::object o;
        if (auto e = v.get_object().get(o)) return e;
        if (!leaves_left) return fields(o, node, depth);
        if (auto e = o.raw_json().get(raw)) return e;
        compound(node, raw);
        return n.children.empty() ? simdjson::SUCCESS : text(raw, node, depth + 1);
      }
      case od::json_type::array: {
        if (!leaves_left) return simdjson::SUCCESS;  // no fields in an array
        od::array a;
        if (auto e = v.get_array().get(a)) return e;
        if (auto e = a.raw_json().get(raw)) return e;
        compound(node, raw);
        return simdjson::SUCCESS;
      }
      default: {
        if (!leaves_left) return simdjson::SUCCESS;  // no fields in a scalar
        Scalar s;
        if (auto e = scalar(v, type, s)) return e;
        leaves(node, s);
        return simdjson::SUCCESS;
      }
    }
  }

  simdjson::error_code fields(od::object& o, uint32_t node, size_t depth) {
    const auto& children = layout_.tree[node].children;
    for (auto f : o) {
      std::string_view key;
      if (auto e = f.error()) return e;
      od::field& field = f.value_unsafe();
      if (auto e = field.unescaped_key().get(key)) return e;
      const auto it =
          std::lower_bound(children.begin(), children.end(), key,
                           [](const auto& child, std::string_view k) { return child.first < k; });
      if (it == children.end() || it->first != key || b_.visited[it->second])
        continue;  // its value is skipped
      b_.visited[it->second] = 1;
      od::json_type type;
      if (auto e = field.value().type().get(type)) return e;
      if (auto e = value(field.value(), type, it->second, depth)) return e;
    }
    return simdjson::SUCCESS;
  }

  // Reads a scalar of an On Demand value or document (both read the same way).
  static simdjson::error_code token(od::value& v, std::string_view& out) {
    out = v.raw_json_token();
    return simdjson::SUCCESS;
  }
  static simdjson::error_code token(od::document& d, std::string_view& out) {
    return d.raw_json_token().get(out);
  }

  template <class V>
  static simdjson::error_code scalar(V& v, od::json_type type, Scalar& s) {
    if (auto e = token(v, s.raw)) return e;
    s.raw = trim_json_token(s.raw);
    switch (type) {
      case od::json_type::string:
        s.kind = Scalar::Kind::string;
        return v.get_string().get(s.text);
      case od::json_type::boolean:
        s.kind = Scalar::Kind::boolean;
        return v.get_bool().get(s.flag);
      default:
        s.kind = Scalar::Kind::number;
        s.text = s.raw;
        return simdjson::SUCCESS;
    }
  }

  simdjson::error_code nulls(uint32_t node) {
    for (uint32_t c : layout_.tree[node].columns) b_.done[c] = 1;
    return simdjson::SUCCESS;
  }

  void leaves(uint32_t node, const Scalar& s) {
    for (uint32_t c : layout_.tree[node].columns) {
      if (b_.done[c]) continue;
      b_.done[c] = 1;
      const auto& policy = layout_.policy;
      if (policy.empty_as_null && s.kind == Scalar::Kind::string && s.text.empty()) continue;  // NULL
      if (!fill(s, layout_.columns[c], cells_[c], arena_) &&
          !(policy.coerce && coerce(s, layout_.columns[c], cells_[c] = TypedCell{}, arena_))) {
        cells_[c] = TypedCell{};
        note(c, s.raw);
      }
    }
  }

  // An object or array: whole into JSON columns, a misfit for any other.
  void compound(uint32_t node, std::string_view raw) {
    for (uint32_t c : layout_.tree[node].columns) {
      if (b_.done[c]) continue;
      b_.done[c] = 1;
      if (layout_.columns[c].type == ColumnType::json)
        append_json(cells_[c], raw, arena_);
      else
        note(c, raw);
    }
  }

  void note(uint32_t c, std::string_view raw) {
    const auto& spec = layout_.columns[c];
    add_note(
        notes_, spec,
        c < layout_.labels.size() ? layout_.labels[c] : std::string(column_type_name(spec.type)),
        raw);
  }

  const TypedLayout& layout_;
  TypedCell* cells_;
  std::string& arena_;
  std::string& notes_;
  Buffers& b_;
};

}  // namespace

struct TypedExtractor::State {
  Buffers buffers;
};

TypedExtractor::TypedExtractor() : state_(std::make_unique<State>()) {}
TypedExtractor::~TypedExtractor() = default;

void TypedExtractor::extract(std::string_view json, const TypedLayout& layout, TypedCell* cells,
                             std::string& arena, std::string& notes) {
  for (size_t i = 0; i < layout.columns.size(); ++i) cells[i] = TypedCell{};
  auto& b = state_->buffers;
  b.done.assign(layout.columns.size(), 0);
  b.visited.assign(layout.tree.size(), 0);
  const auto notes_before = notes.size();
  if (const auto err = Walk(layout, cells, arena, notes, b).text(json, 0, 0)) {
    // Only for text that is no JSON (the decoders and the validator let none through).
    for (size_t i = 0; i < layout.columns.size(); ++i) cells[i] = TypedCell{};
    notes.resize(notes_before);
    if (!notes.empty()) notes += "; ";
    notes.append("typed columns not filled: the value does not parse as JSON here (")
        .append(simdjson::error_message(err))
        .append(")");
  }
}

}  // namespace krow::rows
