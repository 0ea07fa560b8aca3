// `krow serve --config server.yaml`: hosts syncs on their schedules (docs/serve.md) until
// SIGTERM or SIGINT.

#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>

#include "commands/command.hpp"
#include "secrets/credentials.hpp"
#include "serve/api.hpp"
#include "serve/serve_config.hpp"
#include "serve/serve_store.hpp"
#include "serve/service.hpp"

namespace krow::commands {

namespace {

std::atomic<bool> g_stop_serving{false};

void on_signal(int) {
  g_stop_serving.store(true);
}

// One line of standard input; without echo when it is a terminal (the prompt on stderr).
std::string read_password_line(const char* prompt) {
  const bool tty = isatty(STDIN_FILENO) != 0;
  termios before{};
  if (tty) {
    std::fprintf(stderr, "%s", prompt);
    tcgetattr(STDIN_FILENO, &before);
    termios quiet = before;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
  }
  std::string line;
  std::getline(std::cin, line);
  if (tty) {
    tcsetattr(STDIN_FILENO, TCSANOW, &before);
    std::fprintf(stderr, "\n");
  }
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class ServeCommand final : public Command {
 public:
  explicit ServeCommand(CLI::App& app)
      : Command(app.add_subcommand("serve", "Host syncs on their schedules, with health checks and Prometheus metrics")) {
    app_->add_option("--config", config_,
                     "The service's config (YAML): listen, state, syncs and their schedules")
        ->check(CLI::ExistingFile);
    app_->require_subcommand(0, 1);
    add_user_ = app_->add_subcommand("add-user",
                                     "Create a user of the service (the first admin, say); the "
                                     "password is read from standard input");
    add_user_->add_option("name", user_, "User name: letters, digits, '.', '_', '-' or '@'")
        ->required();
    add_user_->add_option("--role", role_, "admin, editor or viewer")
        ->check(CLI::IsMember({"admin", "editor", "viewer"}))
        ->required();
    add_user_
        ->add_option("--config", config_, "The service's config (YAML), which names its state file")
        ->check(CLI::ExistingFile)
        ->required();
    create_token_ = app_->add_subcommand(
        "create-token",
        "Create an API token for automation and print it (once: only its digest is kept)");
    create_token_->add_option("name", user_, "What the token is for, e.g. ci-deploys")->required();
    create_token_->add_option("--role", role_, "admin, editor or viewer")
        ->check(CLI::IsMember({"admin", "editor", "viewer"}))
        ->required();
    create_token_
        ->add_option("--config", config_, "The service's config (YAML), which names its state file")
        ->check(CLI::ExistingFile)
        ->required();
    // One literal per line of the help text.
    // clang-format off
    app_->footer(
        "Each hosted sync runs as `krow sync` would, as a process of its own, at most one at a time per sync:\n"
        "schedule: manual, continuous (krow sync --follow kept running), every 15m, or cron 0 */6 * * * (UTC).\n"
        "A run missed while the service was down runs once when it starts. GET /livez, /readyz and /metrics\n"
        "answer on `listen` (127.0.0.1:8470 by default), with the REST API under /api/v1 (docs/openapi.yaml).\n"
        "SIGTERM stops it: runs under way commit what they read. The first admin: `krow serve add-user NAME\n"
        "--role admin --config FILE`, the password on standard input. See docs/serve.md.");
    // clang-format on
  }

  int run() override {
    if (*add_user_) return add_user();
    if (*create_token_) return create_token();
    if (config_.empty())
      throw Error(ErrorClass::config,
                  "krow serve needs --config FILE (the service's config); see docs/serve.md");
    const auto config = serve::load_serve_config(config_);
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    serve::serve(config, g_stop_serving);
    return kExitOk;
  }

 private:
  int add_user() {
    if (!serve::valid_user_name(user_))
      throw Error(
          ErrorClass::config,
          "a user name has 1 to 64 letters, digits, '.', '_', '-' or '@', not '" + user_ + "'");
    const auto config = serve::load_serve_config(config_);
    const auto password = read_password_line("password: ");
    if (isatty(STDIN_FILENO) && read_password_line("again: ") != password)
      throw Error(ErrorClass::config, "the two passwords differ; nothing was saved");
    if (password.size() < 12)
      throw Error(ErrorClass::config,
                  "the password (read from standard input) has fewer than 12 characters; choose a "
                  "longer one");
    serve::ServeStore store(config.state);
    const serve::User u{user_, *serve::parse_role(role_), hash_password(password), now_ms()};
    if (!store.add_user(u))
      throw Error(ErrorClass::config, "a user '" + user_ +
                                          "' exists already; an admin changes it with PUT "
                                          "/api/v1/users/" +
                                          user_);
    store.audit(
        serve::AuditEntry{0, now_ms(), "command line", "user.create", user_, "ok", "local"});
    std::printf("created user '%s' (%s) in %s\n", user_.c_str(), role_.c_str(),
                config.state.c_str());
    return kExitOk;
  }

  int create_token() {
    const auto config = serve::load_serve_config(config_);
    serve::ServeStore store(config.state);
    auto [token, t] = serve::new_token(user_, *serve::parse_role(role_), "command line");
    store.add_token(t);
    store.audit(
        serve::AuditEntry{0, now_ms(), "command line", "token.create", t.id, "ok", "local"});
    std::fprintf(stderr, "created token %s (%s) for '%s'; it is shown this once:\n", t.id.c_str(),
                 role_.c_str(), user_.c_str());
    std::printf("%s\n", token.c_str());
    return kExitOk;
  }

  std::string config_;
  std::string user_, role_;
  CLI::App* add_user_ = nullptr;
  CLI::App* create_token_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> add_serve(CLI::App& app) {
  return std::make_unique<ServeCommand>(app);
}

}  // namespace krow::commands
