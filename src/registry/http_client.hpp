#pragma once
// A small HTTPS client for the schema registry (libcurl): GET with basic auth, a CA file,
// peer and host name verification, and timeouts. One handle, reused across requests.
// Thread: one thread at a time per object.

#include <curl/curl.h>

#include <chrono>
#include <string>

#include "manifest/manifest.hpp"

namespace krow {

struct HttpResponse {
  long status = 0;          // 0 when no HTTP answer came (see `transport_error`)
  std::string body;
  std::string retry_after;  // the Retry-After header, if any
  std::string transport_error;
  bool transient = false;  // with status 0: worth retrying (network, timeout), not a setup error
};

class HttpClient {
 public:
  HttpClient(const RegistryConfig& config, std::chrono::milliseconds timeout);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // GET <url><path>. Never throws for HTTP or network failures: they are in the response.
  HttpResponse get(const std::string& path);

 private:
  CURL* curl_ = nullptr;
  RegistryConfig config_;
  std::chrono::milliseconds timeout_;
};

}  // namespace krow
