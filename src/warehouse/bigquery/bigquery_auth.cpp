#include "warehouse/bigquery/bigquery_auth.hpp"

#include <openssl/crypto.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "http/http_client.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/text.hpp"
#include "warehouse/bigquery/bigquery_jwt.hpp"

namespace krow::bigquery {

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;

constexpr std::string_view kJwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer";
constexpr std::string_view kMetadataTokenPath =
    "/computeMetadata/v1/instance/service-accounts/default/token";
constexpr std::string_view kMetadataEmailPath =
    "/computeMetadata/v1/instance/service-accounts/default/email";
constexpr std::string_view kDefaultMetadataHost = "metadata.google.internal";
constexpr uint64_t kMaxCredentialsFileBytes = 1 << 20;  // a key file is about 2.3 KB

const char* const kAdcHowTo =
    "Set application default credentials up with `gcloud auth application-default login`, or set "
    "GOOGLE_APPLICATION_CREDENTIALS to a service-account JSON key file, or give that file's path "
    "as "
    "warehouse.credentials in the manifest";

// ---- HTTP to the token endpoint -------------------------------------------------------------

// One answer of a token endpoint or metadata server. Never holds the request.
struct TokenAnswer {
  long status = 0;   // 0 when no HTTP answer came (see transport_error)
  std::string body;  // at most kMaxTokenAnswerBytes; "" when over_limit
  bool over_limit = false;
  bool metadata_flavor = false;  // the answer carried "Metadata-Flavor: Google"
  std::string transport_error;
  bool transient = false;  // with status 0: worth retrying (network, timeout)
  ~TokenAnswer() { OPENSSL_cleanse(body.data(), body.size()); }  // a 200 body holds a token
};

TokenAnswer answer_of(http::Response r) {
  TokenAnswer a;
  a.status = r.status;
  a.body.swap(r.body);  // moved without a copy of the token left behind
  a.over_limit = r.failure == http::Failure::too_large;
  a.metadata_flavor =
      lower_ascii(r.header("metadata-flavor").value_or("")).find("google") != std::string::npos;
  if (r.status == 0 && !a.over_limit) {
    a.transport_error = r.error;
    a.transient = r.transient();
  }
  return a;
}

// One reused HTTP client (so that a refresh reuses the TLS connection), with krow's timeouts,
// TLS verification on, no redirects, http(s) only.
class TokenHttp {
 public:
  explicit TokenHttp(milliseconds timeout) : timeout_(timeout) {}

  // POST `form` (application/x-www-form-urlencoded) to `url`. `form` is wiped afterwards: it
  // holds a signed assertion or a refresh token.
  TokenAnswer post_form(const std::string& url, std::string& form) {
    http::Request q = request(url, timeout_);
    q.method = "POST";
    q.headers = {"Content-Type: application/x-www-form-urlencoded", "Accept: application/json"};
    q.body = form;
    TokenAnswer a = answer_of(client_.send(q));
    OPENSSL_cleanse(form.data(), form.size());
    return a;
  }

  // GET `url` from a metadata server: never through a proxy (it is a link-local service), with
  // `connect_timeout` so that a machine without one finds out quickly.
  TokenAnswer get_metadata(const std::string& url, milliseconds connect_timeout) {
    http::Request q = request(url, connect_timeout);
    q.headers = {"Metadata-Flavor: Google"};
    q.use_proxy = false;
    return answer_of(client_.send(q));
  }

 private:
  http::Request request(const std::string& url, milliseconds connect_timeout) const {
    http::Request q;
    q.url = url;
    q.timeout = timeout_;
    q.connect_timeout = connect_timeout;
    q.max_body_bytes = kMaxTokenAnswerBytes;
    return q;
  }

  http::Client client_;
  milliseconds timeout_;
};

// `value` percent-encoded for a form body (RFC 3986 unreserved characters kept).
void append_form_value(std::string& out, std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
}

// Text a server sent, made safe to put in a message: one line, printable, bounded.
std::string server_text(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (out.size() >= 300) {
      out += "...";
      break;
    }
    out.push_back(c < 0x20 || c == 0x7f ? ' ' : static_cast<char>(c));
  }
  return out;
}

