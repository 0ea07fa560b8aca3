#include "manifest/credentials.hpp"

namespace krow {

bool lacks_sasl_credentials(const SourceConfig& source) {
  const bool sasl = source.security_protocol.rfind("SASL_", 0) == 0;
  return sasl && (source.username.empty() || source.password.empty());
}

bool url_has_credentials(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return false;
  const auto host_end = url.find('/', scheme + 3);
  return url.substr(scheme + 3,
                    host_end == std::string::npos ? std::string::npos : host_end - scheme - 3)
             .find('@') != std::string::npos;
}

}  // namespace krow
