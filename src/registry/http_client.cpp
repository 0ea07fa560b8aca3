#include "registry/http_client.hpp"

#include <cctype>
#include <charconv>
#include <mutex>
#include <optional>
#include <string_view>

#include "http/curl_errors.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace krow {

namespace {

// Stops the transfer (by taking fewer bytes than offered, which libcurl turns into
// CURLE_WRITE_ERROR) once the body would grow past the limit, so a huge or endless answer
// costs at most kMaxBodyBytes of memory.
size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto& r = *static_cast<HttpResponse*>(user);
  if (r.body.size() + size * n > HttpClient::kMaxBodyBytes) {
    r.over_limit = true;
    r.body_bytes = r.body.size() + size * n;
    std::string().swap(r.body);
    return 0;
  }
  r.body.append(data, size * n);
  return size * n;
}

// The value of header `line` when its name is `name` (lower case, with the colon), trimmed.
std::optional<std::string> header_value(const std::string& line, std::string_view name) {
  if (lower_ascii(line.substr(0, name.size())) != name) return std::nullopt;
  auto v = line.substr(name.size());
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.erase(v.begin());
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  return v;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto& r = *static_cast<HttpResponse*>(user);
  const std::string line(data, size * n);
  if (auto v = header_value(line, "retry-after:")) r.retry_after = *v;
  if (auto v = header_value(line, "content-type:")) r.content_type = *v;
  if (auto v = header_value(line, "content-length:")) {
    // An announced size over the limit is refused before any of the body is read.
    uint64_t length = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), length);
    if ((ec == std::errc() && length > HttpClient::kMaxBodyBytes) ||
        ec == std::errc::result_out_of_range) {
      r.over_limit = r.size_announced = true;
      r.body_bytes = ec == std::errc() ? length : UINT64_MAX;
      return 0;
    }
  }
  return size * n;
}

}  // namespace

HttpClient::HttpClient(const RegistryConfig& config, std::chrono::milliseconds timeout)
    : config_(config), timeout_(timeout) {
  if (!config_.ca_file.empty())
    require_readable_file(config_.ca_file, "registry.ca_file", "the PEM CA bundle that signed the registry's certificate");
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  curl_ = curl_easy_init();
  if (!curl_) throw Error(ErrorClass::fatal_run, "libcurl could not create a handle");
}

HttpClient::~HttpClient() { curl_easy_cleanup(curl_); }

HttpResponse HttpClient::get(const std::string& path) {
  HttpResponse r;
  const std::string url = config_.url + path;
  curl_easy_reset(curl_);
  curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl_, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_.count()));
  curl_easy_setopt(curl_, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout_.count()));
  curl_easy_setopt(curl_, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl_, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!config_.ca_file.empty()) curl_easy_setopt(curl_, CURLOPT_CAINFO, config_.ca_file.c_str());
  if (!config_.username.empty()) {
    curl_easy_setopt(curl_, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(curl_, CURLOPT_USERNAME, config_.username.c_str());
    curl_easy_setopt(curl_, CURLOPT_PASSWORD, config_.password.reveal().c_str());
  }
  struct curl_slist* headers = curl_slist_append(nullptr, "Accept: application/vnd.schemaregistry.v1+json, application/json");
  curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &r);
  curl_easy_setopt(curl_, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl_, CURLOPT_HEADERDATA, &r);
  char err[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(curl_, CURLOPT_ERRORBUFFER, err);
  const CURLcode rc = curl_easy_perform(curl_);
  curl_slist_free_all(headers);
  if (r.over_limit) {  // an answer, just too large to read: not a transport failure
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &r.status);
    return r;
  }
  if (rc != CURLE_OK) {
    r.transport_error = err[0] ? err : curl_easy_strerror(rc);
    // Not transient: a bad CA file, a certificate or host name mismatch, a malformed URL.
    r.transient = curl_failure_is_transient(rc);
    return r;
  }
  curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &r.status);
  return r;
}

}  // namespace krow