// ---- Token answers ---------------------------------------------------------------------------

// What a token source asked for, so that errors name it: "service account x (key file /k.json)"
// refused by "https://oauth2.googleapis.com/token", and what to do about it.
struct Asker {
  std::string who;
  std::string endpoint;
  std::string fix;  // for a refusal (4xx); what() puts it after ". Fix: "
};

struct Fetched {
  Secret token;
  milliseconds lifetime{0};
};

// OAuth2's error fields of a 4xx answer ("invalid_grant: Invalid JWT Signature."), or a short
// note of what came instead. Google puts no secret in them.
std::string oauth_error(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(body).get(obj) != simdjson::SUCCESS) {
    return body.empty() ? "no body" : "an answer that is not OAuth2's JSON";
  }
  std::string_view error, description;
  if (obj["error"].get(error) != simdjson::SUCCESS) {
    // Google's APIs (and the metadata server) nest it: {"error":{"message":..., "status":...}}.
    std::string_view message;
    if (obj.at_pointer("/error/message").get(message) == simdjson::SUCCESS)
      return server_text(message);
    return "a JSON answer without \"error\"";
  }
  std::string out = server_text(error);
  if (obj["error_description"].get(description) == simdjson::SUCCESS && !description.empty())
    out += ": " + server_text(description);
  return out;
}

// The token of a token endpoint's (or metadata server's) answer. Throws transient for outages
// (no answer, 5xx, 429), fatal_run for a refusal (naming who, the endpoint and the fix) and for
// an endpoint that does not answer like an OAuth2 one.
Fetched token_from_answer(const TokenAnswer& a, const Asker& asker) {
  const std::string status = std::to_string(a.status);
  const ErrorSource source{"OAuth2",
                           a.status == 0 && !a.over_limit ? "no answer" : "HTTP " + status};
  if (a.status == 0 && !a.over_limit) {
    if (a.transient) {
      throw Error(ErrorClass::transient,
                  "cannot reach the OAuth2 token endpoint " + asker.endpoint + " for " + asker.who +
                      " (" + a.transport_error + "); krow retries",
                  source);
    }
    throw Error(ErrorClass::fatal_run,
                "the OAuth2 token endpoint " + asker.endpoint + " for " + asker.who +
                    " could not be used (" + a.transport_error + ")",
                Fix{"check the token_uri and this machine's CA certificates", ": "}, source);
  }
  if (a.status >= 500 || a.status == 429) {
    throw Error(ErrorClass::transient,
                "the OAuth2 token endpoint " + asker.endpoint + " answered HTTP " + status +
                    (a.over_limit ? std::string() : " (" + oauth_error(a.body) + ")") + " for " +
                    asker.who + "; krow retries",
                source);
  }
  if (a.over_limit) {
    throw Error(ErrorClass::fatal_run,
                "the OAuth2 token endpoint " + asker.endpoint + " answered HTTP " + status +
                    " with more than " + std::to_string(kMaxTokenAnswerBytes / 1024) +
                    " KiB, which is no token answer",
                Fix{"check that it is Google's token endpoint", ": "}, source);
  }
  if (a.status == 400 || a.status == 401 || a.status == 403 || a.status == 404) {
    throw Error(ErrorClass::fatal_run,
                "BigQuery credentials refused: " + asker.endpoint + " refused " + asker.who +
                    " (HTTP " + status + ", " + oauth_error(a.body) + ")",
                Fix{asker.fix, ". Fix: "}, source);
  }
  if (a.status != 200) {
    throw Error(ErrorClass::fatal_run,
                "the OAuth2 token endpoint " + asker.endpoint + " answered HTTP " + status +
                    " for " + asker.who + ", not a token",
                Fix{"check that it is Google's token endpoint", ": "}, source);
  }
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  std::string_view token;
  if (parser.parse(a.body).get(obj) != simdjson::SUCCESS ||
      obj["access_token"].get(token) != simdjson::SUCCESS || token.empty()) {
    throw Error(ErrorClass::fatal_run,
                "the OAuth2 token endpoint " + asker.endpoint +
                    " answered HTTP 200 without an access_token for " + asker.who,
                Fix{"check that it is Google's token endpoint", ": "}, source);
  }
  for (unsigned char c : token) {  // it goes into a header line: nothing that could end or bend it
    if (c <= 0x20 || c >= 0x7f) {
      throw Error(ErrorClass::fatal_run,
                  "the OAuth2 token endpoint " + asker.endpoint +
                      " answered an access_token that is not header-safe text");
    }
  }
  Fetched f{Secret(std::string(token)), seconds(3600)};  // Google's tokens live an hour
  // Bounded to a day (Google's live at most 12 hours), so that no answer can overflow the clock.
  constexpr double kMaxLifetimeS = 86400;
  double expires_in = 0;
  if (obj["expires_in"].get(expires_in) == simdjson::SUCCESS) {  // an integer converts too
    f.lifetime =
        milliseconds(static_cast<int64_t>(std::clamp(expires_in, 0.0, kMaxLifetimeS) * 1000));
  }
  return f;
}

