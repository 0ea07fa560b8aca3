// krow's one HTTP client (http::Client) against a real local server
// (tests/support/http_test_server.py, over HTTP and TLS): what a request sends, what an answer
// holds, and how each failure is classified once, by libcurl's code.

#include "http/http_client.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "local_servers.hpp"

namespace krow::http {
namespace {

using krow::testkit::LocalServers;
using namespace std::chrono_literals;

LocalServers& servers() {
  return LocalServers::get();
}

std::string https_url(ChildServer& s) {
  return "https://127.0.0.1:" + std::to_string(s.port());
}

// The request the server saw (GET /echo answers it as JSON).
struct Seen {
  std::string method, body;
  std::map<std::string, std::string> headers;
};

Seen seen(const Response& r) {
  Seen out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(r.body).get(doc), simdjson::SUCCESS) << r.body;
  std::string_view v;
  if (doc["method"].get(v) == simdjson::SUCCESS) out.method = v;
  if (doc["body"].get(v) == simdjson::SUCCESS) out.body = v;
  simdjson::dom::object headers;
  if (doc["headers"].get(headers) == simdjson::SUCCESS)
    for (auto [name, value] : headers)
      out.headers[std::string(name)] = std::string(value.get_string().value());
  return out;
}

Request get(const std::string& url) {
  Request q;
  q.url = url;
  q.timeout = 10s;
  return q;
}

TEST(HttpClient, AGetSendsItsHeadersAndReadsStatusHeadersAndBody) {
  Client client;
  auto q = get(servers().plain().url() + "/echo");
  q.headers = {"Accept: application/json", "X-Krow: 1"};
  const auto r = client.send(q);
  ASSERT_EQ(r.failure, Failure::none) << r.error;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type").value_or(""), "application/json");
  EXPECT_FALSE(r.header("no-such-header"));
  EXPECT_EQ(r.primary_ip, "127.0.0.1");
  const auto s = seen(r);
  EXPECT_EQ(s.method, "GET");
  EXPECT_EQ(s.headers.at("accept"), "application/json");
  EXPECT_EQ(s.headers.at("x-krow"), "1");
  EXPECT_EQ(s.headers.at("user-agent"), "krow");
  EXPECT_EQ(s.headers.count("authorization"), 0u);
}

TEST(HttpClient, OtherMethodsSendTheBodyAsGiven) {
  Client client;  // one handle for every request: options of one do not leak into the next
  for (const std::string method : {"POST", "PUT", "DELETE"}) {
    auto q = get(servers().plain().url() + "/echo");
    q.method = method;
    const std::string body = method == "DELETE" ? "" : "a=1&b=" + method;
    q.body = body;
    q.headers = {"Content-Type: application/x-www-form-urlencoded"};
    const auto r = client.send(q);
    ASSERT_EQ(r.status, 200) << r.error;
    const auto s = seen(r);
    EXPECT_EQ(s.method, method);
    EXPECT_EQ(s.body, body);
    EXPECT_EQ(s.headers.at("content-length"), std::to_string(body.size()));
  }
  const auto again = seen(client.send(get(servers().plain().url() + "/echo")));
  EXPECT_EQ(again.method, "GET");
  EXPECT_EQ(again.headers.count("content-type"), 0u);
}

TEST(HttpClient, BearerAndBasicCredentialsGoInTheAuthorizationHeader) {
  Client client;
  auto q = get(servers().plain().url() + "/echo");
  q.authorization = Secret("Bearer tok-123");
  EXPECT_EQ(seen(client.send(q)).headers.at("authorization"), "Bearer tok-123");
  q = get(servers().plain().url() + "/echo");
  q.basic_auth = BasicAuth{"key", Secret("secret")};
  EXPECT_EQ(seen(client.send(q)).headers.at("authorization"), "Basic a2V5OnNlY3JldA==");
}

TEST(HttpClient, AnErrorStatusIsAnAnswerNotAFailure) {
  Client client;
  const auto r = client.send(get(servers().plain().url() + "/status/503"));
  EXPECT_EQ(r.failure, Failure::none);
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "status 503");
  EXPECT_EQ(r.header("x-test").value_or(""), "yes");  // names in lower case
  EXPECT_EQ(r.header("retry-after").value_or(""), "7");
}

TEST(HttpClient, AnAnswerOverTheLimitIsNotReadWhetherAnnouncedOrStreamed) {
  Client client;
  auto q = get(servers().plain().url() + "/big?bytes=3000000&announce=1");
  q.max_body_bytes = 1000000;
  auto r = client.send(q);
  EXPECT_EQ(r.failure, Failure::too_large);
  EXPECT_FALSE(r.transient());
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.size_announced);
  EXPECT_EQ(r.body_bytes, 3000000u);
  EXPECT_TRUE(r.body.empty());

  q.url = servers().plain().url() + "/big?bytes=3000000&announce=0";
  r = client.send(q);
  EXPECT_EQ(r.failure, Failure::too_large);
  EXPECT_FALSE(r.size_announced);
  EXPECT_GT(r.body_bytes, 1000000u);
  EXPECT_LE(r.body_bytes, 1000000u + 65536 + 16);
  EXPECT_TRUE(r.body.empty());

  q.url = servers().plain().url() + "/big?bytes=1000000&announce=0";
  r = client.send(q);
  EXPECT_EQ(r.failure, Failure::none) << r.error;
  EXPECT_EQ(r.body.size(), 1000000u);
}

