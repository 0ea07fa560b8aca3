// BigQuery authentication without a token endpoint: base64url, the JWT krow signs (decoded
// back and verified with OpenSSL), the refresh margin, and the refusals of credentials files.
// The token round trips are in tests/integration/bigquery_auth_test.cpp.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <simdjson.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "util/error.hpp"
#include "util/text.hpp"
#include "warehouse/bigquery/bigquery_auth.hpp"
#include "warehouse/bigquery/bigquery_jwt.hpp"

namespace krow::bigquery {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

// A fresh RSA key (made in-process: no openssl command needed) and its PEM texts.
struct TestKey {
  Pkey key;
  std::string private_pem;
  std::string public_pem;
};

std::string pem_of(EVP_PKEY* k, bool private_part) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  const int ok = private_part
                     ? PEM_write_bio_PrivateKey(bio.get(), k, nullptr, nullptr, 0, nullptr, nullptr)
                     : PEM_write_bio_PUBKEY(bio.get(), k);
  EXPECT_EQ(ok, 1);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

const TestKey& test_key() {
  static const TestKey k = [] {
    TestKey t;
    t.key.reset(EVP_RSA_gen(2048));
    t.private_pem = pem_of(t.key.get(), true);
    t.public_pem = pem_of(t.key.get(), false);
    return t;
  }();
  return k;
}

// The lines of a PEM text long enough to be recognisable (the base64 body and the armour).
std::vector<std::string> pem_lines(const std::string& pem) {
  std::vector<std::string> out;
  std::istringstream in(pem);
  for (std::string line; std::getline(in, line);)
    if (line.size() >= 16) out.push_back(line);
  return out;
}

void expect_no_pem_line(const std::string& message, const std::string& pem) {
  for (const auto& line : pem_lines(pem)) EXPECT_THAT(message, Not(HasSubstr(line)));
}

std::string key_json(const std::string& pem, const std::string& extra = "") {
  std::string j =
      R"({"type":"service_account","project_id":"krow-test","private_key_id":"0123abcd",)";
  j += R"("private_key":)";
  append_json_string(j, pem);
  j +=
      R"(,"client_email":"krow@krow-test.iam.gserviceaccount.com","token_uri":"https://oauth2.googleapis.com/token")";
  j += extra + "}";
  return j;
}

Error parse_error(const std::string& json, const std::string& path = "/keys/k.json") {
  try {
    parse_credentials_file(json, path, "credentials");
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error for " << json.substr(0, 40);
  return Error(ErrorClass::transient, "");
}

simdjson::dom::element parse_json(simdjson::dom::parser& parser, const std::string& text) {
  simdjson::dom::element e;
  EXPECT_EQ(parser.parse(text).get(e), simdjson::SUCCESS) << text;
  return e;
}

TEST(BqAuthBase64Url, MatchesRfc4648VectorsWithoutPadding) {
  EXPECT_EQ(base64url(""), "");
  EXPECT_EQ(base64url("f"), "Zg");
  EXPECT_EQ(base64url("fo"), "Zm8");
  EXPECT_EQ(base64url("foo"), "Zm9v");
  EXPECT_EQ(base64url("foob"), "Zm9vYg");
  EXPECT_EQ(base64url("fooba"), "Zm9vYmE");
  EXPECT_EQ(base64url("foobar"), "Zm9vYmFy");
  // The URL-safe alphabet: standard "+/8=" is "-_8".
  EXPECT_EQ(base64url(std::string("\xfb\xff", 2)), "-_8");
  EXPECT_EQ(base64url(R"({"alg":"RS256","typ":"JWT"})"), "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9");
}

TEST(BqAuthBase64Url, DecodesItsOwnOutputAndRefusesOtherAlphabets) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (size_t n = 0; n < 8; ++n) {
    bool ok = false;
    EXPECT_EQ(decode_base64url(base64url(all.substr(0, n)), ok), all.substr(0, n));
    EXPECT_TRUE(ok);
  }
  bool ok = true;
  decode_base64url("Zg==", ok);  // padding
  EXPECT_FALSE(ok);
  decode_base64url("+/8", ok);  // the standard alphabet
  EXPECT_FALSE(ok);
  decode_base64url("Zm 9v", ok);
  EXPECT_FALSE(ok);
  decode_base64url("Z", ok);  // one character over
  EXPECT_FALSE(ok);
}

TEST(BqAuthJwt, HeaderAndClaimsDecodeBackAndTheSignatureVerifies) {
  JwtClaims c;
  c.issuer = "krow@krow-test.iam.gserviceaccount.com";
  c.key_id = "0123abcd";
  c.scope = std::string(kBigQueryScope);
  c.audience = "https://oauth2.googleapis.com/token";
  c.issued_at = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
  const std::string jwt = sign_jwt(c, test_key().key.get()).reveal();

  const size_t dot1 = jwt.find('.');
  const size_t dot2 = jwt.find('.', dot1 + 1);
  ASSERT_NE(dot2, std::string::npos) << "three parts expected";
  EXPECT_EQ(jwt.find('.', dot2 + 1), std::string::npos);
  EXPECT_EQ(jwt.find('='), std::string::npos) << "no padding";
  bool ok1 = false, ok2 = false, ok3 = false;
  const std::string header = decode_base64url(jwt.substr(0, dot1), ok1);
  const std::string claims = decode_base64url(jwt.substr(dot1 + 1, dot2 - dot1 - 1), ok2);
  const std::string signature = decode_base64url(jwt.substr(dot2 + 1), ok3);
  ASSERT_TRUE(ok1 && ok2 && ok3);

  simdjson::dom::parser p1, p2;
  auto h = parse_json(p1, header);
  EXPECT_EQ(std::string_view(h["alg"]), "RS256");
  EXPECT_EQ(std::string_view(h["typ"]), "JWT");
  EXPECT_EQ(std::string_view(h["kid"]), "0123abcd");
  auto b = parse_json(p2, claims);
  EXPECT_EQ(std::string_view(b["iss"]), c.issuer);
  EXPECT_EQ(std::string_view(b["scope"]), "https://www.googleapis.com/auth/bigquery");
  EXPECT_EQ(std::string_view(b["aud"]), c.audience);
  EXPECT_EQ(int64_t(b["iat"]), 1'800'000'000);
  EXPECT_EQ(int64_t(b["exp"]), 1'800'003'600);

  // RS256 = RSASSA-PKCS1-v1_5 with SHA-256 over "<header>.<claims>", checked with the public key
  // alone.
  const std::string pub = test_key().public_pem;
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pub.data(), static_cast<int>(pub.size())), BIO_free);
  Pkey public_key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
  ASSERT_TRUE(public_key);
  auto verify = [&](const std::string& signed_part) {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    EXPECT_EQ(EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, public_key.get()), 1);
    return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                            signature.size(),
                            reinterpret_cast<const unsigned char*>(signed_part.data()),
                            signed_part.size()) == 1;
  };
  EXPECT_TRUE(verify(jwt.substr(0, dot2)));
  std::string tampered = jwt.substr(0, dot2);
  tampered[dot1 + 3] = tampered[dot1 + 3] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(verify(tampered));
}

