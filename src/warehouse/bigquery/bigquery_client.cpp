#include "warehouse/bigquery/bigquery_client.hpp"

#include <simdjson.h>

#include <chrono>
#include <random>
#include <thread>

#include "http/curl_info.hpp"
#include "util/json_writer.hpp"
#include "util/text.hpp"

namespace krow::bigquery {

namespace {

// The largest answer krow reads: query results of krow's own state are small; a broken
// endpoint must not hold unbounded memory.
constexpr size_t kMaxAnswerBytes = size_t{64} << 20;

std::string job_id() {
  static thread_local std::mt19937_64 gen{std::random_device{}()};
  char buf[40];
  std::snprintf(buf, sizeof buf, "krow_%016llx%04llx", static_cast<unsigned long long>(gen()),
                static_cast<unsigned long long>(gen() & 0xffff));
  return buf;
}

}  // namespace

ApiProblem parse_api_problem(long status, const std::string& body) {
  ApiProblem p{status, {}, {}};
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc) != simdjson::SUCCESS) {
    p.message = body.substr(0, 300);
    return p;
  }
  auto take = [&](simdjson::dom::element e) {
    std::string_view s;
    if (e["reason"].get(s) == simdjson::SUCCESS) p.reason = s;
    if (e["message"].get(s) == simdjson::SUCCESS) p.message = s;
  };
  simdjson::dom::element e;
  if (doc["error"].get(e) == simdjson::SUCCESS) {
    take(e);
    simdjson::dom::array errors;
    if (e["errors"].get(errors) == simdjson::SUCCESS && errors.size() > 0) {
      std::string message = p.message;
      take(errors.at(0));
      if (!message.empty()) p.message = message;
    }
    std::string_view s;
    if (p.reason.empty() && e["status"].get(s) == simdjson::SUCCESS) p.reason = s;
  } else if (doc["status"]["errorResult"].get(e) == simdjson::SUCCESS) {
    take(e);
  } else {
    simdjson::dom::array errors;
    if (doc["errors"].get(errors) == simdjson::SUCCESS && errors.size() > 0) take(errors.at(0));
  }
  return p;
}

namespace {

std::string text_of(simdjson::dom::element e) {
  std::string_view s;
  if (e.get(s) == simdjson::SUCCESS) return std::string(s);
  return simdjson::to_string(e);
}

void write_fields(JsonWriter& w, const std::vector<Field>& fields) {
  w.key("schema").begin_object().key("fields").begin_array();
  for (const auto& f : fields) {
    w.begin_object().field("name", f.name).field("type", f.type);
    if (f.required) w.field("mode", "REQUIRED");
    if (f.precision > 0)
      w.field("precision", std::to_string(f.precision)).field("scale", std::to_string(f.scale));
    w.end_object();
  }
  w.end_array().end_object();
}

// What BigQuery says in words only. Its answers carry a reason code for every failure krow
// tells apart ("accessDenied", "quotaExceeded", "rateLimitExceeded", "backendError", ...) but
// these three, which are read from the message here and nowhere else:
// - krow's own fence: the ERROR() that krow's scripts raise, which BigQuery answers as any
//   failed query ("invalidQuery"), its text marked with kFenceMarker;
// - a transaction aborted by a concurrent one: "invalidQuery" too (or no reason at all), as a
//   malformed query would be, with BigQuery's sentence for it ("Transaction is aborted due to
//   concurrent update", "Could not serialize access ... due to concurrent update"); the
//   emulator's DuckDB says "Could not serialize";
// - which permission an accessDenied lacks, named in the message only ("bigquery.jobs.create").
struct MessageFacts {
  size_t fence = std::string::npos;  // where the fence marker starts
  bool concurrent = false;
  bool lacks_jobs_create = false;
  bool lacks_datasets_create = false;
};

MessageFacts read_message(std::string_view message) {
  const auto has = [&](std::string_view part) { return message.find(part) != message.npos; };
  MessageFacts f;
  f.fence = message.find(kFenceMarker);
  f.concurrent =
      has("concurrent update") || has("Could not serialize") || has("aborted due to concurrent");
  f.lacks_jobs_create = has("bigquery.jobs.create");
  f.lacks_datasets_create = has("bigquery.datasets.create");
  return f;
}

// Reasons that a later try can overcome.
bool transient_reason(const std::string& reason) {
  return reason == "backendError" || reason == "internalError" || reason == "rateLimitExceeded" ||
         reason == "jobInternalError" || reason == "jobBackendError";
}

}  // namespace

