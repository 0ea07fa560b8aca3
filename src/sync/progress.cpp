#include "sync/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "util/text.hpp"

namespace krow {

Progress::Progress(bool enabled, int64_t total_messages, size_t topics)
    : enabled_(enabled && ::isatty(STDERR_FILENO)),
      total_(total_messages),
      topics_(topics),
      start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { finish(); }

void Progress::update(int64_t messages, size_t topics_done, const std::string& focus) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  drawn_ = true;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const auto rate = secs > 0 ? static_cast<uint64_t>(static_cast<double>(messages) / secs) : 0;
  const int pct = total_ > 0 ? static_cast<int>(100.0 * static_cast<double>(messages) / static_cast<double>(total_)) : 100;
  std::fprintf(stderr, "\r\033[Ksyncing: topics %zu/%zu · %s/%s offsets (%d%%) · %s msg/s%s%s", topics_done,
               topics_, with_thousands(static_cast<uint64_t>(messages)).c_str(),
               with_thousands(static_cast<uint64_t>(total_)).c_str(), pct > 100 ? 100 : pct,
               with_thousands(rate).c_str(), focus.empty() ? "" : " · ", focus.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (enabled_ && drawn_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace krow
