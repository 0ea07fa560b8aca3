#include "util/files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/error.hpp"

namespace krow {

void require_readable_file(const std::string& path, const std::string& setting, const std::string& what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  std::string problem;
  if (!std::filesystem::exists(status)) problem = "does not exist";
  else if (std::filesystem::is_directory(status)) problem = "is a folder, not a file";
  else if (::access(path.c_str(), R_OK) != 0) problem = std::string("cannot be read (") + std::strerror(errno) + ")";
  if (problem.empty()) return;
  throw Error(ErrorClass::config, setting + " '" + path + "' " + problem + ": it must name " + what);
}

}  // namespace krow
