#include "warehouse/duckdb/file_lock.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "util/error.hpp"

namespace krow {
namespace {

TEST(FileLock, SecondHolderIsRefusedWithThePidOfTheFirst) {
  const auto path = std::filesystem::temp_directory_path() / ("krow-lock-" + std::to_string(::getpid()));
  {
    FileLock first(path, "another sync of 'x'");
    try {
      FileLock second(path, "another sync of 'x'");
      FAIL() << "the second lock was granted";
    } catch (const Error& e) {
      EXPECT_EQ(e.error_class(), ErrorClass::transient);  // exit code 75: try again later
      const std::string msg = e.what();
      EXPECT_NE(msg.find("another sync of 'x' is already running"), std::string::npos) << msg;
      EXPECT_NE(msg.find("pid " + std::to_string(::getpid())), std::string::npos) << msg;
    }
  }
  // Released on destruction.
  EXPECT_NO_THROW(FileLock again(path, "x"));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace krow
