#pragma once
// The progress line drawn on a terminal while a sync runs: topics, messages and rate, and
// the slowest partition's position against its boundary. Silent when stderr is not a
// terminal or when disabled.

#include <chrono>
#include <cstdint>
#include <string>

namespace krow {

class Progress {
 public:
  Progress(bool enabled, int64_t total_messages, size_t topics);
  ~Progress();

  // Redraws at most a few times a second; cheap to call on every poll.
  void update(int64_t messages, size_t topics_done, const std::string& focus);
  // Clears the line so that the next output starts clean.
  void finish();

 private:
  bool enabled_;
  int64_t total_;
  size_t topics_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

}  // namespace krow
