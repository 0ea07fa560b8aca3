#include "columns/column_spec.hpp"

#include <cctype>
#include <charconv>
#include <utility>

namespace krow::columns {

std::string path_text(const std::vector<std::string>& path) {
  if (path.empty()) return "(root)";
  std::string out;
  for (const auto& p : path) {
    if (!out.empty()) out += '.';
    out += p;
  }
  return out;
}

std::string parse_declared_type(std::string_view text, ColumnSpec& out) {
  std::string t;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::pair<const char*, ColumnType> kWords[] = {
      {"boolean", ColumnType::boolean}, {"bool", ColumnType::boolean},     {"integer", ColumnType::int32},
      {"int", ColumnType::int32},       {"int32", ColumnType::int32},      {"bigint", ColumnType::int64},
      {"int64", ColumnType::int64},     {"long", ColumnType::int64},       {"double", ColumnType::float64},
      {"float64", ColumnType::float64}, {"float", ColumnType::float64},    {"real", ColumnType::float32},
      {"float32", ColumnType::float32}, {"text", ColumnType::text},        {"string", ColumnType::text},
      {"varchar", ColumnType::text},    {"bytes", ColumnType::bytes},      {"date", ColumnType::date},
      {"time", ColumnType::time},       {"timestamp", ColumnType::timestamp}, {"timestamptz", ColumnType::timestamp},
      {"json", ColumnType::json},
  };
  for (const auto& [word, type] : kWords)
    if (t == word) {
      out.type = type;
      out.precision = out.scale = 0;
      return "";
    }
  for (const char* word : {"decimal(", "numeric("}) {
    const std::string_view w(word);
    if (t.rfind(w, 0) != 0 || t.back() != ')') continue;
    const auto inner = std::string_view(t).substr(w.size(), t.size() - w.size() - 1);
    const auto comma = inner.find(',');
    int p = 0, s = 0;
    const auto digits = [](std::string_view v, int& n) {
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      return ec == std::errc() && end == v.data() + v.size() && !v.empty();
    };
    if (comma == std::string_view::npos || !digits(inner.substr(0, comma), p) || !digits(inner.substr(comma + 1), s) ||
        p < 1 || p > kMaxDecimalPrecision || s < 0 || s > p)
      return "decimal needs a precision from 1 to 38 and a scale from 0 to the precision: decimal(12,2)";
    out.type = ColumnType::decimal;
    out.precision = p;
    out.scale = s;
    return "";
  }
  return "'" + std::string(text) +
         "' is no column type: write boolean, integer, bigint, double, real, decimal(p,s), text, bytes, date, time, "
         "timestamp or json";
}

std::string declared_type(const ColumnSpec& c) {
  switch (c.type) {
    case ColumnType::boolean: return "boolean";
    case ColumnType::int32: return "integer";
    case ColumnType::int64: return "bigint";
    case ColumnType::uint64: return "uint64";
    case ColumnType::float32: return "real";
    case ColumnType::float64: return "double";
    case ColumnType::decimal: return "decimal(" + std::to_string(c.precision) + "," + std::to_string(c.scale) + ")";
    case ColumnType::text: return "text";
    case ColumnType::bytes: return "bytes";
    case ColumnType::date: return "date";
    case ColumnType::time: return "time";
    case ColumnType::timestamp: return "timestamp";
    case ColumnType::json: return "json";
  }
  return "json";
}

}  // namespace krow::columns
