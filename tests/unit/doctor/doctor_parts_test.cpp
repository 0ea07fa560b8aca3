// The parts of `krow doctor` that need no service: which ${NAME} a manifest refers to (by key
// and line, with the loader's rules), how a bootstrap list splits into endpoints, and the
// network probe against local servers (tests/support/http_test_server.py).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "doctor/network_probe.hpp"
#include "local_servers.hpp"
#include "settings/section.hpp"

namespace krow {
namespace {

TEST(EnvReferences, EveryReferenceWithItsKeyAndLineAndNoneForEscapesOrComments) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("krow-env-refs-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << "name: x\n"
                         "# ${IN_A_COMMENT}\n"
                         "source:\n"
                         "  bootstrap_servers: ${HOST}:${PORT}\n"
                         "  password: ${SECRET}\n"
                         "  username: $${NOT_A_REFERENCE}\n"
                         "topics:\n"
                         "  names: [a, \"${TOPIC}\"]\n"
                         "warehouse:\n"
                         "  password: ${SECRET}\n"
                         "  path: ${bad-name}\n";
  const auto refs = env_references(file);
  std::filesystem::remove(file);
  ASSERT_EQ(refs.size(), 5u);
  EXPECT_EQ(refs[0].name, "HOST");
  EXPECT_EQ(refs[0].key, "source.bootstrap_servers");
  EXPECT_EQ(refs[0].line, 4);
  EXPECT_EQ(refs[1].name, "PORT");
  EXPECT_EQ(refs[2].name, "SECRET");
  EXPECT_EQ(refs[2].key, "source.password");
  EXPECT_EQ(refs[3].name, "TOPIC");
  EXPECT_EQ(refs[3].key, "topics.names[1]");
  EXPECT_EQ(refs[4].key, "warehouse.password");
  EXPECT_EQ(refs[4].line, 10);
}

TEST(EnvReferences, NoneForAFileThatIsNotYaml) {
  EXPECT_TRUE(env_references("/nonexistent/krow.yaml").empty());
}

TEST(SplitEndpoints, HostsPortsIpv6PrefixesAndDefaults) {
  const auto e =
      split_endpoints(" a.example:9093,SASL_SSL://b.example:9094, [::1]:9095 ,c.example,,");
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].text(), "a.example:9093");
  EXPECT_EQ(e[1].text(), "b.example:9094");
  EXPECT_EQ(e[2].host, "::1");
  EXPECT_EQ(e[2].text(), "[::1]:9095");
  EXPECT_EQ(e[3].text(), "c.example:9092");
}

// The probe's checks of one endpoint: the last one, and whether it was reachable.
std::pair<Check, bool> probe(int port, TlsProbe tls) {
  bool reachable = false;
  auto checks = probe_endpoint("x", {"127.0.0.1", std::to_string(port)}, tls,
                               std::chrono::seconds(5), reachable);
  return {checks.back(), reachable};
}

TlsProbe tls_probe(std::string ca_file) {
  TlsProbe tls;
  tls.enabled = true;
  tls.ca_file = std::move(ca_file);
  tls.ca_setting = "x.ca_file";
  tls.verify_setting = "x.verify_certificates";
  return tls;
}

TEST(ProbeEndpoint, TcpAndTlsPassWithTheRightCa) {
  auto& servers = testkit::LocalServers::get();
  const auto [tcp, tcp_up] = probe(servers.plain().port(), TlsProbe{});
  EXPECT_TRUE(tcp.ok) << tcp.detail;
  EXPECT_TRUE(tcp_up);
  const auto [tls, tls_up] = probe(servers.tls().port(), tls_probe(servers.ca_file()));
  EXPECT_TRUE(tls.ok) << tls.detail;
  EXPECT_EQ(tls.name, "x TLS 127.0.0.1:" + std::to_string(servers.tls().port()));
  EXPECT_TRUE(tls_up);
}

TEST(ProbeEndpoint, NothingListeningFailsTcpNamingTheFix) {
  const auto [tcp, up] = probe(testkit::LocalServers::unused_port(), TlsProbe{});
  EXPECT_FALSE(tcp.ok);
  EXPECT_FALSE(up);
  EXPECT_NE(tcp.fix.find("nothing accepts connections there"), std::string::npos) << tcp.fix;
}

TEST(ProbeEndpoint, AnUntrustedCertificateAndOneForAnotherHostHaveTheirOwnFix) {
  auto& servers = testkit::LocalServers::get();
  const auto [untrusted, up1] = probe(servers.tls().port(), tls_probe(""));
  EXPECT_FALSE(untrusted.ok);
  EXPECT_FALSE(up1);
  EXPECT_NE(untrusted.fix.find("is not signed by the system's CA certificates"), std::string::npos)
      << untrusted.fix;
  const auto [other, up2] = probe(servers.other_name().port(), tls_probe(servers.ca_file()));
  EXPECT_FALSE(other.ok);
  EXPECT_FALSE(up2);
  EXPECT_NE(other.fix.find("the certificate does not name 127.0.0.1"), std::string::npos)
      << other.fix;
}

}  // namespace
}  // namespace krow
