#include "registry/schema_registry.hpp"

#include <simdjson.h>

#include <cstdint>
#include <string_view>
#include <thread>

#include "http/curl_info.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace krow {

namespace {

// Thrown inside by_id() when the registry definitively refuses a request.
struct Refusal {
  std::string reason;
};

// `text` cut to `max` bytes and reduced to printable ASCII on one line: registry answers are
// quoted in one-line reasons, and a hostile one may hold anything.
std::string printable(std::string_view text, size_t max = 80) {
  std::string out;
  for (const char c : text) {
    if (out.size() >= max) return out + "...";
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (space) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += (c > 0x20 && c < 0x7f) ? c : '?';
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The text of the first <title> of an HTML page, or "".
std::string html_title(const std::string& page) {
  const std::string lower = lower_ascii(page.substr(0, 64 << 10));
  const auto open = lower.find("<title");
  if (open == std::string::npos) return {};
  const auto start = lower.find('>', open);
  if (start == std::string::npos) return {};
  const auto end = lower.find("</title", start);
  return printable(
      std::string_view(page).substr(start + 1, end == std::string::npos ? 80 : end - start - 1));
}

bool looks_like_html(const std::string& body, const std::string& content_type) {
  if (lower_ascii(content_type).find("html") != std::string::npos) return true;
  const auto first = body.find_first_not_of(" \t\r\n");
  return first != std::string::npos && body[first] == '<';
}

// What an answer that is not a schema document is instead, for reasons: "an HTML page
// titled "502 Bad Gateway"", "an empty body", "text that is not JSON".
std::string what_body_is(const std::string& body, const std::string& content_type) {
  if (looks_like_html(body, content_type)) {
    const auto title = html_title(body);
    return "an HTML page" + (title.empty() ? std::string() : " titled \"" + title + "\"");
  }
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) return "an empty body";
  return "text that is not JSON (" + std::to_string(body.size()) + " bytes starting \"" +
         printable(body, 24) + "\")";
}

std::string_view json_kind(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY:
      return "an array";
    case simdjson::dom::element_type::OBJECT:
      return "an object";
    case simdjson::dom::element_type::STRING:
      return "a string";
    case simdjson::dom::element_type::BOOL:
      return "a boolean";
    case simdjson::dom::element_type::NULL_VALUE:
      return "null";
    default:
      return "a number";
  }
}

// A registry's own error document: Confluent's {"error_code": 40403, "message": "..."},
// which Apicurio's and Redpanda's Confluent-compatible APIs answer too.
bool is_registry_error(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc) || !doc.is_object()) return false;
  return !doc["error_code"].error() || !doc["message"].error();
}

// What to do when the answers are not a registry's: the usual cause is a registry.url that
// points at a web page, a console or a proxy rather than at the registry's API.
constexpr std::string_view kCheckUrl =
    ": check that registry.url is the schema registry's API root (Confluent-compatible; for "
    "Apicurio, the /apis/ccompat/v7 path), then run `krow resync --full` to decode these messages";

// The reason for an HTTP status the registry API does not answer `where` with; a body that
// is not the registry's own JSON error says what it is and how to check the URL.
std::string unexpected_status(long status, const std::string& body, const std::string& content_type,
                              const std::string& where) {
  return "the schema registry answered HTTP " + std::to_string(status) + " for " + where +
         (is_registry_error(body) ? std::string() : " with " + what_body_is(body, content_type) + std::string(kCheckUrl));
}

}  // namespace

SchemaRegistry::SchemaRegistry(const RegistryConfig& config, std::chrono::seconds retry_budget)
    : config_(config), http_(config, std::chrono::seconds(30)), retry_budget_(retry_budget) {}

std::string SchemaRegistry::without_password(std::string text) const {
  const auto& password = config_.password.reveal();
  if (password.empty()) return text;
  for (auto at = text.find(password); at != std::string::npos; at = text.find(password, at))
    text.replace(at, password.size(), "<registry.password>");
  return text;
}

