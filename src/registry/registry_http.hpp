#pragma once
// The schema registry's requests: GET <registry.url><path> with the registry's key (HTTP basic
// auth), its CA file (peer and host name verification on), a timeout, and a bound on what one
// answer may weigh; over http::Client, one connection reused across requests.
// Thread: one thread at a time per object.

#include <chrono>
#include <cstdint>
#include <string>

#include "http/http_client.hpp"
#include "registry/registry_config.hpp"

namespace krow {

class RegistryHttp {
 public:
  // The largest answer krow reads. Confluent's registry stores every schema as a message of
  // its `_schemas` topic, whose size limit defaults to 1 MB, so a real schema document is
  // below that; 16 MiB leaves room for registries without that limit (Apicurio, Redpanda)
  // and for a long subject list (GET /subjects), and still keeps a broken or hostile
  // endpoint (a 50 MB file, an endless stream) from holding unbounded memory.
  static constexpr uint64_t kMaxBodyBytes = uint64_t{16} << 20;

  // Throws Error(config) when registry.ca_file is set but cannot be read, Error(fatal_run) when
  // libcurl cannot make a handle.
  RegistryHttp(const RegistryConfig& config, std::chrono::milliseconds timeout);

  // GET <url><path>. Never throws for HTTP or network failures: they are in the response (an
  // answer over kMaxBodyBytes too, as http::Failure::too_large).
  http::Response get(const std::string& path);

 private:
  RegistryConfig config_;
  std::chrono::milliseconds timeout_;
  http::Client client_;
};

}  // namespace krow