TEST(BqAuthJwt, NoKeyIdMeansNoKid) {
  JwtClaims c;
  c.issuer = "a@b";
  c.scope = "s";
  c.audience = "https://x/token";
  c.issued_at = std::chrono::system_clock::now();
  const std::string jwt = sign_jwt(c, test_key().key.get()).reveal();
  bool ok = false;
  EXPECT_EQ(decode_base64url(jwt.substr(0, jwt.find('.')), ok), R"({"alg":"RS256","typ":"JWT"})");
}

TEST(BqAuthMargin, FiveMinutesOrHalfTheLifetime) {
  EXPECT_EQ(refresh_margin(3600s), 300s);
  EXPECT_EQ(refresh_margin(601s), 300s);
  EXPECT_EQ(refresh_margin(600s), 300s);
  EXPECT_EQ(refresh_margin(400s), 200s);
  EXPECT_EQ(refresh_margin(3s), 1500ms);
  EXPECT_EQ(refresh_margin(0s), 0s);
}

TEST(BqAuthKeyFile, ReadsAServiceAccountKey) {
  const auto f =
      parse_credentials_file(key_json(test_key().private_pem), "/keys/k.json", "credentials");
  EXPECT_EQ(f.kind, CredentialsFile::Kind::service_account);
  EXPECT_EQ(f.client_email, "krow@krow-test.iam.gserviceaccount.com");
  EXPECT_EQ(f.private_key_id, "0123abcd");
  EXPECT_EQ(f.token_uri, "https://oauth2.googleapis.com/token");
  EXPECT_EQ(f.private_key.reveal(), test_key().private_pem);
  EXPECT_TRUE(load_rsa_private_key(f.private_key, f.path));
}