SchemaRegistry::Fetched SchemaRegistry::get(const std::string& path, const std::string& where) {
  const auto deadline = std::chrono::steady_clock::now() + retry_budget_;
  auto backoff = std::chrono::milliseconds(250);
  std::string last;
  for (;;) {
    ++requests_;
    const auto r = http_.get(path);
    if (r.failure == http::Failure::too_large)
      throw Refusal{
          "the schema registry's answer for " + where + " (HTTP " + std::to_string(r.status) +
          ") is " + (r.size_announced ? "announced as " : "at least ") +
          with_thousands(r.body_bytes) + " bytes, over krow's limit of " +
          with_thousands(RegistryHttp::kMaxBodyBytes) +
          " bytes for one answer, so it was not read; no real schema is that large (Confluent's "
          "registry keeps each one in a message of about 1 MB at most)" +
          std::string(kCheckUrl)};
    if (r.status == 0 && !r.transient())
      throw Refusal{"the schema registry at " + config_.url + " cannot be used: " + r.error +
                    " (check registry.url and registry.ca_file)"};
    const bool transient = r.status == 0 || r.status == 429 || r.status >= 500 || r.status == 408;
    if (!transient) return {r.status, r.body, r.header("content-type").value_or("")};
    last = r.status == 0 ? r.error : "HTTP " + std::to_string(r.status);
    auto wait = backoff;
    // Retry-After in seconds (its HTTP-date form is not used by registries; it is ignored).
    if (r.status == 429)
      if (const auto seconds = parse_int64(r.header("retry-after").value_or(""));
          seconds && *seconds >= 0)
        wait = std::chrono::seconds(std::min<int64_t>(*seconds, retry_budget_.count() + 1));
    if (std::chrono::steady_clock::now() + wait > deadline)
      throw Error(ErrorClass::transient,
                  without_password("the schema registry at " + config_.url + " kept failing (" +
                                   last + ") for " + std::to_string(retry_budget_.count()) +
                                   " s, asked for " + where),
                  Fix{when_failing_, "; "},
                  {"schema registry", r.status == 0 ? http::failure_name(r.failure)
                                                    : "HTTP " + std::to_string(r.status)});
    std::this_thread::sleep_for(wait);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(30000));
  }
}

void SchemaRegistry::refused(long status, const std::string& what) {
  throw Refusal{"the schema registry refused " + what + " (HTTP " + std::to_string(status) +
                "): check registry.username and registry.password (a Schema Registry API key, not the cluster's) and "
                "that the key may read the subjects; then run `krow resync --full` to decode these messages"};
}

std::shared_ptr<const ResolvedSchema> SchemaRegistry::parse(const Fetched& answer, int32_t id,
                                                            const std::string& where, int depth) {
  const std::string answered = "the schema registry answered " + where + " with ";
  simdjson::dom::parser parser;
  simdjson::dom::element doc, field;
  if (parser.parse(answer.body).get(doc))
    throw Refusal{answered + what_body_is(answer.body, answer.content_type) +
                  ", not a schema document" + std::string(kCheckUrl)};
  // The Content-Type header is not checked: the document is what counts, and proxies and
  // registries label the same JSON differently (application/vnd.schemaregistry.v1+json,
  // application/json, text/plain).
  if (!doc.is_object())
    throw Refusal{answered + "JSON that is " + std::string(json_kind(doc)) +
                  ", not a schema document (an object with a \"schema\" string)" +
                  std::string(kCheckUrl)};
  std::string_view text;
  if (doc["schema"].get(field))
    throw Refusal{answered + "a JSON object without a \"schema\" field, not a schema document" +
                  std::string(kCheckUrl)};
  if (field.get(text))
    throw Refusal{answered + "a JSON object whose \"schema\" is " + std::string(json_kind(field)) +
                  ", not the schema's text" + std::string(kCheckUrl)};
  auto schema = std::make_shared<ResolvedSchema>();
  schema->id = id;
  schema->text = std::string(text);
  std::string_view type;
  if (!doc["schemaType"].get(type)) {  // the registry omits it for Avro
    if (type == "PROTOBUF")
      schema->type = SchemaType::protobuf;
    else if (type == "JSON")
      schema->type = SchemaType::json;
    else if (type == "AVRO")
      schema->type = SchemaType::avro;
    else
      throw Refusal{where + " has schemaType \"" + printable(type, 40) +
                    "\", which krow cannot decode (it reads AVRO, PROTOBUF and JSON); the messages "
                    "are kept raw"};
  }
  simdjson::dom::array refs;
  if (!doc["references"].get(refs)) {
    for (auto ref : refs) {
      std::string_view name, subject;
      int64_t version = 0;
      if (ref["name"].get(name) || ref["subject"].get(subject) || ref["version"].get(version))
        throw Refusal{"the schema registry's answer for " + where +
                      " has a malformed reference (each needs a name, a subject and a version)"};
      auto resolved = by_subject_version(std::string(subject), version, depth + 1);
      if (resolved) schema->references.push_back({std::string(name), resolved});
    }
  }
  return schema;
}

