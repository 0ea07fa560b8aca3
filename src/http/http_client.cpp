#include "http/http_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <charconv>
#include <mutex>

#include "http/curl_errors.hpp"
#include "http/curl_handles.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace krow::http {

namespace {

// libcurl's process-wide set-up, once for the process, before its first handle:
// curl_global_init may not run twice at once, nor beside other libcurl calls.
void init_libcurl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// What one transfer fills in as it goes.
struct Transfer {
  Response& response;
  uint64_t max_body_bytes;
  bool too_large = false;
};

// Stops the transfer (by taking fewer bytes than offered, which libcurl turns into
// CURLE_WRITE_ERROR) once the body would grow past the limit, so that a huge or endless
// answer costs at most max_body_bytes of memory.
size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  auto& r = t.response;
  const size_t bytes = size * n;
  if (r.body.size() + bytes > t.max_body_bytes) {
    t.too_large = true;
    r.body_bytes = r.body.size() + bytes;
    std::string().swap(r.body);
    return 0;
  }
  r.body.append(data, bytes);
  return bytes;
}

std::string_view trimmed(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  auto& r = t.response;
  const size_t bytes = size * n;
  const std::string_view line(data, bytes);
  if (line.rfind("HTTP/", 0) == 0) {  // a status line: the fields that follow are a new answer's
    r.headers.clear();
    return bytes;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return bytes;  // the blank line that ends the fields
  std::string name = lower_ascii(std::string(line.substr(0, colon)));
  const std::string_view value = trimmed(line.substr(colon + 1));
  if (name == "content-length") {
    // An announced size over the limit is refused before any of the body is read.
    uint64_t length = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), length);
    if ((ec == std::errc() && length > t.max_body_bytes) || ec == std::errc::result_out_of_range) {
      t.too_large = r.size_announced = true;
      r.body_bytes = ec == std::errc() ? length : UINT64_MAX;
      return 0;
    }
  }
  r.headers.emplace_back(std::move(name), std::string(value));
  return bytes;
}

long milliseconds(std::chrono::milliseconds d) {
  return static_cast<long>(std::max<int64_t>(d.count(), 1));
}

}  // namespace

std::optional<std::string> Response::header(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (n == name) return v;
  return std::nullopt;
}

struct Client::Handle {
  EasyHandle easy;
};

Client::Client() : handle_(std::make_unique<Handle>()) {
  init_libcurl_once();
  handle_->easy.reset(curl_easy_init());
  if (!handle_->easy) throw Error(ErrorClass::fatal_run, "libcurl could not create a handle");
}

Client::~Client() = default;

Response Client::send(const Request& q) {
  CURL* c = handle_->easy.get();
  Response r;
  Transfer t{r, q.max_body_bytes};
  // Options of an earlier request are dropped; its open connections are kept for reuse.
  curl_easy_reset(c);

  HeaderList headers;
  bool listed = true;
  for (const auto& line : q.headers) listed = listed && append(headers, line.c_str());
  if (!q.authorization.empty())
    listed = listed && append(headers, ("Authorization: " + q.authorization.reveal()).c_str());
  if (!listed) {
    r.failure = Failure::other;
    r.error = "libcurl could not hold the request's header fields (out of memory)";
    return r;
  }

  curl_easy_setopt(c, CURLOPT_URL, q.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, milliseconds(q.timeout));
  curl_easy_setopt(
      c, CURLOPT_CONNECTTIMEOUT_MS,
      milliseconds(q.connect_timeout.count() > 0 ? std::min(q.connect_timeout, q.timeout)
                                                 : q.timeout));
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, q.verify_tls ? 1L : 0L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, q.verify_tls ? 2L : 0L);
  if (!q.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, q.ca_file.c_str());
  if (!q.use_proxy) curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  if (!q.user_agent.empty()) curl_easy_setopt(c, CURLOPT_USERAGENT, q.user_agent.c_str());
  if (q.basic_auth) {
    curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(c, CURLOPT_USERNAME, q.basic_auth->username.c_str());
    curl_easy_setopt(c, CURLOPT_PASSWORD, q.basic_auth->password.reveal().c_str());
  }
  if (headers) curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  if (q.connect_only) {
    curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
  } else if (q.method == "GET") {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  } else {
    // Never a null pointer: libcurl would then read the body from stdin.
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, q.body.empty() ? "" : q.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(q.body.size()));
    if (q.method != "POST") curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, q.method.c_str());
  }
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  char error[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);

  const CURLcode rc = curl_easy_perform(c);

  char* ip = nullptr;
  if (curl_easy_getinfo(c, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK && ip) r.primary_ip = ip;
  if (t.too_large) {  // an answer, only too large to read: its status is known
    r.failure = Failure::too_large;
    r.error = "an answer larger than " + with_thousands(q.max_body_bytes) + " bytes";
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  } else if (rc != CURLE_OK) {
    long verify_result = 0;
    curl_easy_getinfo(c, CURLINFO_SSL_VERIFYRESULT, &verify_result);
    r.failure = failure_of(rc, verify_result);
    r.error = error[0] ? error : curl_easy_strerror(rc);
  } else if (!q.connect_only) {
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  }
  // The handle must keep no pointer into this frame (the error buffer, the transfer) nor into
  // the request (its body may be a credential): its options go now, its connections stay.
  curl_easy_reset(c);
  return r;
}

}  // namespace krow::http