Error classify_api_error(const ApiProblem& p, const std::string& doing, const std::string& where,
                         const std::string& project, const std::string& dataset) {
  const std::string said = p.message.empty() ? p.reason : p.message;
  const std::string head = where + ", " + doing + ": ";
  const std::string status = std::to_string(p.status);
  const ErrorSource source{
      "BigQuery", p.status == 0      ? (p.failure.empty() ? std::string("no answer") : p.failure)
                  : p.reason.empty() ? "HTTP " + status
                                     : p.reason};
  const auto facts = read_message(p.message);
  if (facts.fence != std::string::npos)
    return Error(ErrorClass::conflict, head + p.message.substr(facts.fence), source);
  if (p.status == 0 && !p.retriable)
    return Error(ErrorClass::fatal_run, head + "no answer (" + said + ")",
                 Fix{"check warehouse.endpoint, and the system's CA certificates", ": "}, source);
  if (p.status == 0)
    return Error(ErrorClass::transient, head + "no answer (" + said + "); retrying", source);
  if (p.status >= 500 || p.status == 429 || transient_reason(p.reason) || facts.concurrent)
    return Error(ErrorClass::transient,
                 head + said + " (HTTP " + status + ", " + p.reason + "); retrying", source);
  if (p.status == 401)
    return Error(ErrorClass::fatal_run, head + "the credentials were refused (" + said + ")",
                 Fix{"check warehouse.credentials (a current service-account key, or `gcloud auth "
                     "application-default login` for adc)",
                     ": "},
                 source);
  if (p.reason == "quotaExceeded")
    return Error(ErrorClass::fatal_run, head + "a quota is used up (" + said + ")",
                 Fix{"Daily quotas (load jobs per table, per project) reset at midnight Pacific "
                     "time: sync less often with larger batches (batch.max_wait, "
                     "batch.max_messages), or ask for more quota in the Cloud console"},
                 source);
  if (p.status == 403 || p.reason == "accessDenied") {
    std::string role;
    if (facts.lacks_jobs_create)
      role = "roles/bigquery.jobUser on project " + project + " (krow runs load and query jobs)";
    else if (facts.lacks_datasets_create)
      role = "roles/bigquery.dataEditor on project " + project + ", or create dataset " + dataset +
             " and the dataset(s) named in the message yourself";
    else
      role = "roles/bigquery.dataEditor on dataset " + dataset +
             " and on krow's state datasets (_krow_*), and "
             "roles/bigquery.jobUser on project " +
             project;
    return Error(ErrorClass::fatal_run, head + "access denied (" + said + ")",
                 Fix{"grant krow's account " + role, ": "}, source);
  }
  if (p.status == 404 || p.reason == "notFound")
    return Error(ErrorClass::fatal_run, head + "not found (" + said + ")",
                 Fix{"check warehouse.project and warehouse.dataset; krow creates missing datasets "
                     "when its account may (roles/bigquery.dataEditor on the project)",
                     ": "},
                 source);
  return Error(ErrorClass::fatal_run,
               head + said + " (HTTP " + status + (p.reason.empty() ? "" : ", " + p.reason) + ")",
               source);
}

