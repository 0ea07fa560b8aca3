#include "report/run_artifacts.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/error.hpp"

namespace krow {

namespace fs = std::filesystem;

namespace {

// Closes a file descriptor on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now, so that a failing close (NFS reports write errors there) is seen.
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

[[noreturn]] void cannot_write(const fs::path& folder, const std::string& why) {
  throw Error(ErrorClass::fatal_run,
              "could not write the run artifact in " + folder.string() + " (" + why + "); make that folder a "
              "writable directory (a file named .krow beside the manifest is in the way, say), or ignore this: the "
              "run's outcome and its record in the warehouse (`krow status`) are unaffected");
}

// Writes `text` to `file` through a temporary file in the same folder and a rename, so that
// a reader (or a crash) never sees half a file. Synced before the rename: a record that
// survives a power cut is whole.
void write_atomically(const fs::path& file, const std::string& text) {
  const auto tmp = file.parent_path() / ("." + file.filename().string() + ".tmp" + std::to_string(::getpid()));
  auto fail = [&](const char* step) {
    const std::string why = std::string(step) + ": " + std::strerror(errno);
    std::error_code ignored;
    fs::remove(tmp, ignored);
    cannot_write(file.parent_path(), why);
  };
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) fail("create");
  for (size_t done = 0; done < text.size();) {
    const auto n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write");
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd.get()) != 0) fail("fsync");
  if (fd.close() != 0) fail("close");
  if (std::rename(tmp.c_str(), file.c_str()) != 0) fail("rename");
}

bool is_record_file(const fs::directory_entry& e) {
  std::error_code ec;
  return e.is_regular_file(ec) && e.path().extension() == ".json" && e.path().filename().string()[0] != '.';
}

}  // namespace

fs::path runs_root(const fs::path& manifest_file) {
  // Absolute, so that messages name a folder the user can find whatever their directory.
  std::error_code ec;
  auto dir = manifest_file.has_parent_path() ? manifest_file.parent_path() : fs::path(".");
  auto absolute = fs::absolute(dir, ec);
  return (ec ? dir : absolute.lexically_normal()) / ".krow" / "runs";
}

void write_run_artifacts(const fs::path& root, const std::string& sync_id, const std::string& run_id,
                         const std::string& record_json) {
  const auto folder = root / sync_id;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) cannot_write(folder, ec.message());
  write_atomically(folder / (run_id + ".md"), render_run_summary(record_json));
  write_atomically(folder / (run_id + ".json"), record_json + "\n");
}

std::vector<RunListing> list_runs(const fs::path& root, const std::string& sync_id) {
  std::vector<fs::path> folders;
  std::error_code ec;
  if (!sync_id.empty()) folders.push_back(root / sync_id);
  else
    for (const auto& e : fs::directory_iterator(root, ec))
      if (e.is_directory(ec)) folders.push_back(e.path());
  std::vector<RunListing> runs;
  for (const auto& folder : folders)
    for (const auto& e : fs::directory_iterator(folder, ec)) {
      if (!is_record_file(e)) continue;
      RunListing r;
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      if (!parse_run_listing(text.str(), r)) continue;
      r.file = e.path().string();
      runs.push_back(std::move(r));
    }
  // Run IDs start with their UTC start second, so they break ties in the same order.
  std::sort(runs.begin(), runs.end(), [](const RunListing& a, const RunListing& b) {
    return a.started_at_ms != b.started_at_ms ? a.started_at_ms > b.started_at_ms : a.run_id > b.run_id;
  });
  return runs;
}

std::optional<fs::path> find_run(const fs::path& root, const std::string& sync_id, const std::string& run_id) {
  // A run ID is a file name, never a path: `runs show ../../x` must not read elsewhere.
  if (run_id.empty() || run_id.find('/') != std::string::npos || run_id[0] == '.') return std::nullopt;
  std::error_code ec;
  if (!sync_id.empty()) {
    const auto file = root / sync_id / (run_id + ".json");
    if (fs::is_regular_file(file, ec)) return file;
    return std::nullopt;
  }
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const auto file = e.path() / (run_id + ".json");
    if (fs::is_regular_file(file, ec)) return file;
  }
  return std::nullopt;
}

std::string read_text_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ErrorClass::fatal_run, "cannot read " + file.string() + ": " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace krow
