#pragma once
// `krow serve`'s HTTP side (docs/serve.md, docs/openapi.yaml): the REST API under /api/v1,
// its credentials (API tokens, console sessions with CSRF tokens), roles and audit log, and
// the plain routes /livez, /readyz and /metrics. Over TLS when the config names a
// certificate and key (cpp-httplib's SSLServer).
//
// Every answer of the API is JSON; an error is {"error": {"code", "message", "fix"}}, its
// message the sentence the command line would print. No answer, log line or audit entry holds
// a password, a token, a session secret or a source's credentials.
//
// Thread: construct and destroy on one thread; requests are served on the server's own.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "serve/scheduler.hpp"
#include "serve/serve_config.hpp"
#include "serve/serve_store.hpp"

namespace httplib {
class Server;
}

namespace krow::serve {

// One route of the API: its method, its path as docs/openapi.yaml writes it
// ("/api/v1/syncs/{sync}"), who may call it, and the audit log's name for it.
struct ApiRoute {
  std::string method;
  std::string path;
  bool open = false;  // callable without a credential (sign-in, health, metrics)
  Role role = Role::viewer;
  std::string action;  // "" for reads, which the audit log does not record when allowed
};
const std::vector<ApiRoute>& api_routes();

// A user name the service takes: 1 to 64 letters, digits, '.', '_', '-' or '@'.
bool valid_user_name(const std::string& name);

// A new API token: the text shown once (`krow_<id>_<secret>`) and what the store keeps of it.
std::pair<std::string, ApiToken> new_token(const std::string& name, Role role,
                                           const std::string& created_by);

class ApiServer {
 public:
  // Listens on the config's address at once (throws Error(config) naming `listen` or `tls`
  // when it cannot). `metrics` renders the exposition; `ready` says whether /readyz is 200.
  ApiServer(const ServeConfig& config, ServeStore& store, Scheduler& scheduler,
            std::function<std::string()> metrics, const std::atomic<bool>& ready);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  int port() const { return port_; }
  bool tls() const { return tls_; }

  struct Handler;  // the routes' code (api.cpp)

 private:
  std::unique_ptr<Handler> handler_;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  bool tls_ = false;
  std::thread thread_;
};

}  // namespace krow::serve
