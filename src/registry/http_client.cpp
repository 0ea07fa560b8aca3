#include "registry/http_client.hpp"

#include <cctype>
#include <mutex>

#include "util/error.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace krow {

namespace {

size_t on_body(char* data, size_t size, size_t n, void* user) {
  static_cast<HttpResponse*>(user)->body.append(data, size * n);
  return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  std::string line(data, size * n);
  if (lower_ascii(line).rfind("retry-after:", 0) == 0) {
    auto v = line.substr(12);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.erase(v.begin());
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
    static_cast<HttpResponse*>(user)->retry_after = v;
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
  if (rc != CURLE_OK) {
    r.transport_error = err[0] ? err : curl_easy_strerror(rc);
    switch (rc) {
      case CURLE_COULDNT_RESOLVE_HOST:
      case CURLE_COULDNT_CONNECT:
      case CURLE_OPERATION_TIMEDOUT:
      case CURLE_SEND_ERROR:
      case CURLE_RECV_ERROR:
      case CURLE_GOT_NOTHING:
      case CURLE_PARTIAL_FILE:
      case CURLE_SSL_CONNECT_ERROR:
        r.transient = true;
        break;
      default:  // bad CA file, certificate or host name mismatch, malformed URL...: setup errors
        break;
    }
    return r;
  }
  curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &r.status);
  return r;
}

}  // namespace krow