int64_t integer_cell(const std::optional<std::string>& cell, const char* what, int64_t if_null) {
  if (!cell) return if_null;
  if (const auto n = parse_int64(*cell)) return *n;
  throw Error(
      ErrorClass::fatal_run,
      std::string("BigQuery answered a query with \"") + cell->substr(0, 40) + "\" for " + what +
          ", not an integer",
      Fix{"check warehouse.endpoint: it must be BigQuery's API, or an emulator that answers "
          "as BigQuery does",
          "; "},
      {"BigQuery", "not an integer"});
}

std::string table_ref(const std::string& project, const std::string& dataset,
                      const std::string& table) {
  std::string out = "`";
  for (const std::string* part : {&project, &dataset, &table}) {
    if (out.size() > 1) out += '.';
    for (char c : *part) {
      if (c == '`' || c == '\\') out += '\\';
      out += c;
    }
  }
  return out + "`";
}

Client::Client(const BigQuerySettings& settings, std::string dataset)
    : settings_(settings),
      dataset_(std::move(dataset)),
      tokens_(make_token_source(settings.credentials,
                                std::chrono::seconds(settings.request_timeout_s))) {}

std::string Client::api(const std::string& path) const {
  return settings_.api_root() + "/bigquery/v2/projects/" + settings_.project + path;
}

Client::Answer Client::send(const char* method, const std::string& url,
                            const std::string& content_type, const std::string& body) {
  for (int attempt = 0;; ++attempt) {
    http::Request q;
    q.method = method;
    q.url = url;
    q.authorization = Secret(tokens_->authorization());
    if (!content_type.empty()) q.headers.push_back("Content-Type: " + content_type);
    q.body = body;
    q.connect_timeout = std::chrono::seconds(20);
    q.timeout = std::chrono::seconds(settings_.request_timeout_s);
    q.max_body_bytes = kMaxAnswerBytes;
    auto r = http_.send(q);
    Answer a;
    if (r.failure == http::Failure::too_large) {
      a.transport_error = "an answer larger than 64 MiB";
      a.transport_retriable = false;
      a.failure = http::failure_name(r.failure);
      return a;
    }
    if (r.status == 0) {
      a.transport_error = r.error;
      a.transport_retriable = r.transient();
      a.failure = http::failure_name(r.failure);
      return a;
    }
    a.status = r.status;
    a.body = std::move(r.body);
    if (a.status == 401 && attempt == 0 && !q.authorization.empty()) {
      tokens_->invalidate();  // expired or revoked early: one more try with a new token
      continue;
    }
    return a;
  }
}

void Client::fail(const Answer& a, const char* doing) const {
  ApiProblem p = a.status == 0
                     ? ApiProblem{0, "", a.transport_error, a.transport_retriable, a.failure}
                     : parse_api_problem(a.status, a.body);
  throw classify_api_error(p, doing, settings_.describe(dataset_), settings_.project, dataset_);
}

std::optional<std::string> Client::dataset_location(const std::string& dataset) {
  const auto a = send("GET", api("/datasets/" + dataset), "", "");
  if (a.status == 404) return std::nullopt;
  if (a.status != 200) fail(a, "reading a dataset");
  simdjson::dom::parser parser;
  std::string_view location = "US";
  if (parser.parse(a.body)["location"].get(location) != simdjson::SUCCESS) location = "US";
  return std::string(location);
}

void Client::create_dataset(const std::string& dataset, const std::string& location,
                            std::optional<int64_t> default_table_expiration_ms) {
  JsonWriter w;
  w.begin_object()
      .key("datasetReference")
      .begin_object()
      .field("projectId", settings_.project)
      .field("datasetId", dataset);
  w.end_object().field("location", location);
  if (default_table_expiration_ms)
    w.field("defaultTableExpirationMs", std::to_string(*default_table_expiration_ms));
  w.end_object();
  const auto a = send("POST", api("/datasets"), "application/json", w.str());
  if (a.status != 200 && a.status != 409) fail(a, ("creating dataset " + dataset).c_str());
}

