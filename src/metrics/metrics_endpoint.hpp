#pragma once
// `GET /metrics` over HTTP on a thread of its own (cpp-httplib), for Prometheus to scrape
// (docs/metrics.md), and the few plain routes it is given. Any other path or method is
// refused (4xx), and so is a request body over 1 KiB. It never serves files.
//
// Thread: construct and destroy on one thread; the render function is called from the
// server's threads.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace krow::metrics {

// An address to listen on: "HOST:PORT", "[IPv6]:PORT" or ":PORT" (127.0.0.1). Throws
// Error(config) naming `flag` when `text` is none of those.
struct ListenAddress {
  std::string host;
  int port = 0;
};
ListenAddress parse_listen_address(const std::string& text, const std::string& flag);

// A plain-text answer to one more GET route (`krow serve`'s /livez and /readyz).
struct PlainAnswer {
  int status = 200;
  std::string body;
};
using PlainRoutes = std::map<std::string, std::function<PlainAnswer()>>;

class MetricsEndpoint {
 public:
  // Listens on `address` at once (throws Error(config) naming `flag` when it cannot: the port
  // is taken, the host is not this machine's) and serves `render()` as the exposition, and
  // each of `more` at its path.
  MetricsEndpoint(const ListenAddress& address, const std::string& flag,
                  std::function<std::string()> render, PlainRoutes more = {});
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  // The port it listens on (the one asked for, or the one the system chose for port 0).
  int port() const { return port_; }

 private:
  std::unique_ptr<httplib::Server> server_;
  std::function<std::string()> render_;
  PlainRoutes more_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace krow::metrics
