#include "doctor/network_probe.hpp"

#include "http/http_client.hpp"
#include "util/error.hpp"

namespace krow {

namespace {

// One connect-only request: TCP for "tcp", the TLS handshake too for "tls". A client of its
// own, so that nothing is reused from an earlier attempt and the connection closes with it.
http::Response connect_only(const Endpoint& e, bool tls, const TlsProbe& settings,
                            std::chrono::milliseconds timeout) {
  const bool v6 = e.host.find(':') != std::string::npos;
  http::Request q;
  q.url = std::string(tls ? "https" : "http") + "://" + (v6 ? "[" + e.host + "]" : e.host) + ":" +
          e.port;
  q.connect_only = true;
  q.timeout = timeout;
  q.use_proxy = false;  // the client connects directly, so does the probe
  q.verify_tls = settings.verify;
  if (tls) q.ca_file = settings.ca_file;
  try {
    http::Client client;
    return client.send(q);
  } catch (const Error& error) {  // no handle
    http::Response r;
    r.failure = http::Failure::other;
    r.error = error.what();
    return r;
  }
}

}  // namespace

std::string Endpoint::text() const {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
}

std::vector<Endpoint> split_endpoints(const std::string& list) {
  std::vector<Endpoint> out;
  size_t at = 0;
  while (at <= list.size()) {
    auto end = list.find(',', at);
    if (end == std::string::npos) end = list.size();
    std::string item = list.substr(at, end - at);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    // librdkafka accepts a protocol prefix ("SASL_SSL://host:port").
    if (const auto scheme = item.find("://"); scheme != std::string::npos)
      item = item.substr(scheme + 3);
    if (!item.empty()) {
      Endpoint e;
      if (item.front() == '[') {
        const auto close = item.find(']');
        e.host = item.substr(1, close == std::string::npos ? std::string::npos : close - 1);
        if (close != std::string::npos && close + 1 < item.size() && item[close + 1] == ':')
          e.port = item.substr(close + 2);
      } else if (const auto colon = item.rfind(':'); colon != std::string::npos) {
        e.host = item.substr(0, colon);
        e.port = item.substr(colon + 1);
      } else {
        e.host = item;
      }
      if (e.port.empty()) e.port = "9092";  // librdkafka's default
      out.push_back(std::move(e));
    }
    at = end + 1;
  }
  return out;
}

std::vector<Check> probe_endpoint(const std::string& what, const Endpoint& e, const TlsProbe& tls,
                                  std::chrono::milliseconds timeout, bool& reachable) {
  std::vector<Check> out;
  reachable = false;
  const auto seconds = std::to_string((timeout.count() + 999) / 1000);
  const auto tcp = connect_only(e, false, tls, timeout);
  if (tcp.failure == http::Failure::resolve) {
    out.push_back(Check::fail(
        what + " DNS " + e.host, "the host name does not resolve (" + tcp.error + ")",
        "check the host name in " + what + "'s address, and this machine's DNS settings"));
    return out;
  }
  out.push_back(Check::pass(
      what + " DNS " + e.host,
      "resolves to " + (tcp.primary_ip.empty() ? std::string("an address") : tcp.primary_ip)));
  if (tcp.failure != http::Failure::none) {
    const bool timed_out = tcp.failure == http::Failure::timeout;
    out.push_back(Check::fail(what + " TCP " + e.text(),
                              timed_out ? "no answer within " + seconds + " s (" + tcp.error + ")"
                                        : "cannot connect (" + tcp.error + ")",
                              timed_out ? "a firewall, VPN or security group drops the connection, "
                                          "or the host is down: open the port "
                                          "to this machine, or check the host and port"
                                        : "nothing accepts connections there: check that the "
                                          "server is running and that the host and "
                                          "port are right"));
    return out;
  }
  out.push_back(Check::pass(
      what + " TCP " + e.text(),
      "connected to " + (tcp.primary_ip.empty() ? e.host : tcp.primary_ip) + ":" + e.port));
  if (!tls.enabled) {
    reachable = true;
    return out;
  }
  const auto hs = connect_only(e, true, tls, timeout);
  const std::string ca = tls.ca_file.empty()
                             ? "the system's CA certificates (" + tls.ca_setting + " is not set)"
                             : tls.ca_setting + " " + tls.ca_file;
  if (hs.failure == http::Failure::none) {
    reachable = true;
    out.push_back(Check::pass(
        what + " TLS " + e.text(),
        tls.verify
            ? "handshake done, certificate verified with " + ca + " for host " + e.host
            : "handshake done; certificate NOT verified (" + tls.verify_setting + ": false)"));
    return out;
  }
  std::string fix;
  switch (hs.failure) {
    case http::Failure::tls_host_name:
      fix = "the certificate does not name " + e.host +
            ": use the host name the certificate was issued for";
      break;
    case http::Failure::tls_untrusted:
      fix = "the server's certificate is not signed by " + ca + ": set " + tls.ca_setting +
            " to the PEM file of the CA that signed it (ask the cluster's operator, or see the "
            "provider's docs)";
      break;
    case http::Failure::tls_ca_file:
      fix = tls.ca_setting + " " + tls.ca_file +
            " cannot be used as a CA bundle: point it at a PEM file of CA certificates";
      break;
    case http::Failure::timeout:
      fix =
          "the port accepted the connection but did not complete a TLS handshake: is it a TLS "
          "listener?";
      break;
    default:
      fix =
          "the port may not speak TLS (a PLAINTEXT listener?): check the port and the security "
          "protocol, and " +
          ca;
      break;
  }
  out.push_back(
      Check::fail(what + " TLS " + e.text(), "TLS handshake failed (" + hs.error + ")", fix));
  return out;
}

}  // namespace krow