namespace {
// The fields of a schema answer ({"fields": [...]}).
std::vector<Field> parse_fields(simdjson::dom::array fields) {
  std::vector<Field> out;
  for (auto f : fields) {
    std::string_view name, type, mode, precision, scale;
    if (f["name"].get(name) != simdjson::SUCCESS) continue;
    Field field{std::string(name), "", false};
    if (f["type"].get(type) == simdjson::SUCCESS) field.type = type;
    // The legacy SQL names tables.get may answer with.
    if (field.type == "INTEGER")
      field.type = "INT64";
    else if (field.type == "FLOAT")
      field.type = "FLOAT64";
    else if (field.type == "BOOLEAN")
      field.type = "BOOL";
    else if (field.type == "RECORD")
      field.type = "STRUCT";
    if (f["mode"].get(mode) == simdjson::SUCCESS) {
      field.required = mode == "REQUIRED";
      field.repeated = mode == "REPEATED";
    }
    // Parameters come as decimal text ("12").
    if (f["precision"].get(precision) == simdjson::SUCCESS)
      field.precision = static_cast<int32_t>(parse_int64(precision).value_or(0));
    if (f["scale"].get(scale) == simdjson::SUCCESS)
      field.scale = static_cast<int32_t>(parse_int64(scale).value_or(0));
    out.push_back(std::move(field));
  }
  return out;
}
}  // namespace

std::optional<std::vector<Field>> Client::table_fields(const std::string& dataset,
                                                       const std::string& table) {
  const auto a = send("GET", api("/datasets/" + dataset + "/tables/" + url_escape(table)), "", "");
  if (a.status == 404) return std::nullopt;
  if (a.status != 200) fail(a, "reading a table's schema");
  simdjson::dom::parser parser;
  simdjson::dom::array fields;
  if (parser.parse(a.body)["schema"]["fields"].get(fields) != simdjson::SUCCESS)
    return std::vector<Field>{};
  return parse_fields(fields);
}

std::optional<TableLayout> Client::table_layout(const std::string& dataset,
                                                const std::string& table) {
  const auto a = send("GET", api("/datasets/" + dataset + "/tables/" + url_escape(table)), "", "");
  if (a.status == 404) return std::nullopt;
  if (a.status != 200) fail(a, "reading a table's layout");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(a.body).get(doc) != simdjson::SUCCESS)
    throw Error(ErrorClass::transient, "BigQuery " + settings_.describe(dataset_) +
                                           ": tables.get answered with what is not JSON; retrying");
  TableLayout out;
  simdjson::dom::array fields;
  if (doc["schema"]["fields"].get(fields) == simdjson::SUCCESS) out.fields = parse_fields(fields);
  std::string_view text;
  // A time partitioning without a field partitions by ingestion time (DAY unless it says).
  if (doc["timePartitioning"].error() == simdjson::SUCCESS) {
    out.partition_type =
        doc["timePartitioning"]["type"].get(text) == simdjson::SUCCESS ? text : "DAY";
    if (doc["timePartitioning"]["field"].get(text) == simdjson::SUCCESS) out.partition_field = text;
  }
  simdjson::dom::array clustering;
  if (doc["clustering"]["fields"].get(clustering) == simdjson::SUCCESS)
    for (auto f : clustering)
      if (f.get(text) == simdjson::SUCCESS) out.cluster_by.emplace_back(text);
  return out;
}

void Client::set_clustering(const std::string& dataset, const std::string& table,
                            const std::vector<std::string>& fields) {
  JsonWriter w;
  w.begin_object();
  if (fields.empty()) {
    w.key("clustering").null();
  } else {
    w.key("clustering").begin_object().key("fields").begin_array();
    for (const auto& f : fields) w.value(f);
    w.end_array().end_object();
  }
  w.end_object();
  const auto a = send("PATCH", api("/datasets/" + dataset + "/tables/" + url_escape(table)),
                      "application/json", w.str());
  if (a.status != 200)
    fail(a, ("changing the clustering of table " + dataset + "." + table).c_str());
}

