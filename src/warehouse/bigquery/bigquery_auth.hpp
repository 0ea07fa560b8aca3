#pragma once
// OAuth2 bearer tokens for the BigQuery adapter: a service-account key (signed JWT traded at
// the key's token_uri), application default credentials (Google's search order: the file in
// GOOGLE_APPLICATION_CREDENTIALS, gcloud's well-known file, the GCE/GKE metadata server), or
// none for an emulator endpoint. Tokens are cached and fetched again shortly before they
// expire; keys, refresh tokens, assertions and access tokens never reach a message.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "util/secret.hpp"

namespace krow::bigquery {

// The one scope krow asks for: BigQuery read/write, nothing else of the project.
inline constexpr std::string_view kBigQueryScope = "https://www.googleapis.com/auth/bigquery";
// Where user credentials (and key files without token_uri) are traded for tokens.
inline constexpr std::string_view kGoogleTokenUri = "https://oauth2.googleapis.com/token";
// The largest token-endpoint answer krow reads: a token answer is under 2 KiB, an error page
// a few KiB; anything longer is not an OAuth2 answer.
inline constexpr size_t kMaxTokenAnswerBytes = 64 * 1024;

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
  // (A refresh that fails transiently within the margin, while the token in hand has not
  // expired, returns that token; the next call tries again.)
  virtual std::string authorization() = 0;
  // The API answered 401 to the last token: the next authorization() fetches a new one.
  virtual void invalidate() = 0;
  // For messages and `krow doctor`: "service account krow@p.iam.gserviceaccount.com (key file
  // /x.json)", "application default credentials (...which kind...)", "no authentication (emulator
  // endpoint)". Never a secret.
  virtual std::string describe() const = 0;
};

// credentials: a path to a service-account key JSON file, "adc" (application default
// credentials), or "none" (no auth; the adapter passes this when an emulator endpoint is set
// and no credentials are given). Throws Error(config) for a missing/unreadable/malformed file,
// naming the file and what is wrong (never echoing the private key).
// `timeout` bounds each token request (connect and answer). With "adc" and no credentials
// file, this asks the metadata server once (at most about a second when there is none).
std::unique_ptr<TokenSource> make_token_source(const std::string& credentials,
                                               std::chrono::milliseconds timeout);

// What application default credentials are looked up from; from_process() reads the
// environment (GOOGLE_APPLICATION_CREDENTIALS, HOME, GCE_METADATA_HOST). Tests pass their own.
struct AdcEnvironment {
  std::string credentials_file;  // GOOGLE_APPLICATION_CREDENTIALS ("" = not set)
  std::string home;              // for $HOME/.config/gcloud/application_default_credentials.json
  std::string metadata_host;     // host[:port] of the metadata server
  static AdcEnvironment from_process();
};
std::unique_ptr<TokenSource> make_token_source(const std::string& credentials,
                                               std::chrono::milliseconds timeout,
                                               const AdcEnvironment& adc);

// How long before its expiry a token is replaced: five minutes, or half the token's lifetime
// when that is shorter (a token that lives 3 s is replaced after 1.5 s, not refetched on
// every call).
std::chrono::milliseconds refresh_margin(std::chrono::milliseconds lifetime);

// A credentials JSON file as Google's tools write it (the fields krow uses).
struct CredentialsFile {
  enum class Kind { service_account, authorized_user };
  Kind kind = Kind::service_account;
  std::string path;
  // service_account
  std::string client_email;
  std::string private_key_id;  // "" when absent: the JWT then goes without "kid"
  Secret private_key;          // PEM
  std::string token_uri;       // the file's, or kGoogleTokenUri
  // authorized_user (gcloud auth application-default login)
  std::string account;  // may be ""; only for describe()
  std::string client_id;
  Secret client_secret;
  Secret refresh_token;
};

// Parses the text of credentials file `path`. `setting` says who named the file, for
// messages ("warehouse.credentials", "GOOGLE_APPLICATION_CREDENTIALS"). Throws Error(config) naming
// the file and what is wrong: not JSON, a missing field, an unsupported "type", a token_uri
// that is neither https nor a loopback http address. Never echoes the file's values.
CredentialsFile parse_credentials_file(std::string_view json, const std::string& path,
                                       const std::string& setting);

// Reads and parses `path` (at most 1 MiB); Error(config) when it is missing or unreadable.
CredentialsFile read_credentials_file(const std::string& path, const std::string& setting);

}  // namespace krow::bigquery
