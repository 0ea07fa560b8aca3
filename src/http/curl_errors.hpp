#pragma once
// How libcurl's codes read as http::Failure: once, for every request krow sends. Used inside
// src/http/ only; the rest of krow sees http::Failure.

#include <curl/curl.h>

#include "http/http_client.hpp"

namespace krow::http {

// The failure of a transfer that ended with `rc`. `verify_result` is the transfer's
// CURLINFO_SSL_VERIFYRESULT: libcurl answers CURLE_PEER_FAILED_VERIFICATION both for a
// certificate no trusted CA signed and for one that names another host, and only the TLS
// library's verification result tells them apart.
Failure failure_of(CURLcode rc, long verify_result);

}  // namespace krow::http