TEST(BqAuthKeyFile, TokenUriDefaultsToGooglesAndMustBeHttpsOrLoopback) {
  std::string j = R"({"type":"service_account","client_email":"a@b","private_key":"k"})";
  EXPECT_EQ(parse_credentials_file(j, "/k.json", "credentials").token_uri, kGoogleTokenUri);
  for (const char* ok :
       {"http://127.0.0.1:8080/token", "http://localhost/token", "http://[::1]:9/token"}) {
    j = std::string(
            R"({"type":"service_account","client_email":"a@b","private_key":"k","token_uri":")") +
        ok + "\"}";
    EXPECT_EQ(parse_credentials_file(j, "/k.json", "credentials").token_uri, ok);
  }
  for (const char* bad : {"http://oauth2.googleapis.com/token",
                          "http://127.0.0.1.evil.example/token", "ftp://x/token", "https://"}) {
    j = std::string(
            R"({"type":"service_account","client_email":"a@b","private_key":"k","token_uri":")") +
        bad + "\"}";
    const Error e = parse_error(j);
    EXPECT_EQ(e.error_class(), ErrorClass::config) << bad;
    EXPECT_THAT(e.what(), HasSubstr("token_uri")) << bad;
  }
}

TEST(BqAuthKeyFile, ReadsUserCredentials) {
  const auto f = parse_credentials_file(
      R"({"type":"authorized_user","client_id":"cid","client_secret":"cs","refresh_token":"rt","account":"me@x"})",
      "/adc.json", "GOOGLE_APPLICATION_CREDENTIALS");
  EXPECT_EQ(f.kind, CredentialsFile::Kind::authorized_user);
  EXPECT_EQ(f.client_id, "cid");
  EXPECT_EQ(f.client_secret.reveal(), "cs");
  EXPECT_EQ(f.refresh_token.reveal(), "rt");
  EXPECT_EQ(f.token_uri, kGoogleTokenUri);
}

TEST(BqAuthKeyFile, MalformedFilesAreConfigErrorsNamingTheFileAndTheFault) {
  const std::string pem = test_key().private_pem;
  struct Case {
    std::string json;
    std::string fault;
  } cases[] = {
      {"not json " + pem, "is not JSON"},
      {"[1,2]", "not an object"},
      {R"({"client_email":"a@b"})", R"(no "type")"},
      {"", ""},  // filled below
      {R"({"type":"service_account","client_email":"a@b"})", R"(no "private_key")"},
      {R"({"type":"service_account","client_email":"a@b","private_key":42})",
       R"("private_key" that is not a string)"},
      {R"({"type":"service_account","client_email":"","private_key":"k"})",
       R"(empty "client_email")"},
      {R"({"type":"authorized_user","client_id":"c","client_secret":"s"})",
       R"(no "refresh_token")"},
      {R"({"type":"external_account","audience":"x"})", "external_account"},
  };
  // The client_email case: a key file whose client_email is missing (replace the key's name).
  cases[3].json = key_json(pem);
  cases[3].json.replace(cases[3].json.find("\"client_email\""), 14, "\"client_mail\"");
  cases[3].fault = R"(no "client_email")";
  for (const auto& c : cases) {
    const Error e = parse_error(c.json, "/keys/broken key.json");
    EXPECT_EQ(e.error_class(), ErrorClass::config) << c.fault;
    EXPECT_THAT(e.what(), HasSubstr("'/keys/broken key.json'")) << c.fault;
    EXPECT_THAT(e.what(), HasSubstr(c.fault));
    expect_no_pem_line(e.what(), pem);
  }
}

