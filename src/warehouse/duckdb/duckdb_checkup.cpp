#include "warehouse/duckdb/duckdb_checkup.hpp"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/error.hpp"
#include "warehouse/duckdb/duckdb_settings.hpp"
#include "warehouse/duckdb/duckdb_warehouse.hpp"

namespace krow {

namespace {

namespace fs = std::filesystem;

// Empty when a file can be created in `folder`; else why not.
std::string cannot_write_in(const fs::path& folder) {
  std::string name = (folder / ".krow-doctor-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(name.c_str());
  return {};
}

}  // namespace

WarehouseCheckup check_duckdb(const WarehouseConfig& config, const std::string& sync_id) {
  WarehouseCheckup out;
  const auto& path = config.settings_as<DuckDBSettings>().path;
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const std::string name = "warehouse folder " + folder.string();
  const std::string choose =
      "choose a warehouse.path in a folder that the user running krow can write";
  std::error_code ec;

  // The deepest part of the folder's path that exists: krow creates the rest.
  fs::path existing = folder;
  while (!fs::exists(existing, ec) && existing.has_parent_path() &&
         existing != existing.parent_path())
    existing = existing.parent_path();
  if (!fs::is_directory(existing, ec)) {
    out.checks.push_back(Check::fail(name,
                                     existing.string() + " is a file, not a folder, so " +
                                         folder.string() + " cannot be created",
                                     "move that file away or " + choose));
    out.skipped = "warehouse file: its folder cannot be made";
    return out;
  }
  if (const auto why = cannot_write_in(existing); !why.empty()) {
    out.checks.push_back(Check::fail(
        name, "cannot create a file in " + existing.string() + " (" + why + ")",
        "give the user running krow write access to " + existing.string() + ", or " + choose));
    out.skipped = "warehouse file: its folder is not writable";
    return out;
  }
  out.checks.push_back(Check::pass(name, existing == folder
                                             ? "exists and is writable"
                                             : "does not exist yet; krow creates it in " +
                                                   existing.string() + ", which is writable"));
  struct statvfs vfs {};
  if (::statvfs(existing.c_str(), &vfs) == 0) {
    out.free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    out.free_where = existing.string();
  }

  const std::string file = "warehouse file " + path.filename().string();
  if (!fs::exists(path, ec)) {
    out.checks.push_back(
        Check::pass(file, "not created yet: the first sync creates " + path.string()));
    out.usable = true;
    return out;
  }
  if (fs::is_directory(path, ec)) {
    out.checks.push_back(Check::fail(file, path.string() + " is a folder",
                                     "warehouse.path must name a file: " + choose));
    return out;
  }
  if (::access(path.c_str(), R_OK | W_OK) != 0) {
    out.checks.push_back(Check::fail(
        file, "cannot read and write " + path.string() + " (" + std::strerror(errno) + ")",
        "give the user running krow read and write access to it"));
    return out;
  }
  try {
    auto warehouse = DuckDBWarehouse(config, sync_id, OpenMode::read_only);
    const auto positions = warehouse.positions(sync_id);
    out.checks.push_back(
        Check::pass(file, "opens as a DuckDB database; " + std::to_string(positions.size()) +
                              " partition position(s) stored for sync '" + sync_id + "'"));
    out.usable = true;
  } catch (const Error& e) {
    out.checks.push_back(Check::fail(
        file, e.said(),
        e.fix().empty()
            ? "if a sync is running, wait for it; if the file is not a DuckDB database, " + choose
            : e.fix()));
  }
  return out;
}

}  // namespace krow
