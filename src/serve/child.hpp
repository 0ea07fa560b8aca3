#pragma once
// The processes `krow serve` starts: this same binary, as `krow sync`, `krow resync` or
// `krow plan` would run from the command line. A child takes none of the service's
// descriptors (cpp-httplib's sockets are not close-on-exec: a run outliving a killed service
// would keep its listening port) and gets SIGTERM when the service ends, however it ends.
//
// Thread: any.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace krow::serve {

// Starts `args` (args[0] the program) with standard input from /dev/null and standard output
// and error to `out_fd`; its pid, or -1 when fork failed. `out_fd` stays the caller's.
pid_t spawn_child(std::vector<std::string> args, int out_fd);

// Runs `args` to its end and returns what it printed (standard output and error together, at
// most `max_output` bytes kept) and its exit code; killed after `timeout` (exit code -1 then).
struct ChildOutput {
  int exit_code = -1;
  std::string output;
  bool timed_out = false;
};
ChildOutput run_child(std::vector<std::string> args, std::chrono::seconds timeout,
                      size_t max_output = 1 << 20);

}  // namespace krow::serve
