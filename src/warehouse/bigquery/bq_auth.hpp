#pragma once
// OAuth2 bearer tokens for the BigQuery adapter.

#include <chrono>
#include <memory>
#include <string>

namespace krow::bigquery {

// Where the BigQuery adapter's OAuth2 bearer tokens come from.
// Thread: one thread at a time per object.
class TokenSource {
 public:
  virtual ~TokenSource() = default;
  // The value of the Authorization header ("Bearer <token>"), or "" when requests go
  // without authentication (an emulator endpoint). Fetches a token when it has none, or when
  // the one it has expires within the refresh margin, or after invalidate().
  // Throws Error(ErrorClass::fatal_run) when the credentials are refused (names the file and
  // the fix, never the key or the token), Error(ErrorClass::transient) when the token
  // endpoint cannot be reached or answers 5xx/429.
  virtual std::string authorization() = 0;
  // The API answered 401 to the last token: the next authorization() fetches a new one.
  virtual void invalidate() = 0;
  // For messages and `krow doctor`; never a secret.
  virtual std::string describe() const = 0;
};

// credentials: a path to a service-account key JSON file, "adc" (application default
// credentials), or "none" (no auth). Throws Error(config) for a missing/unreadable/malformed
// file, naming the file and what is wrong (never echoing the private key).
std::unique_ptr<TokenSource> make_token_source(const std::string& credentials, std::chrono::milliseconds timeout);

}  // namespace krow::bigquery
