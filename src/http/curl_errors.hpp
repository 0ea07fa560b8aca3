#pragma once
// How krow reads a failed libcurl transfer, once for every HTTP client (schema registry,
// BigQuery token endpoints).

#include <curl/curl.h>

namespace krow {

// True when a transfer that failed with `rc` (no HTTP answer) is worth retrying: the network,
// a timeout, a connection cut. False for what retrying cannot fix: a certificate or host name
// mismatch, a malformed URL, an unsupported protocol.
bool curl_failure_is_transient(CURLcode rc);

}  // namespace krow
