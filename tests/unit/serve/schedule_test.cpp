// Schedules of `krow serve` (src/serve/schedule): the forms it takes, the ones it refuses
// naming what it takes, and when each next run falls (cron's rules, UTC).

#include <gtest/gtest.h>

#include <ctime>

#include "serve/schedule.hpp"
#include "util/error.hpp"

namespace krow::serve {
namespace {

Clock::time_point utc(int year, int month, int day, int hour, int minute, int second = 0) {
  std::tm t{};
  t.tm_year = year - 1900;
  t.tm_mon = month - 1;
  t.tm_mday = day;
  t.tm_hour = hour;
  t.tm_min = minute;
  t.tm_sec = second;
  return Clock::from_time_t(timegm(&t));
}

Clock::time_point next(const std::string& schedule, Clock::time_point after) {
  const auto n = Schedule::parse(schedule, "test").next_after(after);
  EXPECT_TRUE(n.has_value()) << schedule;
  return n.value_or(Clock::time_point{});
}

TEST(Schedule, ManualAndContinuousHaveNoNextTime) {
  EXPECT_EQ(Schedule::parse("manual", "t").kind(), Schedule::Kind::manual);
  EXPECT_FALSE(Schedule::parse("manual", "t").next_after(Clock::now()));
  EXPECT_EQ(Schedule::parse(" continuous ", "t").kind(), Schedule::Kind::continuous);
  EXPECT_FALSE(Schedule::parse("continuous", "t").next_after(Clock::now()));
}

TEST(Schedule, EveryCountsFromTheGivenTime) {
  const auto t = utc(2026, 12, 5, 10, 7, 13);
  EXPECT_EQ(next("every 15m", t), t + std::chrono::minutes(15));
  EXPECT_EQ(next("every 30s", t), t + std::chrono::seconds(30));
  EXPECT_EQ(next("every 1d", t), t + std::chrono::hours(24));
}

TEST(Schedule, CronFollowsCronsRulesInUtc) {
  const auto t = utc(2026, 12, 5, 10, 7, 13);  // a Saturday
  EXPECT_EQ(next("cron * * * * *", t), utc(2026, 12, 5, 10, 8));
  EXPECT_EQ(next("cron 0 */6 * * *", t), utc(2026, 12, 5, 12, 0));
  EXPECT_EQ(next("cron 30 9 * * *", t), utc(2026, 12, 6, 9, 30));
  EXPECT_EQ(next("cron 0 9 * * mon-fri", t), utc(2026, 12, 7, 9, 0));   // Monday
  EXPECT_EQ(next("cron 0 0 1 jan *", t), utc(2027, 1, 1, 0, 0));
  EXPECT_EQ(next("cron 0 0 29 2 *", t), utc(2028, 2, 29, 0, 0));       // the next leap day
  EXPECT_EQ(next("cron 15,45 * * * *", t), utc(2026, 12, 5, 10, 15));
  EXPECT_EQ(next("cron 0 12 * * 7", t), utc(2026, 12, 6, 12, 0));       // 7 is Sunday too
  // Day of month and weekday both restricted: either matches.
  EXPECT_EQ(next("cron 0 0 13 * fri", t), utc(2026, 12, 11, 0, 0));     // Friday the 11th first
  // Exactly on a matching minute: the next one, not the same.
  EXPECT_EQ(next("cron 0 12 * * *", utc(2026, 12, 5, 12, 0)), utc(2026, 12, 6, 12, 0));
}

TEST(Schedule, WhatIsNotAScheduleIsRefusedNamingTheForms) {
  for (const char* bad : {"", "hourly", "every", "every 0s", "every 500ms", "every soon", "cron * * * *",
                          "cron 60 * * * *", "cron * 24 * * *", "cron * * 0 * *", "cron * * * 13 *",
                          "cron * * * * 8", "cron */0 * * * *", "cron 5-1 * * * *", "cron a * * * *",
                          "cron 1,,2 * * * *"}) {
    try {
      Schedule::parse(bad, "server.yaml:4: syncs[0].schedule");
      ADD_FAILURE() << "'" << bad << "' was taken";
    } catch (const Error& e) {
      EXPECT_EQ(e.error_class(), ErrorClass::config) << bad;
      const std::string what = e.what();
      EXPECT_NE(what.find("server.yaml:4: syncs[0].schedule"), std::string::npos) << what;
      EXPECT_NE(what.find("manual, continuous, every DURATION"), std::string::npos) << what;
    }
  }
}

TEST(Schedule, ADayThatNeverComesHasNoNextTime) {
  EXPECT_FALSE(Schedule::parse("cron 0 0 31 2 *", "t").next_after(utc(2026, 1, 1, 0, 0)));
}

}  // namespace
}  // namespace krow::serve
