#pragma once
// Client of a Confluent-compatible schema registry: schema by ID, with its references
// resolved recursively (by subject and version), each answer cached for the run (one
// request per schema ID, not per message). Diamonds resolve once; a reference loop is cut
// where it closes.
//
// Transient failures (network, timeouts, a body cut short, HTTP 5xx, 429 honouring
// Retry-After) are retried with exponential backoff up to `retry_budget`, then throw
// Error(transient). Definitive answers (404 schema not found, 401/403, and answers that are
// not a registry's: HTML pages, JSON of the wrong shape, bodies over
// RegistryHttp::kMaxBodyBytes, references nested past kMaxReferenceDepth) are returned, never
// thrown. No reason or message ever holds the registry password.
// Thread: one thread at a time.

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "codec/schema_decoder.hpp"
#include "registry/registry_config.hpp"
#include "registry/registry_http.hpp"

namespace krow {

class SchemaRegistry {
 public:
  enum class Outcome { found, not_found, refused };
  struct Answer {
    Outcome outcome = Outcome::not_found;
    std::shared_ptr<const ResolvedSchema> schema;  // when found
    std::string reason;                            // when not found or refused: what and what to do
    // When found: where a reference loop was cut, if one was ("" otherwise). A schema that
    // needs the cut reference then fails to compile, and this says why.
    std::string loop_cut;
    int64_t version = 0;  // latest(): the subject's version that was read
  };

  // A real registry cannot hold a reference chain or loop (a schema's references must be
  // registered before it), so a chain this deep comes from a broken or hostile endpoint;
  // the bound also bounds the recursion and the requests for one schema ID.
  static constexpr int kMaxReferenceDepth = 64;

  SchemaRegistry(const RegistryConfig& config, std::chrono::seconds retry_budget = std::chrono::seconds(300));

  Answer by_id(int32_t id);

  // The latest version of `subject` (GET /subjects/<subject>/versions/latest), its
  // references resolved as by_id() resolves them; schema->id is its schema ID. not_found when
  // the registry has no such subject (or it has no version left). Not cached.
  Answer latest(const std::string& subject);

  // What the error thrown when transient failures outlast the retry budget tells the reader
  // to do (by default: run the sync again once the registry answers).
  void set_when_failing(std::string advice) { when_failing_ = std::move(advice); }

  // Requests made so far (for tests and counters).
  int requests() const { return requests_; }

 private:
  struct Fetched {
    long status = 0;
    std::string body;
    std::string content_type;
  };
  // GET with retries for transient failures; returns the final HTTP answer. `where` names
  // what is fetched ("schema ID 7") for the refusal of an answer over the size limit.
  Fetched get(const std::string& path, const std::string& where);
  std::shared_ptr<const ResolvedSchema> parse(const Fetched& answer, int32_t id,
                                              const std::string& where, int depth);
  std::shared_ptr<const ResolvedSchema> by_subject_version(const std::string& subject,
                                                           int64_t version, int depth);
  [[noreturn]] void refused(long status, const std::string& what);
  // `text` with the registry password masked: reasons quote what a registry or proxy sent
  // (a page title), and a hostile one may echo the credentials it was given.
  std::string without_password(std::string text) const;

  RegistryConfig config_;
  RegistryHttp http_;
  std::chrono::seconds retry_budget_;
  std::map<int32_t, Answer> by_id_;
  std::map<std::pair<std::string, int64_t>, std::shared_ptr<const ResolvedSchema>> by_version_;
  std::map<std::pair<std::string, int64_t>, bool> resolving_;  // loop guard
  int32_t resolving_id_ = 0;  // the schema ID whose references are being fetched (for messages)
  std::string loop_cut_;      // the first loop cut while resolving `resolving_id_`
  int requests_ = 0;
  std::string when_failing_ =
      "nothing was written for the affected messages. Run the sync again once the registry answers";
};

}  // namespace krow
