#pragma once
// A small HTTPS client for the schema registry (libcurl): GET with basic auth, a CA file,
// peer and host name verification, timeouts, and a bound on what one answer may weigh. One
// handle, reused across requests.
// Thread: one thread at a time per object.

#include <curl/curl.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "registry/registry_config.hpp"

namespace krow {

struct HttpResponse {
  long status = 0;          // 0 when no HTTP answer came (see `transport_error`)
  std::string body;         // empty when `over_limit`
  std::string content_type;  // the Content-Type header, if any (a hint for messages only)
  std::string retry_after;  // the Retry-After header, if any
  std::string transport_error;
  bool transient = false;  // with status 0: worth retrying (network, timeout), not a setup error
  // The body was larger than HttpClient::kMaxBodyBytes, so the transfer was stopped there
  // and `body` dropped; `status` is the HTTP status that came before it. `body_bytes` is the
  // announced Content-Length (`size_announced`), or else what had arrived when krow stopped
  // reading.
  bool over_limit = false;
  bool size_announced = false;
  uint64_t body_bytes = 0;
};

class HttpClient {
 public:
  // The largest answer krow reads. Confluent's registry stores every schema as a message of
  // its `_schemas` topic, whose size limit defaults to 1 MB, so a real schema document is
  // below that; 16 MiB leaves room for registries without that limit (Apicurio, Redpanda)
  // and for a long subject list (GET /subjects), and still keeps a broken or hostile
  // endpoint (a 50 MB file, an endless stream) from holding unbounded memory.
  static constexpr uint64_t kMaxBodyBytes = uint64_t{16} << 20;

  HttpClient(const RegistryConfig& config, std::chrono::milliseconds timeout);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // GET <url><path>. Never throws for HTTP or network failures: they are in the response
  // (an answer over kMaxBodyBytes too, as `over_limit`).
  HttpResponse get(const std::string& path);

 private:
  CURL* curl_ = nullptr;
  RegistryConfig config_;
  std::chrono::milliseconds timeout_;
};

}  // namespace krow
