#pragma once
// Reaching a server, step by step, for `krow doctor`: the host name resolves, a TCP
// connection opens, and (for TLS listeners) the TLS handshake succeeds with the configured
// CA and host name check. libcurl does each step with a connect-only transfer: no request
// is sent, so this works for any TCP protocol (Kafka's as well as HTTPS).
//
// Thread: any; each call uses its own handle and blocks up to its timeout.

#include <chrono>
#include <string>
#include <vector>

#include "util/check.hpp"

namespace krow {

struct Endpoint {
  std::string host;
  std::string port;
  std::string text() const;  // host:port ([host]:port for an IPv6 address)
};

// The host:port entries of a bootstrap list (comma separated; "[::1]:9092" for IPv6).
std::vector<Endpoint> split_endpoints(const std::string& list);

struct TlsProbe {
  bool enabled = false;
  std::string ca_file;     // empty: the system's CAs
  std::string ca_setting;  // the manifest key that names it, for messages ("source.ca_file")
  bool verify = true;      // peer and host name verification
  std::string verify_setting;
};

// DNS, TCP and (when `tls.enabled`) TLS checks of one endpoint, named after `what`
// ("kafka"). `reachable` is set when the TCP connection opened (and TLS, when asked, passed).
std::vector<Check> probe_endpoint(const std::string& what, const Endpoint& endpoint,
                                  const TlsProbe& tls, std::chrono::milliseconds timeout,
                                  bool& reachable);

}  // namespace krow