// ---- Token sources ---------------------------------------------------------------------------

class NoAuth final : public TokenSource {
 public:
  std::string authorization() override { return {}; }
  void invalidate() override {}
  std::string describe() const override { return "no authentication (emulator endpoint)"; }
};

// Keeps one token and asks fetch() for another when it has none, when it is within the refresh
// margin of its expiry, or after invalidate().
class CachedTokenSource : public TokenSource {
 public:
  std::string authorization() final {
    const auto now = steady_clock::now();
    if (header_.empty() || invalidated_ || now + margin_ >= expires_) {
      Fetched f;
      try {
        f = fetch();
      } catch (const Error& e) {
        // An early refresh that meets an outage: the token in hand still works until it
        // expires, and the next call tries again (as Google's client libraries do).
        const bool still_good = !header_.empty() && !invalidated_ && now < expires_;
        if (e.error_class() == ErrorClass::transient && still_good) return header_.reveal();
        throw;
      }
      // Counted from before the request: the token may have been issued a little later, never
      // earlier, so krow's idea of its expiry errs on the early side.
      expires_ = now + f.lifetime;
      margin_ = refresh_margin(f.lifetime);
      header_ = Secret("Bearer " + f.token.reveal());
      invalidated_ = false;
    }
    return header_.reveal();
  }
  void invalidate() final { invalidated_ = true; }

 protected:
  // A new token. Throws as authorization() documents.
  virtual Fetched fetch() = 0;

 private:
  Secret header_;
  steady_clock::time_point expires_{};
  milliseconds margin_{0};
  bool invalidated_ = false;
};

std::string service_account_fix(const CredentialsFile& f) {
  return "the key may have been deleted, or its service account " + f.client_email +
         " disabled or deleted. Check that the account is enabled (Google Cloud console: IAM & "
         "Admin → Service "
         "accounts), make a new key there (the account → Keys → Add key → Create new key → JSON) "
         "and point "
         "warehouse.credentials at it instead of " +
         f.path +
         "; an \"Invalid JWT\" about the token's time (iat/exp) means this machine's clock is off: "
         "sync it (NTP, "
         "chrony or timedatectl)";
}

// A service-account key: a JWT signed with its private key, traded at its token_uri.
class ServiceAccountSource final : public CachedTokenSource {
 public:
  ServiceAccountSource(CredentialsFile file, milliseconds timeout, std::string description)
      : file_(std::move(file)),
        key_(load_rsa_private_key(file_.private_key, file_.path)),
        http_(timeout),
        description_(std::move(description)) {
    asker_ = {"service account " + file_.client_email + " (key file " + file_.path + ")",
              file_.token_uri, service_account_fix(file_)};
  }
  std::string describe() const override { return description_; }

