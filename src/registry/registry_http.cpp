#include "registry/registry_http.hpp"

#include "util/files.hpp"

namespace krow {

RegistryHttp::RegistryHttp(const RegistryConfig& config, std::chrono::milliseconds timeout)
    : config_(config), timeout_(timeout) {
  if (!config_.ca_file.empty())
    require_readable_file(config_.ca_file, "registry.ca_file",
                          "the PEM CA bundle that signed the registry's certificate");
}

http::Response RegistryHttp::get(const std::string& path) {
  http::Request q;
  q.url = config_.url + path;
  q.headers = {"Accept: application/vnd.schemaregistry.v1+json, application/json"};
  q.timeout = timeout_;
  q.ca_file = config_.ca_file;
  if (!config_.username.empty()) q.basic_auth = http::BasicAuth{config_.username, config_.password};
  q.max_body_bytes = kMaxBodyBytes;
  return client_.send(q);
}

}  // namespace krow
