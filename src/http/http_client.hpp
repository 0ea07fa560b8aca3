#pragma once
// krow's one HTTP client (libcurl underneath; nothing outside src/http/ sees libcurl): a
// request with its method, URL, headers, body, timeouts, CA file and credentials; an answer
// with its status, headers and body; and a failure that brought no answer, classified once
// here by libcurl's code. Used by the schema registry client, the BigQuery REST client and
// its token endpoints, and `krow doctor`'s network probe (connect_only).
//
// TLS peer and host name verification are on unless a request turns them off; only http and
// https are spoken; redirects are not followed (a request that carries a credential must not
// be sent on to another host).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/secret.hpp"

namespace krow::http {

// Why a request brought no (whole) answer.
enum class Failure {
  none,           // an answer came (connect_only: the connection, and TLS, succeeded)
  resolve,        // the host name does not resolve
  connect,        // nothing accepted the connection
  timeout,        // no answer (or no connection) within the timeout
  network,        // the connection broke during the exchange
  tls_handshake,  // the TLS handshake did not complete (a cut, or a peer that is not TLS)
  tls_untrusted,  // the server's certificate is not signed by a trusted CA (or has expired)
  tls_host_name,  // the server's certificate does not name the host asked for
  tls_ca_file,    // the CA file cannot be read as PEM certificates
  too_large,      // the answer is larger than max_body_bytes; its status is known
  other,          // a malformed URL, an unsupported protocol, out of memory, ...
};

// True when trying again can help: the network, a timeout, a connection cut or a handshake
// that did not complete. False for what retrying cannot fix: a certificate, a CA file, a URL,
// an answer too large.
bool is_transient(Failure failure);

// "timeout", "tls_untrusted", ...: for an error's source code.
const char* failure_name(Failure failure);

struct BasicAuth {
  std::string username;
  Secret password;
};

struct Request {
  std::string method = "GET";  // GET sends no body; any other method sends `body`
  std::string url;
  // Header lines ("Accept: application/json"). Never a credential: see `authorization`.
  std::vector<std::string> headers;
  // Sent as is, without a copy: the caller keeps it alive until send() returns.
  std::string_view body;
  // The Authorization header's value ("Bearer <token>"), if any.
  Secret authorization;
  std::optional<BasicAuth> basic_auth;
  std::chrono::milliseconds timeout{30000};      // the whole exchange
  std::chrono::milliseconds connect_timeout{0};  // up to the connection; 0: `timeout`
  std::string ca_file;                           // PEM CA bundle; "" for the system's CAs
  bool verify_tls = true;                        // peer and host name verification
  bool use_proxy = true;  // false: straight to the host, whatever the environment's proxy
  // The largest body read; a larger answer stops the transfer (Failure::too_large), so that
  // a broken or hostile endpoint cannot hold unbounded memory.
  uint64_t max_body_bytes = uint64_t{16} << 20;
  // Connect (and for https, complete the TLS handshake), send nothing, and close.
  bool connect_only = false;
  std::string user_agent = "krow";
};

struct Response {
  long status = 0;  // the HTTP status; 0 when no answer came
  // The answer's header fields: names in lower case, values trimmed; the last answer's only
  // when there were several (an interim 100 Continue).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // "" when too_large
  Failure failure = Failure::none;
  std::string error;  // with a failure: libcurl's words for it (never a credential)
  // With Failure::too_large: whether the Content-Length announced it (the body was then not
  // read at all), and the size announced or what had arrived when krow stopped reading.
  bool size_announced = false;
  uint64_t body_bytes = 0;
  std::string primary_ip;  // the address connected to (or last tried), if any

  bool transient() const { return is_transient(failure); }
  // The value of header `name` (lower case), or nullopt.
  std::optional<std::string> header(std::string_view name) const;
};

// One libcurl handle, reused from request to request so that connections (and TLS sessions)
// are kept. The first Client made anywhere initialises libcurl for the process.
// Thread: one thread at a time per object.
class Client {
 public:
  // Throws Error(fatal_run) when libcurl cannot make a handle.
  Client();
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Never throws for HTTP or network failures: they are in the response.
  Response send(const Request& request);

 private:
  struct Handle;
  std::unique_ptr<Handle> handle_;
};

}  // namespace krow::http