TEST(HttpClient, ATimeoutAndARefusedConnectionAreTransient) {
  Client client;
  auto q = get(servers().plain().url() + "/slow?seconds=3");
  q.timeout = 300ms;
  auto r = client.send(q);
  EXPECT_EQ(r.failure, Failure::timeout) << r.error;
  EXPECT_TRUE(r.transient());
  EXPECT_EQ(r.status, 0);
  EXPECT_FALSE(r.error.empty());

  r = client.send(get("http://127.0.0.1:" + std::to_string(LocalServers::unused_port()) + "/"));
  EXPECT_EQ(r.failure, Failure::connect) << r.error;
  EXPECT_TRUE(r.transient());
}

TEST(HttpClient, OnlyHttpAndHttpsAreSpoken) {
  Client client;
  const auto r = client.send(get("file:///etc/passwd"));
  EXPECT_EQ(r.failure, Failure::other) << r.error;
  EXPECT_FALSE(r.transient());
  EXPECT_TRUE(r.body.empty());
}

TEST(HttpClient, ACredentialIsNeverInTheFailure) {
  Client client;
  auto q = get("http://127.0.0.1:" + std::to_string(LocalServers::unused_port()) + "/");
  q.basic_auth = BasicAuth{"key", Secret("pw-never-shown-1")};
  q.authorization = Secret("Bearer tok-never-shown-2");
  const auto r = client.send(q);
  EXPECT_NE(r.failure, Failure::none);
  EXPECT_EQ(r.error.find("never-shown"), std::string::npos) << r.error;
}

TEST(HttpClient, TlsWithTheRightCaSucceeds) {
  Client client;
  auto q = get(https_url(servers().tls()) + "/echo");
  q.ca_file = servers().ca_file();
  const auto r = client.send(q);
  EXPECT_EQ(r.failure, Failure::none) << r.error;
  EXPECT_EQ(r.status, 200);
}

TEST(HttpClient, TlsFailuresAreToldApartByCodeAndAreNotRetried) {
  Client client;
  // No CA given: the system's CAs did not sign the test CA.
  auto r = client.send(get(https_url(servers().tls()) + "/echo"));
  EXPECT_EQ(r.failure, Failure::tls_untrusted) << r.error;
  EXPECT_FALSE(r.transient());

  // The right CA, but the certificate names another host.
  auto q = get(https_url(servers().other_name()) + "/echo");
  q.ca_file = servers().ca_file();
  r = client.send(q);
  EXPECT_EQ(r.failure, Failure::tls_host_name) << r.error;
  EXPECT_FALSE(r.transient());

  // A CA file that holds no certificate.
  q = get(https_url(servers().tls()) + "/echo");
  q.ca_file = servers().file("not-a-ca.pem");
  std::ofstream(q.ca_file) << "not a certificate\n";
  r = client.send(q);
  EXPECT_EQ(r.failure, Failure::tls_ca_file) << r.error;

  // Verification off: the same server answers.
  q = get(https_url(servers().other_name()) + "/echo");
  q.verify_tls = false;
  r = client.send(q);
  EXPECT_EQ(r.failure, Failure::none) << r.error;
  EXPECT_EQ(r.status, 200);
}

TEST(HttpClient, ConnectOnlyOpensTheConnectionAndTheHandshakeAndSendsNothing) {
  {
    Client client;
    auto q = get(servers().plain().url());
    q.connect_only = true;
    const auto r = client.send(q);
    EXPECT_EQ(r.failure, Failure::none) << r.error;
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.primary_ip, "127.0.0.1");
  }
  {
    Client client;
    auto q = get(https_url(servers().tls()));
    q.connect_only = true;
    q.ca_file = servers().ca_file();
    EXPECT_EQ(client.send(q).failure, Failure::none);
  }
  {
    Client client;
    auto q = get(https_url(servers().other_name()));
    q.connect_only = true;
    q.ca_file = servers().ca_file();
    EXPECT_EQ(client.send(q).failure, Failure::tls_host_name);
  }
  {
    Client client;
    auto q = get("http://127.0.0.1:" + std::to_string(LocalServers::unused_port()));
    q.connect_only = true;
    EXPECT_EQ(client.send(q).failure, Failure::connect);
  }
}

}  // namespace
}  // namespace krow::http
