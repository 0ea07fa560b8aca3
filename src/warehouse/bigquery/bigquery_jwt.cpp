#include "warehouse/bigquery/bigquery_jwt.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <climits>

#include "util/error.hpp"
#include "util/text.hpp"

namespace krow::bigquery {

namespace {

using Bio = CHandle<BIO, BIO_free>;
using MdCtx = CHandle<EVP_MD_CTX, EVP_MD_CTX_free>;

// OpenSSL's reason for the last failure on this thread ("no start line", "bad decrypt"): fixed
// library text, never the input. Empties the thread's error queue, so that a later, unrelated
// failure is not reported with this reason.
std::string openssl_reason() {
  const unsigned long e = ERR_peek_last_error();
  const char* reason = e ? ERR_reason_error_string(e) : nullptr;
  ERR_clear_error();
  return reason ? reason : "unknown reason";
}

// A PEM password callback that supplies none: without it, OpenSSL would prompt on the terminal
// for the passphrase of an encrypted key, and a sync would hang there.
int no_passphrase(char*, int, int, void*) {
  return 0;
}

int64_t unix_seconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

}  // namespace

void append_base64url(std::string& out, std::string_view data) {
  const size_t start = out.size();
  append_base64(out, data.data(), data.size());
  while (out.size() > start && out.back() == '=') out.pop_back();
  for (size_t i = start; i < out.size(); ++i) {
    if (out[i] == '+')
      out[i] = '-';
    else if (out[i] == '/')
      out[i] = '_';
  }
}

std::string base64url(std::string_view data) {
  std::string out;
  append_base64url(out, data);
  return out;
}

std::string decode_base64url(std::string_view text, bool& ok) {
  ok = false;
  if (text.size() % 4 == 1) return {};  // no byte count leaves one character over
  std::string standard;
  standard.reserve(text.size() + 2);
  for (char c : text) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (plain)
      standard.push_back(c);
    else if (c == '-')
      standard.push_back('+');
    else if (c == '_')
      standard.push_back('/');
    else
      return {};  // padding, whitespace or a standard-alphabet '+' '/' are not base64url
  }
  while (standard.size() % 4 != 0) standard.push_back('=');
  auto bytes = decode_base64(standard);
  if (!bytes) return {};
  ok = true;
  return std::move(*bytes);
}

Pkey load_rsa_private_key(const Secret& pem, const std::string& file) {
  const std::string& text = pem.reveal();
  if (text.size() > INT_MAX)
    throw Error(ErrorClass::config, "the private_key of " + file + " is too large to be a key");
  Bio bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
  if (!bio)
    throw Error(ErrorClass::fatal_run,
                "OpenSSL could not allocate a buffer for the key of " + file);
  Pkey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
  if (!key) {
    throw Error(ErrorClass::config, "the private_key of the service-account key file " + file +
                                        " is not a readable PEM private key (" + openssl_reason() +
                                        "): the file is damaged or edited. Download a new JSON key "
                                        "(Google Cloud console: IAM & Admin → "
                                        "Service accounts → the account → Keys → Add key → Create "
                                        "new key → JSON) and point warehouse.credentials at "
                                        "it");
  }
  if (EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA) {
    throw Error(ErrorClass::config,
                "the private_key of the service-account key file " + file +
                    " is not an RSA key; Google signs service-account tokens with RS256 only. "
                    "Download a JSON key for the account from the Google Cloud console");
  }
  return key;
}

Secret sign_jwt(const JwtClaims& claims, EVP_PKEY* key) {
  std::string header = R"({"alg":"RS256","typ":"JWT")";
  if (!claims.key_id.empty()) {
    header += R"(,"kid":)";
    append_json_string(header, claims.key_id);
  }
  header += '}';

  const int64_t iat = unix_seconds(claims.issued_at);
  std::string body = R"({"iss":)";
  append_json_string(body, claims.issuer);
  body += R"(,"scope":)";
  append_json_string(body, claims.scope);
  body += R"(,"aud":)";
  append_json_string(body, claims.audience);
  body += R"(,"iat":)";
  append_int(body, iat);
  body += R"(,"exp":)";
  append_int(body, iat + claims.lifetime.count());
  body += '}';

  std::string jwt;
  append_base64url(jwt, header);
  jwt += '.';
  append_base64url(jwt, body);

  MdCtx ctx(EVP_MD_CTX_new());
  size_t size = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &size, reinterpret_cast<const unsigned char*>(jwt.data()),
                     jwt.size()) != 1) {
    throw Error(ErrorClass::fatal_run,
                "OpenSSL could not sign the token request (" + openssl_reason() + ")");
  }
  std::string signature(size, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &size,
                     reinterpret_cast<const unsigned char*>(jwt.data()), jwt.size()) != 1) {
    throw Error(ErrorClass::fatal_run,
                "OpenSSL could not sign the token request (" + openssl_reason() + ")");
  }
  signature.resize(size);
  jwt += '.';
  append_base64url(jwt, signature);
  return Secret(std::move(jwt));
}

}  // namespace krow::bigquery
