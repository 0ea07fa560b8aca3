#include "serve/schedule.hpp"

#include <ctime>
#include <sstream>
#include <vector>

#include "manifest/quality.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace krow::serve {

namespace {

const char* const kForms =
    "manual, continuous, every DURATION (such as every 15m) or cron MIN HOUR DAY MONTH WEEKDAY "
    "(such as cron 0 */6 * * *, UTC)";

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, by)) out.push_back(part);
  if (!text.empty() && text.back() == by) out.emplace_back();
  return out;
}

// A field's value: a number, or (months, weekdays) a three-letter name.
std::optional<int> value_of(const std::string& text, const std::vector<std::string>& names, int first) {
  if (const auto n = parse_int64(text); n && *n >= 0 && *n <= 1000) return static_cast<int>(*n);
  for (size_t i = 0; i < names.size(); ++i)
    if (lower_ascii(text) == names[i]) return first + static_cast<int>(i);
  return std::nullopt;
}

// Sets the bits of one cron field ("*/15", "1-5", "mon,wed", ...) within [lo, hi]. False when
// the field is not one.
template <size_t N>
bool read_field(const std::string& field, int lo, int hi, const std::vector<std::string>& names, int first,
                std::bitset<N>& bits, bool& any) {
  any = field == "*";
  for (const auto& item : split(field, ',')) {
    if (item.empty()) return false;
    std::string range = item;
    int step = 1;
    if (const auto slash = item.find('/'); slash != std::string::npos) {
      const auto s = parse_int64(item.substr(slash + 1));
      if (!s || *s < 1 || *s > hi) return false;
      step = static_cast<int>(*s);
      range = item.substr(0, slash);
    }
    int from = lo, to = hi;
    if (range != "*") {
      const auto dash = range.find('-');
      const auto a = value_of(range.substr(0, dash), names, first);
      if (!a) return false;
      from = to = *a;
      if (dash != std::string::npos) {
        const auto b = value_of(range.substr(dash + 1), names, first);
        if (!b) return false;
        to = *b;
      } else if (item.find('/') != std::string::npos) {
        to = hi;  // "a/n": from a to the end, every n
      }
    }
    if (from < lo || to > hi || from > to) return false;
    for (int v = from; v <= to; v += step) bits.set(static_cast<size_t>(v));
  }
  return true;
}

}  // namespace

Schedule Schedule::parse(const std::string& raw, const std::string& where) {
  const std::string text = trim(raw);
  auto refuse = [&](const std::string& why) {
    return Error(ErrorClass::config, where + ": '" + raw + "' is not a schedule" + (why.empty() ? "" : " (" + why + ")") +
                                         "; a schedule is " + kForms);
  };
  Schedule s;
  s.text_ = text;
  if (text == "manual") return s;
  if (text == "continuous") {
    s.kind_ = Kind::continuous;
    return s;
  }
  if (text.rfind("every ", 0) == 0) {
    const auto ms = parse_duration_ms(trim(text.substr(6)));
    if (!ms || *ms < 1000) throw refuse("every takes a duration of at least 1s: 30s, 15m, 6h, 1d");
    s.kind_ = Kind::every;
    s.every_ = std::chrono::milliseconds(*ms);
    return s;
  }
  if (text.rfind("cron ", 0) == 0) {
    std::istringstream in(text.substr(5));
    std::vector<std::string> fields;
    for (std::string f; in >> f;) fields.push_back(f);
    if (fields.size() != 5) throw refuse("cron takes five fields: minute hour day-of-month month weekday");
    static const std::vector<std::string> months{"jan", "feb", "mar", "apr", "may", "jun",
                                                 "jul", "aug", "sep", "oct", "nov", "dec"};
    static const std::vector<std::string> days{"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
    bool any = false;
    std::bitset<8> weekdays;  // 7 is Sunday too, as cron allows
    if (!read_field(fields[0], 0, 59, {}, 0, s.minutes_, any)) throw refuse("minute: 0-59");
    if (!read_field(fields[1], 0, 23, {}, 0, s.hours_, any)) throw refuse("hour: 0-23");
    if (!read_field(fields[2], 1, 31, {}, 0, s.days_, s.any_day_)) throw refuse("day of month: 1-31");
    if (!read_field(fields[3], 1, 12, months, 1, s.months_, any)) throw refuse("month: 1-12 or jan-dec");
    if (!read_field(fields[4], 0, 7, days, 0, weekdays, s.any_weekday_)) throw refuse("weekday: 0-7 or sun-sat");
    for (size_t d = 0; d < 7; ++d) s.weekdays_[d] = weekdays[d];
    if (weekdays[7]) s.weekdays_.set(0);
    s.kind_ = Kind::cron;
    return s;
  }
  throw refuse("");
}

bool Schedule::matches(const std::tm& t) const {
  if (!minutes_[static_cast<size_t>(t.tm_min)] || !hours_[static_cast<size_t>(t.tm_hour)] ||
      !months_[static_cast<size_t>(t.tm_mon + 1)])
    return false;
  const bool day = days_[static_cast<size_t>(t.tm_mday)];
  const bool weekday = weekdays_[static_cast<size_t>(t.tm_wday)];
  if (any_day_ && any_weekday_) return true;
  if (any_day_) return weekday;
  if (any_weekday_) return day;
  return day || weekday;  // both restricted: either, as cron reads them
}

std::optional<Clock::time_point> Schedule::next_after(Clock::time_point t) const {
  if (kind_ == Kind::every) return t + every_;
  if (kind_ != Kind::cron) return std::nullopt;
  // The next whole minute after t, then minute by minute (skipping whole hours and days that
  // cannot match) for at most four years: 29 February on a Monday comes that rarely.
  auto minute = std::chrono::floor<std::chrono::minutes>(t) + std::chrono::minutes(1);
  const auto limit = minute + std::chrono::hours(24 * 366 * 4 + 24);
  while (minute < limit) {
    const std::time_t secs = Clock::to_time_t(minute);
    std::tm utc{};
    gmtime_r(&secs, &utc);
    if (matches(utc)) return minute;
    if (!months_[static_cast<size_t>(utc.tm_mon + 1)] || !hours_[static_cast<size_t>(utc.tm_hour)]) {
      // Jump to the next hour (the month check is redone there).
      minute += std::chrono::minutes(60 - utc.tm_min);
      continue;
    }
    minute += std::chrono::minutes(1);
  }
  return std::nullopt;  // a day that never comes (31 February)
}

}  // namespace krow::serve
