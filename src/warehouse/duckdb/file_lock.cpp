#include "warehouse/duckdb/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.hpp"

namespace krow {

FileLock::FileLock(const std::filesystem::path& path, const std::string& what) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw Error(ErrorClass::fatal_run,
                "cannot create lock file " + path.string() + ": " + std::strerror(errno) +
                    "; give the user running krow write access to that folder (or change "
                    "warehouse.path)");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    const auto n = ::pread(fd_, buf, sizeof buf - 1, 0);
    ::close(fd_);
    fd_ = -1;
    std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "unknown";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    // The OS drops a flock with its holder's last descriptor, kill -9 included: the holder runs.
    throw Error(ErrorClass::transient,
                what + " is already running (pid " + holder +
                    "): run this one again once it has finished (exit code 75: try again "
                    "later), or stop it first");
  }
  const auto pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, pid.data(), pid.size(), 0);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

std::optional<int64_t> posix_lock_holder(const std::filesystem::path& path, bool exclusive) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct flock probe {};
  probe.l_type = exclusive ? F_WRLCK : F_RDLCK;
  probe.l_whence = SEEK_SET;
  probe.l_start = 0;
  probe.l_len = 0;  // the whole file
  const int rc = ::fcntl(fd, F_GETLK, &probe);
  ::close(fd);
  if (rc != 0 || probe.l_type == F_UNLCK) return std::nullopt;
  return probe.l_pid > 0 ? static_cast<int64_t>(probe.l_pid) : 0;
}

}  // namespace krow
