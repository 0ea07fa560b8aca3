// BigQuery authentication through krow's real token path (TokenSource, libcurl, OpenSSL)
// against tests/bigquery/token_server.py, a local OAuth2 token endpoint that checks the JWT's
// RS256 signature like Google's, serves the GCE metadata paths and, with --upstream, is an
// authenticating proxy. Keys are made per test with the openssl command. No Kafka, no
// BigQuery emulator: the server runs with the BigQuery venv's python (for its `cryptography`
// package), KROW_TEST_BQ_PYTHON or <services>/bq/bin/python.

#include "warehouse/bigquery/bigquery_auth.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <simdjson.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "child_server.hpp"
#include "sync_fixture.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace krow::bigquery {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using namespace std::chrono_literals;

constexpr const char* kEmail = "krow@krow-test.iam.gserviceaccount.com";
constexpr const char* kRefreshToken = "1//krow-test-refresh-token-5c2e";

std::string python_path() {
  if (const char* p = std::getenv("KROW_TEST_BQ_PYTHON"); p && *p) return p;
  const char* s = std::getenv("KROW_SERVICES_DIR");
  const std::string services = s && *s ? s : std::string(KROW_SOURCE_DIR) + "/.services";
  return services + "/bq/bin/python";
}

// One token_server.py process with `args`, stopped with its test (child_server.hpp).
class TokenServer : public ChildServer {
 public:
  TokenServer(const std::string& python, std::vector<std::string> args)
      : ChildServer(with_script(python, std::move(args))) {}

 private:
  static std::vector<std::string> with_script(const std::string& python,
                                              std::vector<std::string> args) {
    args.insert(args.begin(),
                {python, std::string(KROW_SOURCE_DIR) + "/tests/bigquery/token_server.py"});
    return args;
  }
};

struct HttpResult {
  long status = 0;
  std::string body;
};

size_t append_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

