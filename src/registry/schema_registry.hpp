#pragma once
// Client of a Confluent-compatible schema registry: schema by ID, with its references
// resolved recursively (by subject and version), each answer cached for the run (one
// request per schema ID, not per message). Diamonds resolve once; a reference loop is cut
// where it closes.
//
// Transient failures (network, timeouts, HTTP 5xx, 429 honouring Retry-After) are retried
// with exponential backoff up to `retry_budget`, then throw Error(transient). Definitive
// answers (404 schema not found, 401/403) are returned, never thrown.
// Thread: one thread at a time.

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "codec/schema_decoder.hpp"
#include "manifest/manifest.hpp"
#include "registry/http_client.hpp"

namespace krow {

class SchemaRegistry {
 public:
  enum class Outcome { found, not_found, refused };
  struct Answer {
    Outcome outcome = Outcome::not_found;
    std::shared_ptr<const ResolvedSchema> schema;  // when found
    std::string reason;                            // when not found or refused: what and what to do
  };

  SchemaRegistry(const RegistryConfig& config, std::chrono::seconds retry_budget = std::chrono::seconds(300));

  Answer by_id(int32_t id);

  // Requests made so far (for tests and counters).
  int requests() const { return requests_; }

 private:
  struct Fetched {
    long status = 0;
    std::string body;
  };
  // GET with retries for transient failures; returns the final HTTP answer.
  Fetched get(const std::string& path);
  std::shared_ptr<const ResolvedSchema> parse(const std::string& body, int32_t id, const std::string& where);
  std::shared_ptr<const ResolvedSchema> by_subject_version(const std::string& subject, int64_t version);
  [[noreturn]] void refused(long status, const std::string& what);

  RegistryConfig config_;
  HttpClient http_;
  std::chrono::seconds retry_budget_;
  std::map<int32_t, Answer> by_id_;
  std::map<std::pair<std::string, int64_t>, std::shared_ptr<const ResolvedSchema>> by_version_;
  std::map<std::pair<std::string, int64_t>, bool> resolving_;  // loop guard
  int requests_ = 0;
};

}  // namespace krow