 private:
  Fetched fetch() override {
    JwtClaims claims;
    claims.issuer = file_.client_email;
    claims.key_id = file_.private_key_id;
    claims.scope = std::string(kBigQueryScope);
    claims.audience = file_.token_uri;
    claims.issued_at = std::chrono::system_clock::now();
    Secret assertion = sign_jwt(claims, key_.get());
    std::string form = "grant_type=";
    append_form_value(form, kJwtBearerGrant);
    form += "&assertion=";
    append_form_value(form, assertion.reveal());
    return token_from_answer(http_.post_form(file_.token_uri, form), asker_);
  }

  CredentialsFile file_;
  Pkey key_;
  TokenHttp http_;
  std::string description_;
  Asker asker_;
};

// User credentials of `gcloud auth application-default login`: a refresh token traded for
// access tokens.
class AuthorizedUserSource final : public CachedTokenSource {
 public:
  AuthorizedUserSource(CredentialsFile file, milliseconds timeout, std::string origin)
      : file_(std::move(file)), http_(timeout) {
    const std::string user =
        file_.account.empty() ? "user credentials" : "user credentials of " + file_.account;
    description_ =
        "application default credentials (" + user + " from " + file_.path + ", " + origin + ")";
    asker_ = {user + " (file " + file_.path + ")", file_.token_uri,
              "these credentials have expired or were revoked; run `gcloud auth "
              "application-default login` "
              "again, or use a service-account key (GOOGLE_APPLICATION_CREDENTIALS or "
              "warehouse.credentials)"};
  }
  std::string describe() const override { return description_; }

 private:
  Fetched fetch() override {
    std::string form = "grant_type=refresh_token&client_id=";
    append_form_value(form, file_.client_id);
    form += "&client_secret=";
    append_form_value(form, file_.client_secret.reveal());
    form += "&refresh_token=";
    append_form_value(form, file_.refresh_token.reveal());
    return token_from_answer(http_.post_form(file_.token_uri, form), asker_);
  }

  CredentialsFile file_;
  TokenHttp http_;
  std::string description_;
  Asker asker_;
};

// The GCE/GKE metadata server: tokens of the VM's (or workload's) service account.
class MetadataServerSource final : public CachedTokenSource {
 public:
  MetadataServerSource(std::string host, std::string account, milliseconds timeout)
      : host_(std::move(host)), http_(timeout), timeout_(timeout) {
    url_ = "http://" + host_ + std::string(kMetadataTokenPath) + "?scopes=";
    append_form_value(url_, kBigQueryScope);
    description_ = "application default credentials (metadata server " + host_ +
                   ", service account " + account + ")";
    asker_ = {"the service account " + account + " of this VM or workload",
              "http://" + host_ + std::string(kMetadataTokenPath),
              "give the VM (or the GKE workload, through Workload Identity) a service account "
              "with the "
              "BigQuery scope (cloud-platform or bigquery), or use a service-account key "
              "(GOOGLE_APPLICATION_CREDENTIALS or warehouse.credentials)"};
  }
  std::string describe() const override { return description_; }

 private:
  Fetched fetch() override { return token_from_answer(http_.get_metadata(url_, timeout_), asker_); }

  std::string host_;
  TokenHttp http_;
  milliseconds timeout_;
  std::string url_;
  std::string description_;
  Asker asker_;
};

std::unique_ptr<TokenSource> from_file(const std::string& path, const std::string& setting,
                                       milliseconds timeout, bool adc, const std::string& origin) {
  CredentialsFile f = read_credentials_file(path, setting);
  if (f.kind == CredentialsFile::Kind::authorized_user) {
    if (!adc) {
      throw Error(
          ErrorClass::config,
          "warehouse.credentials '" + path +
              "' holds user credentials (type authorized_user), not a service-account key: give a "
              "service-account JSON key file, or write warehouse.credentials: adc to use gcloud's "
              "user credentials");
    }
    return std::make_unique<AuthorizedUserSource>(std::move(f), timeout, origin);
  }
  const std::string description =
      adc ? "application default credentials (service account " + f.client_email + ", key file " +
                path + ", " + origin + ")"
          : "service account " + f.client_email + " (key file " + path + ")";
  return std::make_unique<ServiceAccountSource>(std::move(f), timeout, description);
}