// A plain request from the test itself (stats, control, proxy checks).
HttpResult http(const std::string& method, const std::string& url,
                const std::vector<std::string>& headers = {}) {
  HttpResult r;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> c(curl_easy_init(), curl_easy_cleanup);
  curl_slist* list = nullptr;
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  curl_easy_setopt(c.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(c.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
  if (method == "POST") curl_easy_setopt(c.get(), CURLOPT_POSTFIELDS, "");
  curl_easy_setopt(c.get(), CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(c.get(), CURLOPT_TIMEOUT_MS, 10000L);
  curl_easy_setopt(c.get(), CURLOPT_NOPROXY, "*");
  curl_easy_setopt(c.get(), CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(c.get(), CURLOPT_WRITEDATA, &r.body);
  if (curl_easy_perform(c.get()) == CURLE_OK)
    curl_easy_getinfo(c.get(), CURLINFO_RESPONSE_CODE, &r.status);
  curl_slist_free_all(list);
  return r;
}

// A port nothing listens on: bound by the system, then let go.
int closed_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// An RSA key pair made with the openssl command: <dir>/<name>.pem and <name>.pub.pem.
void make_key_pair(const std::filesystem::path& dir, const std::string& name) {
  const auto key = (dir / (name + ".pem")).string();
  const auto pub = (dir / (name + ".pub.pem")).string();
  const std::string cmd = "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out '" + key +
                          "' 2>/dev/null && openssl pkey -in '" + key + "' -pubout -out '" + pub + "' 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "openssl could not make a key: " << cmd;
}

// A service-account key file's text holding <dir>/<key>.pem, sending to `token_uri`.
std::string service_account_json(const std::filesystem::path& dir, const std::string& key,
                                 const std::string& token_uri) {
  std::string j = R"({"type":"service_account","project_id":"krow-test","private_key_id":"9f8e7d",)";
  j += R"("private_key":)";
  append_json_string(j, read_file(dir / (key + ".pem")));
  j += R"(,"client_email":")" + std::string(kEmail) + R"(","client_id":"1234","token_uri":)";
  append_json_string(j, token_uri);
  return j + "}";
}

class BigQueryAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    python_ = python_path();
    if (::access(python_.c_str(), X_OK) != 0) {
      GTEST_SKIP() << "no BigQuery venv python at " << python_
                   << ": run `bash tests/reference/setup_venv.sh scripts/bigquery/requirements.txt "
                      "bq` (it prints the "
                      "path) or set KROW_TEST_BQ_PYTHON";
    }
    dir_ = std::filesystem::temp_directory_path() /
           ("krow-bq-auth-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    make_key("signer");
    make_key("stranger");
  }
  void TearDown() override {
    servers_.clear();  // stops every server before its files go
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  void make_key(const std::string& name) { make_key_pair(dir_, name); }

  // Starts a token server whose signer is the "signer" key; `extra` arguments after.
  TokenServer& start(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--public-key",    (dir_ / "signer.pub.pem").string(),
                                     "--issuer",        kEmail,
                                     "--refresh-token", kRefreshToken};
    args.insert(args.end(), extra.begin(), extra.end());
    servers_.push_back(std::make_unique<TokenServer>(python_, args));
    return *servers_.back();
  }

  // A service-account key file holding key `key` ("signer" or "stranger"), sending to `token_uri`.
  std::string key_file(const std::string& key, const std::string& token_uri,
                       const std::string& name = "key.json") {
    return write(name, service_account_json(dir_, key, token_uri));
  }

  std::string user_file(const std::string& refresh_token, const std::string& token_uri,
                        const std::string& name) {
    std::string j =
        R"({"type":"authorized_user","client_id":"krow-test-client.apps.googleusercontent.com",)";
    j +=
        R"("client_secret":"krow-test-client-secret","account":"dev@example.com","refresh_token":)";
    append_json_string(j, refresh_token);
    j += R"(,"token_uri":)";
    append_json_string(j, token_uri);
    j += "}";
    return write(name, j);
  }

  std::string write(const std::string& name, const std::string& text) {
    const auto p = dir_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

  // A counter of the server's /stats ("issued", "refused", "proxied"...; "by_grant/metadata").
 public:
  static int64_t stat(const TokenServer& s, const std::string& pointer) {
    const auto r = http("GET", s.url() + "/stats");
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    int64_t n = -1;
    if (parser.parse(r.body).get(doc) != simdjson::SUCCESS) return -1;
    if (doc.at_pointer("/" + pointer).get(n) != simdjson::SUCCESS) return 0;
    return n;
  }

 protected:
  // The error make/authorization threw, or a failure.
  template <typename F>
  static Error error_of(F&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "no krow::Error thrown";
    return Error(ErrorClass::conflict, "none");
  }

  void expect_no_secret(const std::string& message, const std::string& key) {
    std::istringstream in(read_file(dir_ / (key + ".pem")));
    for (std::string line; std::getline(in, line);) {
      if (line.size() >= 16) {
        EXPECT_THAT(message, Not(HasSubstr(line)));
      }
    }
    // A JWT's header is base64url JSON: it starts "eyJ". Tokens start "ya29.".
    EXPECT_THAT(message, Not(HasSubstr("eyJ")));
    EXPECT_THAT(message, Not(HasSubstr("ya29.")));
    EXPECT_THAT(message, Not(HasSubstr(kRefreshToken)));
  }

  std::string python_;
  std::filesystem::path dir_;
  std::vector<std::unique_ptr<TokenServer>> servers_;
};

TEST_F(BigQueryAuth, ServiceAccountTokenIsFetchedOnceAndCached) {
  auto& server = start();
  const auto key = key_file("signer", server.url() + "/token");
  auto source = make_token_source(key, 10s);
  EXPECT_EQ(source->describe(),
            std::string("service account ") + kEmail + " (key file " + key + ")");
  const std::string first = source->authorization();
  EXPECT_THAT(first, StartsWith("Bearer ya29.krow-test-"));
  for (int i = 0; i < 20; ++i) EXPECT_EQ(source->authorization(), first);
  EXPECT_EQ(stat(server, "issued"), 1);
  EXPECT_EQ(stat(server, "refused"), 0);
}

TEST_F(BigQueryAuth, ShortLivedTokenIsReplacedBeforeItExpires) {
  auto& server = start({"--lifetime", "2"});
  auto source = make_token_source(key_file("signer", server.url() + "/token"), 10s);
  const std::string first = source->authorization();
  EXPECT_EQ(source->authorization(), first) << "a 2 s token is kept for its first second";
  EXPECT_EQ(stat(server, "issued"), 1);
  // The margin for a 2 s token is 1 s: after it, the next call fetches another.
  std::this_thread::sleep_for(1200ms);
  const std::string second = source->authorization();
  EXPECT_NE(second, first);
  EXPECT_EQ(stat(server, "issued"), 2);
  std::this_thread::sleep_for(1200ms);
  EXPECT_NE(source->authorization(), second);
  EXPECT_EQ(stat(server, "issued"), 3);
}

TEST_F(BigQueryAuth, AnOutageDuringAnEarlyRefreshKeepsTheTokenInHand) {
  auto& server = start({"--lifetime", "3"});
  auto source = make_token_source(key_file("signer", server.url() + "/token"), 10s);
  const std::string first = source->authorization();
  std::this_thread::sleep_for(1700ms);  // within the 1.5 s margin, not expired
  ASSERT_EQ(http("POST", server.url() + "/control/fail?times=1&status=503").status, 200);
  EXPECT_EQ(source->authorization(), first);
  EXPECT_NE(source->authorization(), first) << "the next call tries again";
  EXPECT_EQ(stat(server, "issued"), 2);
  // A token the API refused (invalidate) is not kept: the outage is the caller's to retry.
  ASSERT_EQ(http("POST", server.url() + "/control/fail?times=1&status=503").status, 200);
  source->invalidate();
  EXPECT_EQ(error_of([&] { source->authorization(); }).error_class(), ErrorClass::transient);
}

TEST_F(BigQueryAuth, InvalidateFetchesANewTokenOnce) {
  auto& server = start();
  auto source = make_token_source(key_file("signer", server.url() + "/token"), 10s);
  const std::string first = source->authorization();
  source->invalidate();
  const std::string second = source->authorization();
  EXPECT_NE(second, first);
  EXPECT_EQ(source->authorization(), second);
  EXPECT_EQ(stat(server, "issued"), 2);
}

TEST_F(BigQueryAuth, AKeyTheSignerDoesNotKnowIsRefusedWithTheFixAndNotEchoed) {
  auto& server = start();
  const auto key = key_file("stranger", server.url() + "/token");
  auto source = make_token_source(key, 10s);
  const Error e = error_of([&] { source->authorization(); });
  const std::string msg = e.what();
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run) << msg;
  EXPECT_THAT(msg, HasSubstr(key));
  EXPECT_THAT(msg, HasSubstr("invalid_grant: Invalid JWT Signature."));
  EXPECT_THAT(msg, HasSubstr("Keys → Add key"));
  EXPECT_THAT(msg, HasSubstr("enabled"));
  EXPECT_THAT(msg, HasSubstr("clock"));
  expect_no_secret(msg, "stranger");
  EXPECT_EQ(stat(server, "refused"), 1);
  EXPECT_EQ(stat(server, "issued"), 0);
  EXPECT_THAT(source->describe(), Not(HasSubstr("BEGIN")));
}

TEST_F(BigQueryAuth, MalformedKeyFilesAreConfigErrorsNamingTheFile) {
  auto& server = start();
  const std::string pem = read_file(dir_ / "signer.pem");
  const std::string cut = pem.substr(0, pem.size() / 2);
  std::string cut_json = R"({"type":"service_account","client_email":"a@b","private_key":)";
  append_json_string(cut_json, cut);
  cut_json += "}";
  const std::string files[] = {
      write("truncated.json",
            read_file(key_file("signer", server.url() + "/token")).substr(0, 200)),
      write("no-email.json", R"({"type":"service_account","private_key":"x"})"),
      write("cut-key.json", cut_json),
      write("empty.json", ""),
      (dir_ / "nowhere.json").string(),
  };
  for (const auto& f : files) {
    const Error e = error_of([&] { make_token_source(f, 10s); });
    EXPECT_EQ(e.error_class(), ErrorClass::config) << e.what();
    EXPECT_THAT(e.what(), HasSubstr(f));
    expect_no_secret(e.what(), "signer");
  }
  EXPECT_EQ(stat(server, "issued") + stat(server, "refused"), 0) << "nothing was sent";
}

TEST_F(BigQueryAuth, AnUnreachableOrFailingTokenEndpointIsTransient) {
  {
    auto source = make_token_source(
        key_file("signer", "http://127.0.0.1:" + std::to_string(closed_port()) + "/token"), 5s);
    const Error e = error_of([&] { source->authorization(); });
    EXPECT_EQ(e.error_class(), ErrorClass::transient) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("cannot reach the OAuth2 token endpoint"));
    expect_no_secret(e.what(), "signer");
  }
  auto& server = start();
  auto source = make_token_source(key_file("signer", server.url() + "/token"), 5s);
  for (const char* status : {"503", "429"}) {
    ASSERT_EQ(http("POST", server.url() + "/control/fail?times=1&status=" + status).status, 200);
    const Error e = error_of([&] { source->authorization(); });
    EXPECT_EQ(e.error_class(), ErrorClass::transient) << e.what();
    EXPECT_THAT(e.what(), HasSubstr(std::string("HTTP ") + status));
  }
  // The outage over, the same source gets its token.
  EXPECT_THAT(source->authorization(), StartsWith("Bearer ya29."));
  EXPECT_EQ(stat(server, "issued"), 1);
}

TEST_F(BigQueryAuth, AdcFindsAServiceAccountKeyThroughTheEnvironment) {
  auto& server = start();
  const auto key = key_file("signer", server.url() + "/token");
  // The one test of the real environment lookup: set, used, and put back.
  const char* before = std::getenv("GOOGLE_APPLICATION_CREDENTIALS");
  const std::string saved = before ? before : "";
  setenv("GOOGLE_APPLICATION_CREDENTIALS", key.c_str(), 1);
  std::unique_ptr<TokenSource> source;
  try {
    source = make_token_source("adc", 10s);
  } catch (...) {
    before ? setenv("GOOGLE_APPLICATION_CREDENTIALS", saved.c_str(), 1)
           : unsetenv("GOOGLE_APPLICATION_CREDENTIALS");
    throw;
  }
  before ? setenv("GOOGLE_APPLICATION_CREDENTIALS", saved.c_str(), 1)
         : unsetenv("GOOGLE_APPLICATION_CREDENTIALS");
  EXPECT_THAT(source->describe(), HasSubstr("application default credentials (service account"));
  EXPECT_THAT(source->describe(), HasSubstr("GOOGLE_APPLICATION_CREDENTIALS"));
  EXPECT_THAT(source->authorization(), StartsWith("Bearer ya29."));
  EXPECT_EQ(stat(server, "by_grant/jwt-bearer"), 1);
}

TEST_F(BigQueryAuth, AdcUserCredentialsTradeTheirRefreshToken) {
  auto& server = start();
  AdcEnvironment env;
  env.credentials_file = user_file(kRefreshToken, server.url() + "/token", "user.json");
  env.metadata_host = "127.0.0.1:" + std::to_string(closed_port());
  auto source = make_token_source("adc", 10s, env);
  EXPECT_THAT(source->describe(), HasSubstr("user credentials of dev@example.com"));
  const std::string first = source->authorization();
  EXPECT_THAT(first, StartsWith("Bearer ya29."));
  EXPECT_EQ(source->authorization(), first);
  EXPECT_EQ(stat(server, "by_grant/refresh_token"), 1);

  // gcloud's well-known file, when the variable is not set; a revoked refresh token there.
  env.credentials_file.clear();
  env.home = (dir_ / "home").string();
  const auto revoked = user_file("1//revoked-refresh", server.url() + "/token",
                                 "home/.config/gcloud/application_default_credentials.json");
  auto from_home = make_token_source("adc", 10s, env);
  EXPECT_THAT(from_home->describe(), HasSubstr("gcloud's well-known file"));
  const Error e = error_of([&] { from_home->authorization(); });
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run) << e.what();
  EXPECT_THAT(e.what(), HasSubstr(revoked));
  EXPECT_THAT(e.what(), HasSubstr("Token has been expired or revoked."));
  EXPECT_THAT(e.what(), HasSubstr("gcloud auth application-default login"));
  EXPECT_THAT(e.what(), Not(HasSubstr("1//revoked-refresh")));
  EXPECT_THAT(e.what(), Not(HasSubstr("krow-test-client-secret")));
}

TEST_F(BigQueryAuth, AdcFallsBackToTheMetadataServer) {
  auto& server = start({"--account", "vm-sa@krow-test.iam.gserviceaccount.com", "--lifetime", "2"});
  // The metadata server answers only requests that say Metadata-Flavor: Google.
  EXPECT_EQ(
      http("GET", server.url() + "/computeMetadata/v1/instance/service-accounts/default/token")
          .status,
      403);
  AdcEnvironment env;
  env.home = (dir_ / "empty-home").string();
  env.metadata_host = "127.0.0.1:" + std::to_string(server.port());
  auto source = make_token_source("adc", 10s, env);
  EXPECT_EQ(source->describe(), "application default credentials (metadata server " +
                                    env.metadata_host +
                                    ", service account vm-sa@krow-test.iam.gserviceaccount.com)");
  const std::string first = source->authorization();
  EXPECT_THAT(first, StartsWith("Bearer ya29."));
  EXPECT_EQ(source->authorization(), first);
  std::this_thread::sleep_for(1200ms);
  EXPECT_NE(source->authorization(), first);
  EXPECT_EQ(stat(server, "by_grant/metadata"), 2);

  // With no metadata server (and nothing else), adc says how to set credentials up.
  env.metadata_host = "127.0.0.1:" + std::to_string(closed_port());
  const Error e = error_of([&] { make_token_source("adc", 10s, env); });
  EXPECT_EQ(e.error_class(), ErrorClass::config);
  EXPECT_THAT(e.what(), HasSubstr("gcloud auth application-default login"));
}

// The proxy mode the BigQuery tests put in front of the emulator: only tokens this server
// issued, and not expired, get through; the rest get Google's 401.
TEST_F(BigQueryAuth, ProxyForwardsOnlyRequestsWithAnIssuedToken) {
  auto& upstream = start();  // without --upstream: answers /echo
  auto& proxy = start({"--upstream", upstream.url(), "--lifetime", "2"});
  auto source = make_token_source(key_file("signer", proxy.url() + "/token"), 10s);
  const std::string auth = source->authorization();

  const auto ok =
      http("POST", proxy.url() + "/echo?alt=json&x=1", {"Authorization: " + auth, "X-Krow: 1"});
  ASSERT_EQ(ok.status, 200) << ok.body;
  simdjson::dom::parser parser;
  simdjson::dom::element echo;
  ASSERT_EQ(parser.parse(ok.body).get(echo), simdjson::SUCCESS) << ok.body;
  EXPECT_EQ(std::string_view(echo["method"]), "POST");
  EXPECT_EQ(std::string_view(echo["path"]), "/echo");
  EXPECT_EQ(std::string_view(echo["query"]), "alt=json&x=1");
  EXPECT_EQ(std::string_view(echo["headers"]["x-krow"]), "1");
  EXPECT_EQ(echo["headers"]["authorization"].error(), simdjson::NO_SUCH_FIELD)
      << "the token stays at the proxy";

  for (const auto& headers : {std::vector<std::string>{},
                              std::vector<std::string>{"Authorization: Bearer ya29.forged"}}) {
    const auto refused =
        http("GET", proxy.url() + "/bigquery/v2/projects/krow-test/datasets", headers);
    EXPECT_EQ(refused.status, 401);
    EXPECT_THAT(refused.body, HasSubstr(R"("status": "UNAUTHENTICATED")"));
    EXPECT_THAT(refused.body, HasSubstr("Request had invalid authentication credentials"));
  }
  std::this_thread::sleep_for(2200ms);  // the token has expired
  EXPECT_EQ(http("GET", proxy.url() + "/echo", {"Authorization: " + auth}).status, 401);
  EXPECT_EQ(stat(proxy, "proxied"), 1);
  EXPECT_EQ(stat(proxy, "proxy_refused"), 3);
}

// krow sync end to end with credentials: the emulator takes no token, so token_server.py
// stands in front of it as an authenticating proxy that issues short-lived tokens and
// refuses any other (a 401, as BigQuery answers an expired token).
class BigQueryAuthSync : public testkit::SyncTest {
 protected:
  std::string engine() const override { return "bigquery"; }
  void SetUp() override {
    python_ = python_path();
    if (::access(python_.c_str(), X_OK) != 0) GTEST_SKIP() << "no BigQuery venv python at " << python_;
    SyncTest::SetUp();
    make_key_pair(dir(), "signer");
    make_key_pair(dir(), "stranger");
  }
  // A manifest whose warehouse goes through `proxy` with the key `key`.
  std::string manifest(const std::string& topic, const ChildServer& proxy, const std::string& key) {
    std::ofstream(dir() / "key.json") << service_account_json(dir(), key, proxy.url() + "/token");
    std::ofstream(dir() / "auth.yaml") << "name: it\nsource:\n  bootstrap_servers: " << bootstrap_
                                       << "\ntopics:\n  names: [\"" << topic << "\"]\nbatch:\n  max_messages: 500\n"
                                       << "warehouse:\n  type: bigquery\n  project: " << bq_project()
                                       << "\n  endpoint: " << proxy.url() << "\n  credentials: key.json\n";
    return (dir() / "auth.yaml").string();
  }
  std::unique_ptr<TokenServer> proxy(int lifetime_s) {
    return std::make_unique<TokenServer>(
        python_, std::vector<std::string>{"--public-key", (dir() / "signer.pub.pem").string(), "--issuer", kEmail,
                                          "--lifetime", std::to_string(lifetime_s), "--upstream",
                                          testkit::BqSession::default_endpoint()});
  }
  std::string python_;
};

// Tokens that live 2 s expire many times during the sync: krow fetches new ones before
// they run out (or after a 401) and every message is stored once.
TEST_F(BigQueryAuthSync, TokensExpiringMidSyncAreRenewedAndNothingIsLostOrDoubled) {
  const auto topic = make_topic("bq-token", 2);
  testkit::Producer p(bootstrap_, {}, {{"linger.ms", "5"}});
  for (int i = 0; i < 8000; ++i) p.send(topic, testkit::Record{std::nullopt, "{\"i\": " + std::to_string(i) + "}"});
  p.flush();
  const auto server = proxy(2);
  // Frozen after its first batch for longer than a token lives: the token it holds has
  // expired when it goes on.
  const pid_t pid = start_krow_frozen_after_first_batch({"sync", manifest(topic, *server, "signer")});
  std::this_thread::sleep_for(3s);
  kill(pid, SIGCONT);
  int status = 0;
  ASSERT_TRUE(finishes(pid, std::chrono::seconds(120), status));
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_GE(BigQueryAuth::stat(*server, "issued"), 2);
  EXPECT_GT(BigQueryAuth::stat(*server, "proxied"), 16);
  EXPECT_EQ(probe().count(table_of(topic)), 8000);
  EXPECT_EQ(probe().distinct_ids(table_of(topic)), 8000);
  EXPECT_EQ(differences(probe().rows(table_of(topic)), testkit::consume_all(bootstrap_, topic)), 0u);
}

// A key the token endpoint does not know: the sync stops before reading, says which file
// and what to do, and never prints the key.
TEST_F(BigQueryAuthSync, AWrongKeyIsRefusedNamingTheFileAndNotEchoed) {
  const auto topic = make_topic("bq-wrong-key");
  const auto server = proxy(60);
  const auto r = krow({"sync", manifest(topic, *server, "stranger")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("key.json"));
  EXPECT_THAT(r.err, HasSubstr("Invalid JWT Signature"));
  std::istringstream pem(read_file(dir() / "stranger.pem"));
  for (std::string line; std::getline(pem, line);)
    if (line.size() >= 16) {
      EXPECT_THAT(r.err + r.out, Not(HasSubstr(line)));
    }
  EXPECT_THAT(r.err, Not(HasSubstr("eyJ")));  // no JWT
  EXPECT_EQ(BigQueryAuth::stat(*server, "proxied"), 0);
}

}  // namespace
}  // namespace krow::bigquery
