#pragma once
// An exclusive advisory lock on a file (flock), held for the object's lifetime. The file
// keeps the holder's pid so that a refused process can say who holds it.

#include <filesystem>
#include <string>

namespace krow {

class FileLock {
 public:
  // Throws Error(fatal_run) when another process holds the lock; `what` names the work
  // that is locked, for the message.
  FileLock(const std::filesystem::path& path, const std::string& what);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace krow
