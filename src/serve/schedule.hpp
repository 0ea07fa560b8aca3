#pragma once
// When `krow serve` runs a sync (docs/serve.md): `manual` (only when asked), `continuous` (one
// `krow sync --follow` kept running), `every DURATION` (a run that often, counted from the
// start of the previous one), or `cron MIN HOUR DAY MONTH WEEKDAY` (five fields, UTC, as cron
// reads them: `*`, numbers, ranges `a-b`, steps `*/n` and `a-b/n`, lists `a,b`; months and
// weekdays also by three-letter name; when both day of month and weekday are restricted, a
// day matching either matches).
//
// Pure: no clock is read here; callers pass the time.

#include <array>
#include <bitset>
#include <ctime>
#include <chrono>
#include <optional>
#include <string>

namespace krow::serve {

using Clock = std::chrono::system_clock;

class Schedule {
 public:
  enum class Kind { manual, continuous, every, cron };

  // Throws Error(config) naming `where` ("server.yaml:12: syncs.orders.schedule") and the forms
  // it takes.
  static Schedule parse(const std::string& text, const std::string& where);

  Kind kind() const { return kind_; }
  const std::string& text() const { return text_; }

  // The first run due strictly after `t` for `every` (t + the interval) and `cron` (the next
  // matching minute); none for `manual` and `continuous`.
  std::optional<Clock::time_point> next_after(Clock::time_point t) const;

 private:
  bool matches(const std::tm& utc) const;

  Kind kind_ = Kind::manual;
  std::string text_;
  std::chrono::milliseconds every_{0};
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;      // 1..31
  std::bitset<13> months_;    // 1..12
  std::bitset<7> weekdays_;   // 0 = Sunday
  bool any_day_ = true, any_weekday_ = true;
};

}  // namespace krow::serve
