#include "serve/child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace krow::serve {

pid_t spawn_child(std::vector<std::string> args, int out_fd) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  rlimit files{};
  const int max_fd = getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < 65536
                         ? static_cast<int>(files.rlim_cur)
                         : 65536;
  const pid_t pid = fork();
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);  // the service ended meanwhile
    const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) dup2(null, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    // Nothing else of the service goes with it: above all not its listening socket.
    if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
      for (int other = 3; other < max_fd; ++other) ::close(other);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

ChildOutput run_child(std::vector<std::string> args, std::chrono::seconds timeout,
                      size_t max_output) {
  ChildOutput out;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return out;
  const pid_t pid = spawn_child(std::move(args), pipe_fds[1]);
  ::close(pipe_fds[1]);
  if (pid < 0) {
    ::close(pipe_fds[0]);
    return out;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[8192];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      out.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{pipe_fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000))) < 0 && errno != EINTR) break;
    if (p.revents == 0) continue;
    const ssize_t n = ::read(pipe_fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (out.output.size() < max_output)
      out.output.append(buf, std::min(static_cast<size_t>(n), max_output - out.output.size()));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!out.timed_out && WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  return out;
}

}  // namespace krow::serve
