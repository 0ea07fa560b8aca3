#pragma once
// What the rest of krow asks of libcurl outside a transfer.

#include <string>
#include <string_view>

namespace krow {

// "8.5.0, OpenSSL/3.0.15": libcurl's version and its TLS library, for `krow doctor`.
std::string libcurl_version();

// `text` with every byte but letters, digits and -._~ written as %XX, for one path segment
// of a URL.
std::string url_escape(std::string_view text);

}  // namespace krow
