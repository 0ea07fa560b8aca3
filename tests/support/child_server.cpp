#include "child_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace krow {

namespace {

// The port is the server's first line of output; a server that says nothing in 20 s has
// failed to start.
int read_port(int fd, const std::string& name) {
  std::string line;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    char buf[64];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    line.append(buf, static_cast<size_t>(n));
  }
  const int port = std::atoi(line.c_str());
  if (port <= 0) throw std::runtime_error(name + " did not print its port (got '" + line + "')");
  return port;
}

}  // namespace

ChildServer::ChildServer(std::vector<std::string> argv) {
  const std::string name = argv.size() > 1 ? argv[0] + " " + argv[1] : argv.at(0);
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    throw std::runtime_error("pipe2 failed");
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  const int rc = posix_spawnp(&pid_, argv[0].c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  stdin_ = in[1];
  if (rc != 0) {
    close(out[0]);
    close(stdin_);
    pid_ = -1;
    throw std::runtime_error("cannot start " + name + " (is " + argv[0] + " there?)");
  }
  try {
    port_ = read_port(out[0], name);
  } catch (...) {
    close(out[0]);
    stop();  // no destructor runs for an unfinished constructor
    throw;
  }
  close(out[0]);
}

ChildServer::~ChildServer() {
  stop();
}

void ChildServer::stop() {
  if (stdin_ >= 0) close(stdin_);
  stdin_ = -1;
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 50; ++i) {  // up to 5 s, then no more patience
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace krow
