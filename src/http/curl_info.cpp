#include "http/curl_info.hpp"

#include <curl/curl.h>

namespace krow {

std::string libcurl_version() {
  const auto* curl = curl_version_info(CURLVERSION_NOW);
  return std::string(curl->version) +
         (curl->ssl_version ? std::string(", ") + curl->ssl_version : "");
}

std::string url_escape(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    }
  }
  return out;
}

}  // namespace krow
