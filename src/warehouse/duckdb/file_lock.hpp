#pragma once
// An exclusive advisory lock on a file (flock), held for the object's lifetime. The file
// keeps the holder's pid so that a refused process can say who holds it. And, for the
// DuckDB file itself: which process holds a lock on it, as the OS tells.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace krow {

class FileLock {
 public:
  // Throws Error(transient: try again later) naming the holder when another process holds the
  // lock, Error(fatal_run) when the lock file cannot be made; `what` names the work that is
  // locked, for the message.
  FileLock(const std::filesystem::path& path, const std::string& what);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

// Another process's POSIX record lock (fcntl) on `path` that keeps this process from taking
// one — a write lock when `exclusive` is false, any lock when it is true — as the OS reports
// it (F_GETLK): the holder's pid, or 0 when the OS does not say (an open file description
// lock). nullopt when there is none, or the file cannot be opened. DuckDB locks its files
// this way: a writer exclusively, a read-only reader shared. Locks of this process are never
// reported, and this process must not hold one on `path` (closing the descriptor used here
// would drop it).
std::optional<int64_t> posix_lock_holder(const std::filesystem::path& path, bool exclusive);

}  // namespace krow
