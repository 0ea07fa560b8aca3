#pragma once
// A helper server a test owns as a child process: a script that binds 127.0.0.1 on a port the
// system picks and prints that port as the first line of its stdout (garbage_registry.py,
// tests/bigquery/token_server.py). Started by the constructor, stopped by the destructor
// whatever the test did (stdin closed, SIGTERM, then SIGKILL if it lingers), so no server
// outlives its test; a test process that dies closes the server's stdin, which such scripts
// take as their cue to stop too.
// Thread: one thread at a time per object.

#include <sys/types.h>

#include <string>
#include <vector>

namespace krow {

class ChildServer {
 public:
  // `argv[0]` is looked up on PATH unless it holds a '/'. Throws std::runtime_error when the
  // program cannot start or prints no port within 20 s (naming `argv[0]` and the script).
  explicit ChildServer(std::vector<std::string> argv);
  ~ChildServer();
  ChildServer(const ChildServer&) = delete;
  ChildServer& operator=(const ChildServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  void stop();

  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
};

}  // namespace krow