std::shared_ptr<const ResolvedSchema> SchemaRegistry::by_subject_version(const std::string& subject,
                                                                         int64_t version,
                                                                         int depth) {
  const auto key = std::make_pair(subject, version);
  if (auto it = by_version_.find(key); it != by_version_.end()) return it->second;
  const auto ref = "subject \"" + printable(subject) + "\" version " + std::to_string(version);
  if (resolving_[key]) {  // a loop: this schema is already being resolved above
    if (loop_cut_.empty())
      loop_cut_ = "the references of schema ID " + std::to_string(resolving_id_) +
                  " loop back to " + ref +
                  ", and krow cut the loop there (a real registry cannot hold a loop)";
    return nullptr;
  }
  const auto where = "the reference " + ref + " of schema ID " + std::to_string(resolving_id_);
  if (depth > kMaxReferenceDepth)
    throw Refusal{
        "the references of schema ID " + std::to_string(resolving_id_) + " nest deeper than " +
        std::to_string(kMaxReferenceDepth) + " levels (at " + ref +
        "); a real registry cannot hold such a chain (references are registered before the schemas "
        "that use them)" +
        std::string(kCheckUrl)};
  resolving_[key] = true;
  const auto r =
      get("/subjects/" + url_escape(subject) + "/versions/" + std::to_string(version), where);
  if (r.status == 401 || r.status == 403) refused(r.status, where);
  if (r.status != 200)
    throw Refusal{
        where + " could not be read from the schema registry (HTTP " + std::to_string(r.status) +
        (is_registry_error(r.body)
             ? std::string(")")
             : ", " + what_body_is(r.body, r.content_type) + ")" + std::string(kCheckUrl))};
  int64_t id = 0;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(r.body).get(doc) || doc["id"].get(id)) id = 0;
  auto schema = parse(r, static_cast<int32_t>(id), where, depth);
  resolving_[key] = false;
  by_version_[key] = schema;
  return schema;
}

SchemaRegistry::Answer SchemaRegistry::by_id(int32_t id) {
  if (auto it = by_id_.find(id); it != by_id_.end()) return it->second;
  // A transient failure thrown while references were being fetched leaves their loop marks
  // behind; the retry would take them for a loop and drop those references.
  resolving_.clear();
  resolving_id_ = id;
  loop_cut_.clear();
  const auto where = "schema ID " + std::to_string(id);
  Answer a;
  try {
    const auto r = get("/schemas/ids/" + std::to_string(id), where);
    if (r.status == 200) {
      a.outcome = Outcome::found;
      a.schema = parse(r, id, where, 0);
    } else if (r.status == 404 && is_registry_error(r.body)) {
      a.outcome = Outcome::not_found;
      a.reason = "the schema registry does not know " + where;
    } else if (r.status == 401 || r.status == 403) {
      refused(r.status, where);
    } else if (r.status == 404) {
      // Not the registry's own "schema not found" but a web server's or a proxy's page: the
      // URL is wrong, so nothing is known about the ID, and reading these messages as plain
      // bytes would hide that every one of them is framed.
      throw Refusal{"the schema registry answered " + where + " with HTTP 404 and " +
                    what_body_is(r.body, r.content_type) +
                    ", not the registry's JSON error, so the ID may well exist" +
                    std::string(kCheckUrl)};
    } else {
      a.outcome = Outcome::refused;
      a.reason = unexpected_status(r.status, r.body, r.content_type, where);
    }
  } catch (const Refusal& refusal) {
    a.outcome = Outcome::refused;
    a.reason = refusal.reason;
  }
  a.reason = without_password(a.reason);
  if (a.outcome == Outcome::found) a.loop_cut = loop_cut_;
  resolving_.clear();
  by_id_[id] = a;
  return a;
}

SchemaRegistry::Answer SchemaRegistry::latest(const std::string& subject) {
  resolving_.clear();
  resolving_id_ = 0;
  loop_cut_.clear();
  const auto where = "the latest version of subject \"" + printable(subject) + "\"";
  Answer a;
  try {
    const auto r = get("/subjects/" + url_escape(subject) + "/versions/latest", where);
    if (r.status == 200) {
      simdjson::dom::parser parser;
      simdjson::dom::element doc;
      int64_t id = 0, version = 0;
      if (!parser.parse(r.body).get(doc)) {
        if (doc["id"].get(id)) id = 0;
        if (doc["version"].get(version)) version = 0;
      }
      resolving_id_ = static_cast<int32_t>(id);
      a.outcome = Outcome::found;
      a.schema = parse(r, static_cast<int32_t>(id), where, 0);
      a.version = version;
      a.loop_cut = loop_cut_;
    } else if (r.status == 404 && is_registry_error(r.body)) {
      a.outcome = Outcome::not_found;
      a.reason = "the schema registry has no subject \"" + printable(subject) + "\"";
    } else if (r.status == 401 || r.status == 403) {
      refused(r.status, where);
    } else {
      a.outcome = Outcome::refused;
      a.reason = unexpected_status(r.status, r.body, r.content_type, where);
    }
  } catch (const Refusal& refusal) {
    a.outcome = Outcome::refused;
    a.reason = refusal.reason;
  }
  a.reason = without_password(a.reason);
  resolving_.clear();
  return a;
}

}  // namespace krow
