#include "manifest/bounds.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

#include "util/text.hpp"

namespace krow {

const std::vector<BoundSetting>& bound_settings() {
  static const std::vector<BoundSetting> settings{
      {"max_messages", "--max-messages", "N",
       "At most N messages in this run, shared evenly over the partitions that have messages to read (the "
       "remainder to the first partitions by topic name and partition number); the next sync continues where "
       "this one stopped"},
      {"max_messages_per_partition", "--max-messages-per-partition", "N",
       "At most N messages from each partition in this run"},
      {"until_offset", "--until-offset", "OFFSET",
       "Read each partition up to, not including, this offset (a partition already past it reads nothing)"},
      {"until", "--until", "TIME",
       "Read each partition up to its first message stamped at or after this ISO 8601 time (e.g. "
       "2026-03-01T00:00:00Z), as Kafka's offsets-for-times finds it"},
      {"start_from", "--start-from", "WHERE",
       "Where the partitions of a topic this sync has no stored position for start: earliest (the log start, "
       "default), latest (the last stable offset now: only messages produced from now on), or an ISO 8601 time "
       "(the first message stamped at or after it); partitions added later to a synced topic start at their "
       "log start"},
  };
  return settings;
}

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

constexpr const char* kTimeExample =
    "e.g. 2026-03-01T12:00:00Z, or 2026-03-01T14:00:00+02:00, or a date such as 2026-03-01 for midnight UTC";

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

unsigned days_in_month(int64_t y, unsigned m) {
  static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : days[m - 1];
}

std::optional<int64_t> whole_number(const std::string& text) {
  static const std::regex re(R"(^\s*(\d{1,18})\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  return std::stoll(m[1]);
}

std::string count_error(const std::string& key, const std::string& value, int64_t min) {
  return "'" + key + "' must be a whole number of at least " + std::to_string(min) + " (e.g. 1000), not '" +
         value + "'";
}

}  // namespace

std::optional<int64_t> parse_iso_time_ms(const std::string& text) {
  static const std::regex re(
      R"(^\s*(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2}))?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  const int64_t year = std::stoll(m[1]);
  const auto month = static_cast<unsigned>(std::stoul(m[2]));
  const auto day = static_cast<unsigned>(std::stoul(m[3]));
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) return std::nullopt;
  int64_t seconds = days_from_civil(year, month, day) * 86400;
  int64_t millis = 0;
  if (m[4].matched) {
    const int64_t hour = std::stoll(m[4]), minute = std::stoll(m[5]);
    const int64_t second = m[6].matched ? std::stoll(m[6]) : 0;
    if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
    seconds += hour * 3600 + minute * 60 + second;
    if (m[7].matched) millis = std::stoll((m[7].str() + "00").substr(0, 3));
    const std::string zone = m[8];
    if (zone != "Z" && zone != "z") {
      const std::string digits = zone.substr(1, 2) + zone.substr(zone.size() - 2);
      const int64_t zh = std::stoll(digits.substr(0, 2)), zm = std::stoll(digits.substr(2));
      if (zh > 23 || zm > 59) return std::nullopt;
      // 14:00+02:00 is 12:00 UTC.
      seconds -= (zone[0] == '+' ? 1 : -1) * (zh * 3600 + zm * 60);
    }
  }
  if (seconds < 0) return std::nullopt;
  return seconds * 1000 + millis;
}

std::string set_bound(BoundsConfig& b, const std::string& key, const std::string& value) {
  if (key == "max_messages" || key == "max_messages_per_partition") {
    const auto n = whole_number(value);
    if (!n || *n < 1) return count_error(key, value, 1);
    (key == "max_messages" ? b.max_messages : b.max_messages_per_partition) = *n;
    return {};
  }
  if (key == "until_offset") {
    const auto n = whole_number(value);
    if (!n) return count_error(key, value, 0);
    b.until_offset = Offset(*n);
    return {};
  }
  if (key == "until") {
    const auto ms = parse_iso_time_ms(value);
    if (!ms)
      return "'until' must be an ISO 8601 time with a time zone (" + std::string(kTimeExample) + "), not '" + value +
             "'";
    b.until_ms = *ms;
    b.until_text = trim(value);
    return {};
  }
  if (key == "start_from") {
    const auto v = lower_ascii(trim(value));
    if (v == "earliest" || v == "latest") {
      b.start_from = StartFrom{v == "earliest" ? StartFrom::Kind::earliest : StartFrom::Kind::latest, 0, v};
      return {};
    }
    const auto ms = parse_iso_time_ms(value);
    if (!ms)
      return "'start_from' must be earliest, latest or an ISO 8601 time with a time zone (" +
             std::string(kTimeExample) + "), not '" + value + "'";
    b.start_from = StartFrom{StartFrom::Kind::time, *ms, trim(value)};
    return {};
  }
  return "unknown bound '" + key + "'";
}

std::vector<int64_t> share_out(int64_t total, const std::vector<int64_t>& available) {
  std::vector<int64_t> out(available.size(), 0);
  std::vector<size_t> open;  // partitions that can take more, in plan order
  for (size_t i = 0; i < available.size(); ++i)
    if (available[i] > 0) open.push_back(i);
  int64_t left = std::max<int64_t>(total, 0);
  while (left > 0 && !open.empty()) {
    const int64_t each = left / static_cast<int64_t>(open.size());
    if (each == 0) {  // fewer left than partitions: one more each to the first ones
      for (size_t k = 0; k < open.size() && left > 0; ++k, --left) ++out[open[k]];
      break;
    }
    for (const size_t i : open) {
      const int64_t give = std::min(each, available[i] - out[i]);
      out[i] += give;
      left -= give;
    }
    std::erase_if(open, [&](size_t i) { return out[i] >= available[i]; });
  }
  return out;
}

}  // namespace krow
