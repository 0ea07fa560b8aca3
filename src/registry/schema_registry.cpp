#include "registry/schema_registry.hpp"

#include <curl/curl.h>
#include <simdjson.h>

#include <thread>

#include "util/error.hpp"

namespace krow {

namespace {

// Thrown inside by_id() when the registry definitively refuses a request.
struct Refusal {
  std::string reason;
};

std::string escape(const std::string& s) {
  char* e = curl_easy_escape(nullptr, s.c_str(), static_cast<int>(s.size()));
  std::string out(e ? e : "");
  curl_free(e);
  return out;
}

SchemaType type_of(std::string_view t) {
  if (t == "PROTOBUF") return SchemaType::protobuf;
  if (t == "JSON") return SchemaType::json;
  return SchemaType::avro;  // the registry omits schemaType for Avro
}

}  // namespace

SchemaRegistry::SchemaRegistry(const RegistryConfig& config, std::chrono::seconds retry_budget)
    : config_(config), http_(config, std::chrono::seconds(30)), retry_budget_(retry_budget) {}

SchemaRegistry::Fetched SchemaRegistry::get(const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + retry_budget_;
  auto backoff = std::chrono::milliseconds(250);
  std::string last;
  for (;;) {
    ++requests_;
    const auto r = http_.get(path);
    if (r.status == 0 && !r.transient)
      throw Refusal{"the schema registry at " + config_.url + " cannot be used: " + r.transport_error +
                    " (check registry.url and registry.ca_file)"};
    const bool transient = r.status == 0 || r.status == 429 || r.status >= 500 || r.status == 408;
    if (!transient) return {r.status, r.body};
    last = r.status == 0 ? r.transport_error : "HTTP " + std::to_string(r.status);
    auto wait = backoff;
    if (r.status == 429 && !r.retry_after.empty()) {
      try {
        wait = std::chrono::seconds(std::stoi(r.retry_after));
      } catch (...) {
      }
    }
    if (std::chrono::steady_clock::now() + wait > deadline)
      throw Error(ErrorClass::transient, "the schema registry at " + config_.url + " kept failing (" + last +
                                             ") for " + std::to_string(retry_budget_.count()) +
                                             " s; nothing was written for the affected messages. Run the sync again "
                                             "once the registry answers");
    std::this_thread::sleep_for(wait);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(30000));
  }
}

void SchemaRegistry::refused(long status, const std::string& what) {
  throw Refusal{"the schema registry refused " + what + " (HTTP " + std::to_string(status) +
                "): check registry.username and registry.password (a Schema Registry API key, not the cluster's) and "
                "that the key may read the subjects; then run `krow resync --full` to decode these messages"};
}

std::shared_ptr<const ResolvedSchema> SchemaRegistry::parse(const std::string& body, int32_t id,
                                                            const std::string& where) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string_view text;
  if (parser.parse(body).get(doc) || doc["schema"].get(text))
    throw Refusal{"the schema registry's answer for " + where + " is not a schema document"};
  auto schema = std::make_shared<ResolvedSchema>();
  schema->id = id;
  schema->text = std::string(text);
  std::string_view type;
  if (!doc["schemaType"].get(type)) schema->type = type_of(type);
  simdjson::dom::array refs;
  if (!doc["references"].get(refs)) {
    for (auto ref : refs) {
      std::string_view name, subject;
      int64_t version = 0;
      if (ref["name"].get(name) || ref["subject"].get(subject) || ref["version"].get(version))
        throw Refusal{"the schema registry's answer for " + where + " has a malformed reference"};
      auto resolved = by_subject_version(std::string(subject), version);
      if (resolved) schema->references.push_back({std::string(name), resolved});
    }
  }
  return schema;
}

std::shared_ptr<const ResolvedSchema> SchemaRegistry::by_subject_version(const std::string& subject, int64_t version) {
  const auto key = std::make_pair(subject, version);
  if (auto it = by_version_.find(key); it != by_version_.end()) return it->second;
  if (resolving_[key]) return nullptr;  // a loop: this schema is already being resolved above
  resolving_[key] = true;
  const auto where = "subject " + subject + " version " + std::to_string(version);
  const auto r = get("/subjects/" + escape(subject) + "/versions/" + std::to_string(version));
  if (r.status == 401 || r.status == 403) refused(r.status, "the reference " + where);
  if (r.status != 200)
    throw Refusal{"the reference " + where + " could not be read from the schema registry (HTTP " +
                  std::to_string(r.status) + ")"};
  int64_t id = 0;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(r.body).get(doc) || doc["id"].get(id)) id = 0;
  auto schema = parse(r.body, static_cast<int32_t>(id), where);
  resolving_[key] = false;
  by_version_[key] = schema;
  return schema;
}

SchemaRegistry::Answer SchemaRegistry::by_id(int32_t id) {
  if (auto it = by_id_.find(id); it != by_id_.end()) return it->second;
  Answer a;
  try {
    const auto r = get("/schemas/ids/" + std::to_string(id));
    if (r.status == 200) {
      a.outcome = Outcome::found;
      a.schema = parse(r.body, id, "schema ID " + std::to_string(id));
    } else if (r.status == 404) {
      a.outcome = Outcome::not_found;
      a.reason = "the schema registry does not know schema ID " + std::to_string(id);
    } else if (r.status == 401 || r.status == 403) {
      refused(r.status, "schema ID " + std::to_string(id));
    } else {
      a.outcome = Outcome::refused;
      a.reason = "the schema registry answered HTTP " + std::to_string(r.status) + " for schema ID " + std::to_string(id);
    }
  } catch (const Refusal& refusal) {
    a.outcome = Outcome::refused;
    a.reason = refusal.reason;
  }
  resolving_.clear();
  by_id_[id] = a;
  return a;
}

}  // namespace krow
