#include "metrics/metrics_endpoint.hpp"

#include <httplib.h>

#include <chrono>

#include "util/error.hpp"
#include "util/text.hpp"

namespace krow::metrics {

ListenAddress parse_listen_address(const std::string& text, const std::string& flag) {
  auto refuse = [&] {
    return Error(ErrorClass::config,
                 flag +
                     " takes HOST:PORT, [IPv6]:PORT or :PORT (on 127.0.0.1), such as "
                     "127.0.0.1:9464, not '" +
                     text + "'");
  };
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) throw refuse();
  ListenAddress out;
  out.host = text.substr(0, colon);
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']')
    out.host = out.host.substr(1, out.host.size() - 2);
  else if (out.host.find(':') != std::string::npos)
    throw refuse();  // an IPv6 address needs its brackets
  if (out.host.empty()) out.host = "127.0.0.1";
  const auto port = parse_int64(text.substr(colon + 1));
  if (!port || *port < 0 || *port > 65535) throw refuse();
  out.port = static_cast<int>(*port);
  return out;
}

MetricsEndpoint::MetricsEndpoint(const ListenAddress& address, const std::string& flag,
                                 std::function<std::string()> render, PlainRoutes more)
    : server_(std::make_unique<httplib::Server>()),
      render_(std::move(render)),
      more_(std::move(more)) {
  // A scrape is one small GET: two threads, short timeouts, no request body.
  server_->new_task_queue = [] { return new httplib::ThreadPool(2); };
  server_->set_read_timeout(std::chrono::seconds(5));
  server_->set_write_timeout(std::chrono::seconds(5));
  server_->set_keep_alive_max_count(100);
  server_->set_payload_max_length(1024);
  server_->set_tcp_nodelay(true);  // a scrape's answer goes out at once
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(render_(), "text/plain; version=0.0.4; charset=utf-8");
  });
  for (const auto& [path, answer] : more_)
    server_->Get(path, [&answer = answer](const httplib::Request&, httplib::Response& res) {
      const auto a = answer();
      res.status = a.status;
      res.set_content(a.body, "text/plain; charset=utf-8");
    });
  server_->set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty())
      res.set_content("krow serves GET /metrics here\n", "text/plain; charset=utf-8");
  });
  const bool bound = address.port == 0 ? (port_ = server_->bind_to_any_port(address.host)) > 0
                                       : server_->bind_to_port(address.host, address.port);
  if (!bound)
    throw Error(ErrorClass::config,
                flag + ": cannot listen on " + address.host + ":" + std::to_string(address.port) +
                    " (the port is taken, or the address is not this machine's); "
                    "choose another port or address");
  if (address.port != 0) port_ = address.port;
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

MetricsEndpoint::~MetricsEndpoint() {
  // stop() ends a server that listens; one whose thread has not begun listening yet would
  // miss it, so wait (briefly) until it does.
  for (int i = 0; i < 200 && !server_->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace krow::metrics
