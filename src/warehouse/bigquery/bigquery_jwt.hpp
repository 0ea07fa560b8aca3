#pragma once
// The signed JWT a service account trades for an OAuth2 access token (RFC 7523, Google's
// "service account authorization without OAuth" flow): base64url pieces, RS256 with OpenSSL.
// Pure apart from the clock value the caller passes in; no I/O.

#include <openssl/evp.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "util/c_handle.hpp"
#include "util/secret.hpp"

namespace krow::bigquery {

// Appends the URL-safe base64 of `data` without padding (RFC 7515 §2, "base64url").
void append_base64url(std::string& out, std::string_view data);
std::string base64url(std::string_view data);

// The bytes of unpadded base64url `text`, or "" with ok=false when it is not that. For tests
// and for reading a JWT back; padding ('=') is refused, as JWS requires.
std::string decode_base64url(std::string_view text, bool& ok);

using Pkey = CHandle<EVP_PKEY, EVP_PKEY_free>;

// Loads the RSA private key of a service-account key file's `private_key` (PEM, PKCS#8).
// Throws Error(config) naming `file` and the fix when it is not one; the message never holds
// any of the PEM text.
Pkey load_rsa_private_key(const Secret& pem, const std::string& file);

// What a JWT bearer assertion claims.
struct JwtClaims {
  std::string issuer;    // iss: the service account's client_email
  std::string key_id;    // kid in the header: private_key_id ("" leaves kid out)
  std::string scope;     // scope: space-separated OAuth2 scopes
  std::string audience;  // aud: the token endpoint the assertion is sent to
  std::chrono::system_clock::time_point issued_at;  // iat; exp is iat + lifetime
  std::chrono::seconds lifetime{3600};              // Google accepts at most one hour
};

// The compact JWS "<header>.<claims>.<signature>", signed RS256 (EVP_DigestSign, SHA-256)
// with `key`. The result is a bearer credential for an hour: callers keep it out of messages.
// Throws Error(fatal_run) when OpenSSL fails to sign (with OpenSSL's reason, never the key).
Secret sign_jwt(const JwtClaims& claims, EVP_PKEY* key);

}  // namespace krow::bigquery