std::optional<std::vector<Field>> Client::result_fields(const std::string& sql,
                                                        const std::string& location,
                                                        const char* doing) {
  JsonWriter w;
  w.begin_object().key("jobReference").begin_object().field("projectId", settings_.project);
  w.field("location", location).end_object();
  w.key("configuration").begin_object().field("dryRun", true).key("query").begin_object();
  w.field("query", sql).field("useLegacySql", false).end_object().end_object().end_object();
  const auto a = send("POST", api("/jobs"), "application/json", w.str());
  if (a.status == 404) return std::nullopt;
  if (a.status != 200) fail(a, doing);
  simdjson::dom::parser parser;
  simdjson::dom::array fields;
  if (parser.parse(a.body)["statistics"]["query"]["schema"]["fields"].get(fields) !=
      simdjson::SUCCESS)
    throw Error(ErrorClass::transient,
                "BigQuery " + settings_.describe(dataset_) + ", " + doing +
                    ": a dry run answered without the schema of its results; retrying");
  return parse_fields(fields);
}

void Client::create_table(const std::string& dataset, const std::string& table,
                          const TableLayout& layout) {
  JsonWriter w;
  w.begin_object().key("tableReference").begin_object();
  w.field("projectId", settings_.project)
      .field("datasetId", dataset)
      .field("tableId", table)
      .end_object();
  write_fields(w, layout.fields);
  if (!layout.partition_field.empty())
    w.key("timePartitioning")
        .begin_object()
        .field("type", layout.partition_type)
        .field("field", layout.partition_field)
        .end_object();
  if (!layout.cluster_by.empty()) {
    w.key("clustering").begin_object().key("fields").begin_array();
    for (const auto& c : layout.cluster_by) w.value(c);
    w.end_array().end_object();
  }
  if (layout.expires_at_ms) w.field("expirationTime", std::to_string(*layout.expires_at_ms));
  w.end_object();
  const auto a = send("POST", api("/datasets/" + dataset + "/tables"), "application/json", w.str());
  if (a.status != 200 && a.status != 409)
    fail(a, ("creating table " + dataset + "." + table).c_str());
}

void Client::delete_table(const std::string& dataset, const std::string& table) {
  const auto a =
      send("DELETE", api("/datasets/" + dataset + "/tables/" + url_escape(table)), "", "");
  if (a.status != 200 && a.status != 204 && a.status != 404)
    fail(a, ("dropping table " + dataset + "." + table).c_str());
}

QueryResult Client::query(const std::string& sql, const std::vector<Param>& params,
                          const std::string& location, const char* doing) {
  JsonWriter w;
  w.begin_object().field("query", sql).field("useLegacySql", false).field("location", location);
  w.field("timeoutMs", int64_t{60000}).field("requestId", job_id());
  if (!params.empty()) {
    w.field("parameterMode", "NAMED").key("queryParameters").begin_array();
    for (const auto& p : params) {
      w.begin_object().field("name", p.name);
      w.key("parameterType").begin_object().field("type", p.type).end_object();
      w.key("parameterValue").begin_object();
      if (p.value) w.field("value", *p.value);
      w.end_object().end_object();
    }
    w.end_array();
  }
  w.end_object();
  Answer a = send("POST", api("/queries"), "application/json", w.str());
  QueryResult out;
  std::string job;
  for (;;) {
    if (a.status != 200) fail(a, doing);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(a.body).get(doc) != simdjson::SUCCESS)
      throw Error(ErrorClass::transient, "BigQuery " + settings_.describe(dataset_) + ", " + doing +
                                             ": an answer that is not JSON; retrying");
    simdjson::dom::array errors;
    if (doc["errors"].get(errors) == simdjson::SUCCESS && errors.size() > 0) fail(a, doing);
    std::string_view s;
    if (job.empty() && doc["jobReference"]["jobId"].get(s) == simdjson::SUCCESS) job = s;
    bool complete = true;
    if (doc["jobComplete"].get(complete) != simdjson::SUCCESS) complete = true;
    std::string_view page;
    const bool more = doc["pageToken"].get(page) == simdjson::SUCCESS && !page.empty();
    if (complete) {
      if (doc["numDmlAffectedRows"].get(s) == simdjson::SUCCESS)
        out.affected += integer_cell(std::string(s), "numDmlAffectedRows");
      simdjson::dom::array rows;
      if (doc["rows"].get(rows) == simdjson::SUCCESS)
        for (auto row : rows) {
          auto& cells = out.rows.emplace_back();
          simdjson::dom::array f;
          if (row["f"].get(f) != simdjson::SUCCESS) continue;
          for (auto cell : f) {
            simdjson::dom::element v;
            if (cell["v"].get(v) != simdjson::SUCCESS || v.is_null())
              cells.emplace_back();
            else
              cells.emplace_back(text_of(v));
          }
        }
      if (!more) return out;
    }
    if (job.empty())
      throw Error(ErrorClass::transient, std::string("BigQuery answered without a job, ") + doing);
    std::string url =
        api("/queries/" + job) + "?location=" + url_escape(location) + "&timeoutMs=60000";
    if (complete && more) url += "&pageToken=" + url_escape(std::string(page));
    a = send("GET", url, "", "");
  }
}

