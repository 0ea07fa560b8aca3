#include "rows/typed_values.hpp"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "util/text.hpp"

namespace krow::rows {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using columns::ColumnType;

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

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

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

// Appends `e` as compact JSON text.
void write_json(const element& e, std::string& out) {
  char buf[32];
  switch (e.type()) {
    case element_type::ARRAY: {
      out += '[';
      bool first = true;
      const simdjson::dom::array items = e.get_array().value_unsafe();
      for (element v : items) {
        if (!first) out += ',';
        first = false;
        write_json(v, out);
      }
      out += ']';
      return;
    }
    case element_type::OBJECT: {
      out += '{';
      bool first = true;
      const simdjson::dom::object fields = e.get_object().value_unsafe();
      for (auto field : fields) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, field.key);
        out += ':';
        write_json(field.value, out);
      }
      out += '}';
      return;
    }
    case element_type::INT64: {
      const auto r = std::to_chars(buf, buf + sizeof buf, e.get_int64().value_unsafe());
      out.append(buf, r.ptr);
      return;
    }
    case element_type::UINT64: {
      const auto r = std::to_chars(buf, buf + sizeof buf, e.get_uint64().value_unsafe());
      out.append(buf, r.ptr);
      return;
    }
    case element_type::DOUBLE: {
      const double d = e.get_double().value_unsafe();
      const auto r = std::to_chars(buf, buf + sizeof buf, d);
      out.append(buf, r.ptr);
      // Keep it a JSON number of the same kind: 1.0 stays a real, not the integer 1.
      if (std::string_view(buf, r.ptr - buf).find_first_of(".eEn") == std::string_view::npos) out += ".0";
      return;
    }
    case element_type::STRING: append_json_string(out, e.get_string().value_unsafe()); return;
    case element_type::BOOL: out += e.get_bool().value_unsafe() ? "true" : "false"; return;
    case element_type::NULL_VALUE: out += "null"; return;
  }
}

void set_real(TypedCell& c, double d) {
  std::memcpy(&c.a, &d, sizeof d);
  c.present = true;
}

// An integral JSON number, or a string of exact digits (how decoders write 64-bit integers).
bool signed_value(const element& e, int64_t& v) {
  switch (e.type()) {
    case element_type::INT64: v = e.get_int64().value_unsafe(); return true;
    case element_type::DOUBLE: {
      const double d = e.get_double().value_unsafe();
      if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || std::trunc(d) != d) return false;
      v = static_cast<int64_t>(d);
      return true;
    }
    case element_type::STRING: return parse_int64(e.get_string().value_unsafe(), v);
    default: return false;
  }
}

bool unsigned_value(const element& e, uint64_t& v) {
  switch (e.type()) {
    case element_type::INT64: {
      const int64_t i = e.get_int64().value_unsafe();
      if (i < 0) return false;
      v = static_cast<uint64_t>(i);
      return true;
    }
    case element_type::UINT64: v = e.get_uint64().value_unsafe(); return true;
    case element_type::DOUBLE: {
      const double d = e.get_double().value_unsafe();
      if (!(d >= 0 && d < 18446744073709551616.0) || std::trunc(d) != d) return false;
      v = static_cast<uint64_t>(d);
      return true;
    }
    case element_type::STRING: return parse_uint64(e.get_string().value_unsafe(), v);
    default: return false;
  }
}

bool real_value(const element& e, double& d) {
  switch (e.type()) {
    case element_type::INT64: d = static_cast<double>(e.get_int64().value_unsafe()); return true;
    case element_type::UINT64: d = static_cast<double>(e.get_uint64().value_unsafe()); return true;
    case element_type::DOUBLE: d = e.get_double().value_unsafe(); return true;
    case element_type::STRING: {
      // How the decoders write what JSON numbers cannot hold.
      const auto s = e.get_string().value_unsafe();
      if (s == "NaN") d = std::numeric_limits<double>::quiet_NaN();
      else if (s == "Infinity") d = std::numeric_limits<double>::infinity();
      else if (s == "-Infinity") d = -std::numeric_limits<double>::infinity();
      else return false;
      return true;
    }
    default: return false;
  }
}

void append_text(TypedCell& c, std::string_view text, std::string& arena) {
  c.a = static_cast<int64_t>(arena.size());
  c.b = static_cast<int64_t>(text.size());
  arena.append(text);
  c.present = true;
}

