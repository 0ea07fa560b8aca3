#include "bq_session.hpp"

#include <curl/curl.h>
#include <simdjson.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace krow::testkit {

namespace {

size_t collect(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

std::string escape_json(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// One HTTP request; returns the status and fills `body`.
long http(const std::string& method, const std::string& url, const std::string& payload, std::string& body) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
  if (method != "GET") curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, payload.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, 120L);
  const CURLcode rc = curl_easy_perform(curl.get());
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) throw std::runtime_error(url + ": " + curl_easy_strerror(rc));
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  return status;
}

}  // namespace

BqSession::BqSession(std::string endpoint, std::string project)
    : endpoint_(std::move(endpoint)), project_(std::move(project)) {}

std::string BqSession::default_endpoint() {
  const char* e = std::getenv("KROW_TEST_BIGQUERY");
  return e && *e ? e : "http://127.0.0.1:9050";
}

QueryResult BqSession::query(const std::string& sql, const std::vector<std::string>& strings) {
  std::string payload = "{\"useLegacySql\":false,\"timeoutMs\":120000,\"query\":" + escape_json(sql);
  if (!strings.empty()) {
    payload += ",\"parameterMode\":\"NAMED\",\"queryParameters\":[{\"name\":\"strings\",\"parameterType\":{\"type\":"
               "\"ARRAY\",\"arrayType\":{\"type\":\"STRING\"}},\"parameterValue\":{\"arrayValues\":[";
    for (size_t i = 0; i < strings.size(); ++i) payload += (i ? ",{\"value\":" : "{\"value\":") + escape_json(strings[i]) + "}";
    payload += "]}}]";
  }
  payload += "}";
  std::string body;
  const long status = http("POST", endpoint_ + "/bigquery/v2/projects/" + project_ + "/queries", payload, body);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc) != simdjson::SUCCESS) throw std::runtime_error("not JSON: " + body.substr(0, 300));
  simdjson::dom::element errors;
  if (status != 200 || doc["errors"].get(errors) == simdjson::SUCCESS || doc["error"].get(errors) == simdjson::SUCCESS)
    throw std::runtime_error("BigQuery query failed (" + std::to_string(status) + "): " + body.substr(0, 600) +
                             "\n  query: " + sql.substr(0, 300));
  bool complete = true;
  if (doc["jobComplete"].get(complete) == simdjson::SUCCESS && !complete)
    throw std::runtime_error("BigQuery query did not complete in time: " + sql.substr(0, 300));
  QueryResult out;
  read_rows(doc, out, true);
  // Large results come in pages.
  std::string job, token;
  for (;;) {
    std::string_view j, t;
    if (doc["pageToken"].get(t) != simdjson::SUCCESS || t.empty()) break;
    if (job.empty() && doc["jobReference"]["jobId"].get(j) == simdjson::SUCCESS) job = j;
    token = t;
    body.clear();
    const std::string url = endpoint_ + "/bigquery/v2/projects/" + project_ + "/queries/" + job + "?pageToken=" + token;
    if (http("GET", url, "", body) != 200) throw std::runtime_error("BigQuery result page failed: " + body.substr(0, 300));
    if (parser.parse(body).get(doc) != simdjson::SUCCESS) throw std::runtime_error("not JSON: " + body.substr(0, 300));
    read_rows(doc, out, false);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> BqSession::columns(const std::string& dataset,
                                                                    const std::string& table) {
  const std::string sql = "SELECT * FROM `" + project_ + "." + dataset + "." + table + "` LIMIT 0";
  std::string body;
  const long status = http("POST", endpoint_ + "/bigquery/v2/projects/" + project_ + "/queries",
                           "{\"useLegacySql\":false,\"query\":" + escape_json(sql) + "}", body);
  if (status != 200)
    throw std::runtime_error("BigQuery query failed (" + std::to_string(status) + "): " + body);
  simdjson::dom::parser parser;
  simdjson::dom::array fields;
  if (parser.parse(body)["schema"]["fields"].get(fields) != simdjson::SUCCESS)
    throw std::runtime_error("no schema in the answer: " + body.substr(0, 300));
  std::vector<std::pair<std::string, std::string>> out;
  for (auto f : fields) {
    std::string_view name, type;
    if (f["name"].get(name) != simdjson::SUCCESS || f["type"].get(type) != simdjson::SUCCESS)
      continue;
    // The legacy names the REST API may answer with.
    std::string t(type);
    if (t == "INTEGER")
      t = "INT64";
    else if (t == "FLOAT")
      t = "FLOAT64";
    else if (t == "BOOLEAN")
      t = "BOOL";
    out.emplace_back(name, t);
  }
  return out;
}

void BqSession::read_rows(simdjson::dom::element doc, QueryResult& out, bool columns) {
  simdjson::dom::array fields;
  if (columns && doc["schema"]["fields"].get(fields) == simdjson::SUCCESS)
    for (auto f : fields) {
      std::string_view name;
      if (f["name"].get(name) == simdjson::SUCCESS) out.columns.emplace_back(name);
    }
  simdjson::dom::array rows;
  if (doc["rows"].get(rows) == simdjson::SUCCESS)
    for (auto row : rows) {
      auto& cells = out.rows.emplace_back();
      simdjson::dom::array f;
      if (row["f"].get(f) != simdjson::SUCCESS) continue;
      for (auto cell : f) {
        std::string_view v;
        if (cell["v"].get(v) == simdjson::SUCCESS) cells.emplace_back(std::string(v));
        else cells.emplace_back();
      }
    }
}

std::string BqSession::scalar(const std::string& sql) {
  const auto r = query(sql);
  if (r.rows.empty() || r.rows[0].empty() || !r.rows[0][0]) return "";
  return *r.rows[0][0];
}

void BqSession::create_dataset(const std::string& dataset) {
  std::string body;
  const long status = http("POST", endpoint_ + "/bigquery/v2/projects/" + project_ + "/datasets",
                           "{\"datasetReference\":{\"projectId\":\"" + project_ + "\",\"datasetId\":\"" + dataset + "\"}}",
                           body);
  if (status != 200 && status != 409) throw std::runtime_error("cannot create dataset " + dataset + ": " + body);
}

std::string BqSession::table_json(const std::string& dataset, const std::string& table) {
  std::string body;
  if (http("GET", endpoint_ + "/bigquery/v2/projects/" + project_ + "/datasets/" + dataset + "/tables/" + table, "",
           body) != 200)
    throw std::runtime_error("no table " + dataset + "." + table + ": " + body.substr(0, 300));
  return body;
}

bool BqSession::has_dataset(const std::string& dataset) {
  std::string body;
  return http("GET", endpoint_ + "/bigquery/v2/projects/" + project_ + "/datasets/" + dataset, "",
              body) == 200;
}

bool BqSession::has_table(const std::string& dataset, const std::string& table) {
  std::string body;
  return http("GET", endpoint_ + "/bigquery/v2/projects/" + project_ + "/datasets/" + dataset + "/tables/" + table, "",
              body) == 200;
}

}  // namespace krow::testkit