// The metadata server's service account email, or nullopt with `why` when none answers like
// one (no GCE/GKE here). Asked once, with a short timeout, as Google's libraries do.
std::optional<std::string> probe_metadata_server(const std::string& host, milliseconds timeout,
                                                 std::string& why) {
  const milliseconds probe_timeout = std::min(timeout, milliseconds(3000));
  TokenHttp http(probe_timeout);
  TokenAnswer a =
      http.get_metadata("http://" + host + std::string(kMetadataEmailPath), milliseconds(1000));
  if (a.status == 0) {
    why = a.over_limit ? "an over-long answer" : a.transport_error;
    return std::nullopt;
  }
  if (!a.metadata_flavor) {
    why = "HTTP " + std::to_string(a.status) +
          " without the Metadata-Flavor: Google header, so not a metadata server";
    return std::nullopt;
  }
  if (a.status == 404) {
    throw Error(ErrorClass::config,
                "warehouse.credentials: adc found the metadata server " + host +
                    ", but it has no service account for this VM or workload: attach one (with the "
                    "BigQuery or cloud-platform scope), or use a service-account key. " +
                    kAdcHowTo);
  }
  if (a.status != 200) {
    why = "HTTP " + std::to_string(a.status);
    return std::nullopt;
  }
  return server_text(a.body);
}

std::unique_ptr<TokenSource> application_default(milliseconds timeout, const AdcEnvironment& env) {
  if (!env.credentials_file.empty()) {
    return from_file(env.credentials_file, "GOOGLE_APPLICATION_CREDENTIALS", timeout, true,
                     "from GOOGLE_APPLICATION_CREDENTIALS");
  }
  std::string well_known;
  if (!env.home.empty()) {
    well_known = env.home + "/.config/gcloud/application_default_credentials.json";
    std::error_code ec;
    if (std::filesystem::exists(well_known, ec)) {
      return from_file(well_known, "gcloud's application default credentials file", timeout, true,
                       "gcloud's well-known file");
    }
  }
  const std::string host =
      env.metadata_host.empty() ? std::string(kDefaultMetadataHost) : env.metadata_host;
  std::string why;
  if (auto account = probe_metadata_server(host, timeout, why)) {
    return std::make_unique<MetadataServerSource>(host, *account, timeout);
  }
  throw Error(
      ErrorClass::config,
      "warehouse.credentials: adc found no application default credentials: "
      "GOOGLE_APPLICATION_CREDENTIALS is not set, " +
          (well_known.empty() ? std::string("HOME is not set") : well_known + " does not exist") +
          ", and no GCE/GKE metadata server answered at " + host + " (" + why + "). " + kAdcHowTo);
}

// A token_uri krow may send an assertion to: https anywhere, plain http only to this machine
// (a local test signer), since a signed assertion is a credential for an hour.
bool acceptable_token_uri(const std::string& uri) {
  if (uri.rfind("https://", 0) == 0) return uri.size() > 8;
  if (uri.rfind("http://", 0) != 0) return false;
  const std::string rest = uri.substr(7);
  std::string host;
  if (!rest.empty() && rest[0] == '[') {
    host = rest.substr(0, rest.find(']') + 1);
  } else {
    host = rest.substr(0, rest.find_first_of(":/?"));
  }
  return host == "127.0.0.1" || host == "localhost" || host == "[::1]";
}

}  // namespace

std::chrono::milliseconds refresh_margin(std::chrono::milliseconds lifetime) {
  return std::min<milliseconds>(seconds(300), lifetime / 2);
}

AdcEnvironment AdcEnvironment::from_process() {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  return {env("GOOGLE_APPLICATION_CREDENTIALS"), env("HOME"), env("GCE_METADATA_HOST")};
}