// Fills `c` from `e` for a column of `spec`'s type; false when it does not fit.
bool fill(const element& e, const columns::ColumnSpec& spec, TypedCell& c, std::string& arena) {
  const bool is_string = e.type() == element_type::STRING;
  switch (spec.type) {
    case ColumnType::boolean:
      if (e.type() != element_type::BOOL) return false;
      c.a = e.get_bool().value_unsafe();
      c.present = true;
      return true;
    case ColumnType::int32:
    case ColumnType::int64: {
      int64_t v;
      if (!signed_value(e, v)) return false;
      if (spec.type == ColumnType::int32 && (v < std::numeric_limits<int32_t>::min() ||
                                             v > std::numeric_limits<int32_t>::max()))
        return false;
      c.a = v;
      c.present = true;
      return true;
    }
    case ColumnType::uint64: {
      uint64_t v;
      if (!unsigned_value(e, v)) return false;
      c.a = static_cast<int64_t>(v);
      c.present = true;
      return true;
    }
    case ColumnType::float32:
    case ColumnType::float64: {
      double d;
      if (!real_value(e, d)) return false;
      if (spec.type == ColumnType::float32 && std::isfinite(d) &&
          std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))
        return false;
      set_real(c, d);
      return true;
    }
    case ColumnType::decimal: {
      Int128 v;
      if (!is_string || !parse_decimal(e.get_string().value_unsafe(), spec.precision, spec.scale, v)) return false;
      const auto u = static_cast<UInt128>(v);
      c.a = static_cast<int64_t>(static_cast<uint64_t>(u));
      c.b = static_cast<int64_t>(static_cast<uint64_t>(u >> 64));
      c.present = true;
      return true;
    }
    case ColumnType::text:
    case ColumnType::bytes:
      if (!is_string) return false;
      append_text(c, e.get_string().value_unsafe(), arena);
      return true;
    case ColumnType::date:
      if (!is_string || !parse_date(e.get_string().value_unsafe(), c.a)) return false;
      c.present = true;
      return true;
    case ColumnType::time:
      if (!is_string || !parse_time(e.get_string().value_unsafe(), c.a)) return false;
      c.present = true;
      return true;
    case ColumnType::timestamp:
      if (!is_string || !parse_timestamp(e.get_string().value_unsafe(), c.a)) return false;
      c.present = true;
      return true;
    case ColumnType::json: {
      c.a = static_cast<int64_t>(arena.size());
      write_json(e, arena);
      c.b = static_cast<int64_t>(arena.size()) - c.a;
      c.present = true;
      return true;
    }
  }
  return false;
}

constexpr size_t kNoteValueBytes = 64;  // of a misfit value, in its decode_error note

void add_note(std::string& notes, const columns::ColumnSpec& spec, const std::string& label, const element& e) {
  if (!notes.empty()) notes += "; ";
  notes.append("column ").append(spec.name).append(" (").append(label).append("): got ");
  const size_t start = notes.size();
  write_json(e, notes);
  if (notes.size() - start > kNoteValueBytes) {
    size_t cut = start + kNoteValueBytes;
    while (cut > start && (static_cast<unsigned char>(notes[cut]) & 0xC0) == 0x80) --cut;  // whole characters
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

bool parse_date(std::string_view s, int64_t& days) { return s.size() == 10 && date_prefix(s, days); }

bool parse_time(std::string_view s, int64_t& micros) {
  size_t used = 0;
  return time_prefix(s, micros, used) && used == s.size();
}

bool parse_timestamp(std::string_view s, int64_t& micros) {
  int64_t days, time;
  size_t used = 0;
  if (s.size() < 19 || !date_prefix(s, days) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ')) return false;
  const auto rest = s.substr(11);
  if (!time_prefix(rest, time, used)) return false;
  const auto zone = rest.substr(used);
  int64_t offset_minutes = 0;
  if (zone == "Z" || zone == "z" || zone.empty()) {
  } else if ((zone[0] == '+' || zone[0] == '-') && (zone.size() == 6 || zone.size() == 5)) {
    int h, m;
    const size_t at = zone.size() == 6 ? 4 : 3;
    if (!digits(zone, 1, 2, h) || (zone.size() == 6 && zone[3] != ':') || !digits(zone, at, 2, m) || h > 23 || m > 59)
      return false;
    offset_minutes = (zone[0] == '-' ? -1 : 1) * (h * 60 + m);
  } else {
    return false;
  }
  micros = days * 86'400'000'000 + time - offset_minutes * 60'000'000;
  return true;
}

TypedExtractor::TypedExtractor() : parser_(std::make_unique<simdjson::dom::parser>()) {}
TypedExtractor::~TypedExtractor() = default;

void TypedExtractor::extract(std::string_view json, const TypedLayout& layout, TypedCell* cells, std::string& arena,
                             std::string& notes) {
  for (size_t i = 0; i < layout.columns.size(); ++i) cells[i] = TypedCell{};
  element root;
  if (const auto err = parser_->parse(json.data(), json.size()).get(root)) {
    if (!notes.empty()) notes += "; ";
    notes.append("typed columns not filled: the value does not parse as JSON here (")
        .append(simdjson::error_message(err))
        .append(")");
    return;
  }
  for (size_t i = 0; i < layout.columns.size(); ++i) {
    const auto& spec = layout.columns[i];
    if (spec.retired) continue;
    element e = root;
    bool found = true;
    for (const auto& step : spec.path) {
      simdjson::dom::object obj;
      if (e.get(obj) != simdjson::SUCCESS || obj.at_key(step).get(e) != simdjson::SUCCESS) {
        found = false;
        break;
      }
    }
    if (!found || e.is_null()) continue;
    if (!fill(e, spec, cells[i], arena)) {
      cells[i] = TypedCell{};
      add_note(notes, spec, i < layout.labels.size() ? layout.labels[i] : std::string(column_type_name(spec.type)), e);
    }
  }
}

}  // namespace krow::rows