void Client::wait_for_job(const std::string& job, const std::string& location, const char* doing) {
  auto pause = std::chrono::milliseconds(50);
  for (;;) {
    const auto a = send("GET", api("/jobs/" + job) + "?location=" + url_escape(location), "", "");
    if (a.status != 200) fail(a, doing);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(a.body).get(doc) != simdjson::SUCCESS)
      throw Error(ErrorClass::transient,
                  std::string("BigQuery answered a job's state with no JSON, ") + doing);
    std::string_view state;
    if (doc["status"]["state"].get(state) == simdjson::SUCCESS && state == "DONE") {
      simdjson::dom::element e;
      if (doc["status"]["errorResult"].get(e) == simdjson::SUCCESS)
        fail(Answer{400, a.body, {}}, doing);
      return;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
}

void Client::load(const std::string& dataset, const std::string& table,
                  const std::vector<Field>& fields, const std::string& ndjson,
                  const std::string& location, const char* doing) {
  // A job ID of krow's own: when the answer to the upload is lost, the job can still be
  // found; a retry loads again into the same table, replacing its rows.
  const std::string job = job_id();
  JsonWriter w;
  w.begin_object()
      .key("jobReference")
      .begin_object()
      .field("projectId", settings_.project)
      .field("jobId", job);
  w.field("location", location).end_object();
  w.key("configuration").begin_object().key("load").begin_object();
  w.key("destinationTable")
      .begin_object()
      .field("projectId", settings_.project)
      .field("datasetId", dataset);
  w.field("tableId", table).end_object();
  w.field("sourceFormat", "NEWLINE_DELIMITED_JSON").field("writeDisposition", "WRITE_TRUNCATE");
  w.field("createDisposition", "CREATE_IF_NEEDED");
  write_fields(w, fields);
  w.end_object().end_object().end_object();
  const std::string boundary = "krow_" + job;
  std::string body;
  body.reserve(ndjson.size() + w.str().size() + 256);
  body += "--" + boundary + "\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n" + w.str() +
          "\r\n--" + boundary + "\r\nContent-Type: application/octet-stream\r\n\r\n";
  body += ndjson;
  body += "\r\n--" + boundary + "--\r\n";
  const auto a = send("POST",
                      settings_.api_root() + "/upload/bigquery/v2/projects/" + settings_.project +
                          "/jobs?uploadType=multipart",
                      "multipart/related; boundary=" + boundary, body);
  if (a.status != 200) fail(a, doing);
  simdjson::dom::parser parser;
  std::string_view given = job;
  if (parser.parse(a.body)["jobReference"]["jobId"].get(given) != simdjson::SUCCESS) given = job;
  wait_for_job(std::string(given), location, doing);
}

}  // namespace krow::bigquery