CredentialsFile parse_credentials_file(std::string_view json, const std::string& path,
                                       const std::string& setting) {
  const std::string named = setting + " '" + path + "'";
  auto bad = [&](const std::string& what) {
    return Error(ErrorClass::config, named + " " + what +
                                         ": it must be a JSON key file as Google Cloud writes it "
                                         "(IAM & Admin → Service accounts → the "
                                         "account → Keys → Add key → Create new key → JSON)");
  };
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  simdjson::padded_string padded(json);
  if (auto err = parser.parse(padded).get(obj); err) {
    // simdjson's message names the kind of fault, never the text around it.
    throw bad(err == simdjson::INCORRECT_TYPE
                  ? "is JSON but not an object"
                  : std::string("is not JSON (") + simdjson::error_message(err) + ")");
  }
  // A field's text; a field that is absent, empty or not a string is named in the error.
  auto field = [&](const char* name, bool required) -> std::string {
    simdjson::dom::element e;
    if (obj[name].get(e) != simdjson::SUCCESS) {
      if (required) throw bad("has no \"" + std::string(name) + "\" field");
      return {};
    }
    std::string_view v;
    if (e.get(v) != simdjson::SUCCESS)
      throw bad("has a \"" + std::string(name) + "\" that is not a string");
    if (v.empty() && required) throw bad("has an empty \"" + std::string(name) + "\"");
    return std::string(v);
  };

  CredentialsFile f;
  f.path = path;
  const std::string type = field("type", true);
  if (type == "service_account") {
    f.kind = CredentialsFile::Kind::service_account;
    f.client_email = field("client_email", true);
    f.private_key = Secret(field("private_key", true));
    f.private_key_id = field("private_key_id", false);
    f.token_uri = field("token_uri", false);
  } else if (type == "authorized_user") {
    f.kind = CredentialsFile::Kind::authorized_user;
    f.client_id = field("client_id", true);
    f.client_secret = Secret(field("client_secret", true));
    f.refresh_token = Secret(field("refresh_token", true));
    f.account = field("account", false);
    f.token_uri = field("token_uri", false);
  } else {
    throw Error(
        ErrorClass::config,
        named + " is a credentials file of type \"" + server_text(type) +
            "\", which krow does not support: use a service-account JSON key (type "
            "service_account) or the "
            "user credentials of `gcloud auth application-default login` (type authorized_user)");
  }
  if (f.token_uri.empty()) f.token_uri = std::string(kGoogleTokenUri);
  if (!acceptable_token_uri(f.token_uri)) {
    throw bad(
        "has a token_uri that is neither https:// nor http:// to this machine (krow sends a signed "
        "credential "
        "there)");
  }
  return f;
}

CredentialsFile read_credentials_file(const std::string& path, const std::string& setting) {
  require_readable_file(path, setting, "a service-account JSON key file (or be adc)");
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxCredentialsFileBytes) {
    throw Error(ErrorClass::config,
                setting + " '" + path + "' is " + with_thousands(size) +
                    " bytes, too large for a credentials file: it must name a service-account JSON "
                    "key file");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (!in && !in.eof())
    throw Error(ErrorClass::config, setting + " '" + path + "' could not be read");
  std::string text = std::move(buf).str();
  // The file's text holds the private key: wiped however parsing ends.
  struct Wipe {
    std::string& s;
    ~Wipe() { OPENSSL_cleanse(s.data(), s.size()); }
  } wipe{text};
  return parse_credentials_file(text, path, setting);
}

std::unique_ptr<TokenSource> make_token_source(const std::string& credentials, milliseconds timeout,
                                               const AdcEnvironment& adc) {
  if (credentials == "none") return std::make_unique<NoAuth>();
  if (credentials == "adc") return application_default(timeout, adc);
  if (credentials.empty()) {
    throw Error(
        ErrorClass::config,
        "warehouse.credentials is empty: give the path of a service-account JSON key file, or adc");
  }
  return from_file(credentials, "warehouse.credentials", timeout, false, "");
}

std::unique_ptr<TokenSource> make_token_source(const std::string& credentials,
                                               milliseconds timeout) {
  return make_token_source(credentials, timeout, AdcEnvironment::from_process());
}

}  // namespace krow::bigquery