TEST(BqAuthKeyFile, AKeyThatIsNoRsaPemIsRefusedWithoutEchoingIt) {
  // Damaged: a line of the body cut out.
  std::string damaged = test_key().private_pem;
  const auto lines = pem_lines(damaged);
  damaged.erase(damaged.find(lines[3]), lines[3].size() + 1);
  // Encrypted: must be refused, not prompted for on the terminal.
  std::string encrypted;
  {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
    static char pass[] = "secret-pass";
    ASSERT_EQ(PEM_write_bio_PKCS8PrivateKey(bio.get(), test_key().key.get(), EVP_aes_256_cbc(),
                                            pass, sizeof pass - 1, nullptr, nullptr),
              1);
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &data);
    encrypted.assign(data, static_cast<size_t>(n));
  }
  // Not RSA: an EC key.
  Pkey ec(EVP_EC_gen("P-256"));
  const std::string ec_pem = pem_of(ec.get(), true);

  for (const auto& [pem, fault] :
       {std::pair{damaged, std::string("not a readable PEM private key")},
        std::pair{encrypted, std::string("not a readable PEM private key")},
        std::pair{std::string("hello"), std::string("not a readable PEM private key")},
        std::pair{ec_pem, std::string("not an RSA key")}}) {
    try {
      load_rsa_private_key(Secret(pem), "/keys/k.json");
      ADD_FAILURE() << "accepted: " << fault;
    } catch (const Error& e) {
      EXPECT_EQ(e.error_class(), ErrorClass::config);
      EXPECT_THAT(e.what(), HasSubstr("/keys/k.json"));
      EXPECT_THAT(e.what(), HasSubstr(fault));
      expect_no_pem_line(e.what(), pem);
    }
  }
}

class BqAuthFactory : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("krow-bq-auth-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const auto p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::filesystem::path dir_;
};

TEST_F(BqAuthFactory, NoneAuthenticatesNothing) {
  auto s = make_token_source("none", 1s);
  EXPECT_EQ(s->authorization(), "");
  s->invalidate();
  EXPECT_EQ(s->authorization(), "");
  EXPECT_EQ(s->describe(), "no authentication (emulator endpoint)");
}

TEST_F(BqAuthFactory, AKeyFileIsReadAtOnceAndItsFaultsAreConfigErrors) {
  const std::string good = write("good.json", key_json(test_key().private_pem));
  auto s = make_token_source(good, 1s);
  EXPECT_EQ(s->describe(),
            "service account krow@krow-test.iam.gserviceaccount.com (key file " + good + ")");

  for (const std::string& path :
       {(dir_ / "missing.json").string(), dir_.string(),
        write("bad.json",
              key_json("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"))}) {
    try {
      make_token_source(path, 1s);
      ADD_FAILURE() << "accepted " << path;
    } catch (const Error& e) {
      EXPECT_EQ(e.error_class(), ErrorClass::config);
      EXPECT_THAT(e.what(), HasSubstr(path));
    }
  }
  // User credentials named directly: only through adc.
  const std::string user = write(
      "user.json",
      R"({"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r"})");
  EXPECT_THROW(make_token_source(user, 1s), Error);
}

TEST_F(BqAuthFactory, AdcWithNothingToFindSaysHowToSetItUp) {
  AdcEnvironment env;
  env.home = dir_.string();           // no gcloud file there
  env.metadata_host = "127.0.0.1:1";  // nothing listens on port 1
  try {
    make_token_source("adc", 2s, env);
    FAIL() << "found credentials";
  } catch (const Error& e) {
    EXPECT_EQ(e.error_class(), ErrorClass::config);
    EXPECT_THAT(e.what(), HasSubstr("gcloud auth application-default login"));
    EXPECT_THAT(e.what(), HasSubstr("GOOGLE_APPLICATION_CREDENTIALS"));
    EXPECT_THAT(e.what(), HasSubstr("127.0.0.1:1"));
  }
  env.credentials_file = (dir_ / "gone.json").string();
  try {
    make_token_source("adc", 2s, env);
    FAIL() << "found credentials";
  } catch (const Error& e) {
    EXPECT_EQ(e.error_class(), ErrorClass::config);
    EXPECT_THAT(e.what(), HasSubstr("GOOGLE_APPLICATION_CREDENTIALS '" + env.credentials_file +
                                    "' does not exist"));
  }
}

}  // namespace
}  // namespace krow::bigquery
