#include "util/process.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <fstream>

namespace krow {

std::string this_host() {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) return {};
  return host;
}

bool process_alive(int64_t pid) {
  if (pid <= 0 || pid > INT_MAX) return false;
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

std::string process_name(int64_t pid) {
  if (pid <= 0 || pid > INT_MAX) return {};
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

std::string describe_process(int64_t pid) {
  const auto name = process_name(pid);
  return "pid " + std::to_string(pid) + (name.empty() ? "" : " (" + name + ")");
}

}  // namespace krow
