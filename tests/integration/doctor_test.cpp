// `krow doctor` against the real services: a healthy Confluent-Cloud-shaped setup (SASL_SSL
// with ACLs, the registry behind TLS and basic auth), and one test per thing it must catch —
// a stopped broker, a wrong password, a missing READ ACL, an unknown CA, an unwritable
// warehouse folder, a wrong PostgreSQL password, missing variables and a broken manifest —
// each naming the fix, never a secret, within seconds.

#include <netinet/in.h>
#include <simdjson.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

constexpr const char* kPrincipal = "User:krow";

// A TCP port on 127.0.0.1 that nothing listens on (bound, then released).
std::string unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t n = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
  ::close(fd);
  return std::to_string(ntohs(a.sin_port));
}

// The line of `out` that starts with `mark` and `name` ("✗ kafka TCP"), with the fix line
// after it; empty when there is none.
std::string line_of(const std::string& out, const std::string& mark, const std::string& name) {
  const auto at = out.find(mark + " " + name);
  if (at == std::string::npos) return {};
  auto end = out.find('\n', at);
  if (end != std::string::npos && out.compare(end + 1, 9, "    fix: ") == 0)
    end = out.find('\n', end + 1);
  return out.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

const std::string kPass = "\u2713", kFail = "\u2717";

class Doctor : public SyncTest {
 protected:
  // A manifest for the SASL_SSL listener as user krow; the secret from ${KROW_DOCTOR_SECRET}.
  std::string sasl_manifest(const std::vector<std::string>& topics, const std::string& secret,
                            const std::string& extra = {}, const std::string& ca = kafka_ca_file(),
                            const std::string& file = "doctor.yaml") {
    set_env("KROW_DOCTOR_SECRET", secret);
    std::ostringstream y;
    y << "name: " << sync_name_ << "\nsource:\n  bootstrap_servers: " << sasl_bootstrap()
      << "\n  security_protocol: SASL_SSL\n  sasl_mechanism: PLAIN\n  username: krow\n"
      << "  password: ${KROW_DOCTOR_SECRET}\n  ca_file: " << ca
      << "\n  connect_timeout: 5\ntopics:\n  names:\n";
    for (const auto& t : topics) y << "    - \"" << t << "\"\n";
    y << warehouse_yaml() << extra;
    std::ofstream(dir() / file) << y.str();
    return (dir() / file).string();
  }

  std::string registry_yaml() {
    set_env("KROW_DOCTOR_REGISTRY_SECRET", "reader-secret");
    return "registry:\n  url: " + registry_url() +
           "\n  username: reader\n  password: ${KROW_DOCTOR_REGISTRY_SECRET}\n"
           "  ca_file: " +
           services_dir() + "/registry/tls/ca.pem\n";
  }

  void grant(const std::string& topic, std::initializer_list<rd_kafka_AclOperation_t> ops) {
    for (auto op : ops) admin_.grant(RD_KAFKA_RESOURCE_TOPIC, topic, false, kPrincipal, op);
    granted_.push_back(topic);
  }
  void grant_lag_group() {
    admin_.grant(RD_KAFKA_RESOURCE_GROUP, "krow-" + sync_name_, false, kPrincipal,
                 RD_KAFKA_ACL_OPERATION_READ);
    group_granted_ = true;
  }

  void TearDown() override {
    for (const auto& t : granted_) {
      try {
        admin_.revoke(RD_KAFKA_RESOURCE_TOPIC, t, false, kPrincipal);
      } catch (...) {
      }
    }
    if (group_granted_) {
      try {
        admin_.revoke(RD_KAFKA_RESOURCE_GROUP, "krow-" + sync_name_, false, kPrincipal);
      } catch (...) {
      }
    }
    SyncTest::TearDown();
  }

  // Runs `krow doctor` and how long it took.
  RunOutput doctor(const std::vector<std::string>& args, double* seconds = nullptr) {
    std::vector<std::string> all{"doctor"};
    all.insert(all.end(), args.begin(), args.end());
    const auto t0 = std::chrono::steady_clock::now();
    auto r = krow(all);
    if (seconds)
      *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

  std::string sync_name_ = unique_name("doctor");
  std::vector<std::string> granted_;
  bool group_granted_ = false;
};

TEST_F(Doctor, HealthySetupPassesEveryCheckInTextAndJson) {
  const auto t = make_topic("doctor-ok", 2);
  {
    Producer p(bootstrap_);
    for (int i = 0; i < 20; ++i)
      p.send(t, Record{"k" + std::to_string(i), "{\"n\": " + std::to_string(i) + "}"});
    p.flush();
  }
  grant(t, {RD_KAFKA_ACL_OPERATION_READ, RD_KAFKA_ACL_OPERATION_DESCRIBE});
  grant_lag_group();
  const auto manifest = sasl_manifest({t}, "krow-secret", registry_yaml());

  const auto r = doctor({manifest});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find(kFail), std::string::npos) << r.out;
  for (const std::string& name : std::vector<std::string>{
           "librdkafka", "duckdb", "env KROW_DOCTOR_SECRET", "env KROW_DOCTOR_REGISTRY_SECRET",
           "manifest", "kafka DNS 127.0.0.1", "kafka TCP " + sasl_bootstrap(),
           "kafka TLS " + sasl_bootstrap(), "kafka authentication", "topic " + t + " DESCRIBE",
           "topic " + t + " READ", "lag group krow-" + sync_name_, "registry TLS",
           "registry authentication", "registry subjects", "warehouse folder", "warehouse file",
           "warehouse space"})
    EXPECT_NE(line_of(r.out, kPass, name), "") << name << " not passed in:\n" << r.out;
  EXPECT_NE(r.out.find("fetched a message"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("20 offset(s) to read"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("checks passed"), std::string::npos) << r.out;
  for (const char* secret : {"krow-secret", "reader-secret"})
    EXPECT_EQ((r.out + r.err).find(secret), std::string::npos) << secret;

  const auto j = doctor({manifest, "--format", "json"});
  EXPECT_EQ(j.exit_code, 0) << j.out << j.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(j.out).get(doc), simdjson::SUCCESS) << j.out;
  EXPECT_TRUE(bool(doc["ok"]));
  EXPECT_TRUE(doc["skipped"].is_null());
  size_t n = 0;
  for (simdjson::dom::element c : simdjson::dom::array(doc["checks"])) {
    ++n;
    EXPECT_TRUE(bool(c["ok"])) << std::string_view(c["name"]);
    EXPECT_TRUE(c["fix"].is_null());
    EXPECT_FALSE(std::string_view(c["detail"]).empty());
  }
  EXPECT_GE(n, 18u);
  EXPECT_EQ(j.out.find("krow-secret"), std::string::npos);
}

TEST_F(Doctor, StoppedBrokerFailsTcpWithTheFixWithinSeconds) {
  const auto port = unused_port();
  std::ofstream(dir() / "down.yaml")
      << "name: down\nsource:\n  bootstrap_servers: 127.0.0.1:" << port
      << "\n  connect_timeout: 30\ntopics:\n  names: [t]\n"
      << warehouse_yaml();
  double seconds = 0;
  const auto r = doctor({(dir() / "down.yaml").string()}, &seconds);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto tcp = line_of(r.out, kFail, "kafka TCP 127.0.0.1:" + port);
  EXPECT_NE(tcp.find("cannot connect"), std::string::npos) << r.out;
  EXPECT_NE(tcp.find("fix: nothing accepts connections there"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not checked: Kafka authentication, topics"), std::string::npos) << r.out;
  // The warehouse is still checked.
  EXPECT_NE(line_of(r.out, kPass, "warehouse folder"), "") << r.out;
  EXPECT_LT(seconds, 10.0);
}

TEST_F(Doctor, WrongPasswordFailsAuthenticationNamingTheSettingNotTheSecret) {
  const auto t = make_topic("doctor-pw");
  const auto manifest = sasl_manifest({t}, "not-the-secret-4711");
  const auto r = doctor({manifest});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto auth = line_of(r.out, kFail, "kafka authentication");
  EXPECT_NE(auth.find("authentication failed for source.username 'krow'"), std::string::npos)
      << r.out;
  EXPECT_NE(auth.find("source.password (from ${KROW_DOCTOR_SECRET})"), std::string::npos) << r.out;
  // TLS itself was fine.
  EXPECT_NE(line_of(r.out, kPass, "kafka TLS"), "") << r.out;
  EXPECT_EQ((r.out + r.err).find("not-the-secret-4711"), std::string::npos) << r.out;
  const auto j = doctor({manifest, "--format", "json"});
  EXPECT_EQ(j.exit_code, 1);
  EXPECT_EQ((j.out + j.err).find("not-the-secret-4711"), std::string::npos) << j.out;
}

TEST_F(Doctor, MissingReadAclFailsThatTopicsReadNamingTheKafkaAclsFix) {
  const auto ok = make_topic("doctor-read"), denied = make_topic("doctor-noread");
  grant(ok, {RD_KAFKA_ACL_OPERATION_READ, RD_KAFKA_ACL_OPERATION_DESCRIBE});
  grant(denied, {RD_KAFKA_ACL_OPERATION_DESCRIBE});
  const auto r = doctor({sasl_manifest({ok, denied}, "krow-secret")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(line_of(r.out, kPass, "topic " + denied + " DESCRIBE"), "") << r.out;
  EXPECT_NE(line_of(r.out, kPass, "topic " + ok + " READ"), "") << r.out;
  const auto read = line_of(r.out, kFail, "topic " + denied + " READ");
  EXPECT_NE(read.find("no READ permission"), std::string::npos) << r.out;
  EXPECT_NE(read.find("kafka-acls --add --allow-principal User:krow --operation Read --operation "
                      "Describe --topic " +
                      denied),
            std::string::npos)
      << r.out;
  // No READ on the lag group either: its own line, with its own fix.
  const auto group = line_of(r.out, kFail, "lag group krow-" + sync_name_);
  EXPECT_NE(group.find("--operation Read --group krow-"), std::string::npos) << r.out;
}

TEST_F(Doctor, UnknownCertificateAuthorityFailsTlsNamingTheCaFile) {
  const auto t = make_topic("doctor-ca");
  const auto ca = (dir() / "other-ca.pem").string();
  const std::string make = "openssl req -x509 -newkey rsa:2048 -nodes -keyout " +
                           (dir() / "other-ca.key").string() + " -out " + ca +
                           " -subj /CN=another-ca -days 2 >/dev/null 2>&1";
  ASSERT_EQ(std::system(make.c_str()), 0);
  const auto r = doctor({sasl_manifest({t}, "krow-secret", {}, ca)});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(line_of(r.out, kPass, "kafka TCP " + sasl_bootstrap()), "") << r.out;
  const auto tls = line_of(r.out, kFail, "kafka TLS " + sasl_bootstrap());
  EXPECT_NE(tls.find("certificate"), std::string::npos) << r.out;
  EXPECT_NE(tls.find("source.ca_file " + ca), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(kPass + " kafka authentication"), std::string::npos) << r.out;
}

TEST_F(Doctor, UnwritableWarehouseFolderFailsNamingIt) {
  const auto t = make_topic("doctor-wh");
  std::ofstream(dir() / "file.txt") << "not a folder\n";
  for (const std::string& path : {(dir() / "file.txt" / "sub" / "w.duckdb").string(),
                                  std::string("/proc/krow-doctor/w.duckdb")}) {
    std::ofstream(dir() / "wh.yaml")
        << "name: wh\nsource:\n  bootstrap_servers: " << bootstrap_ << "\ntopics:\n  names: [\""
        << t << "\"]\nwarehouse:\n  path: " << path << "\n";
    const auto r = doctor({(dir() / "wh.yaml").string()});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    const auto folder = line_of(
        r.out, kFail, "warehouse folder " + std::filesystem::path(path).parent_path().string());
    EXPECT_NE(folder.find("fix: "), std::string::npos) << r.out;
    EXPECT_NE(folder.find("warehouse.path"), std::string::npos) << r.out;
    // The checks the folder made meaningless are named, not dropped.
    const auto skipped = line_of(r.out, "not checked:", "");
    EXPECT_NE(skipped.find("warehouse file"), std::string::npos) << r.out;
    EXPECT_NE(skipped.find("warehouse space"), std::string::npos) << r.out;
    // The cluster side still passes.
    EXPECT_NE(line_of(r.out, kPass, "topic " + t + " READ"), "") << r.out;
  }
  EXPECT_FALSE(std::filesystem::exists("/proc/krow-doctor"));
}

TEST_F(Doctor, MissingVariablesAreEachNamedAndABrokenManifestExitsThree) {
  std::ofstream(dir() / "env.yaml")
      << "name: env\nsource:\n  bootstrap_servers: ${KROW_DOCTOR_NO_SUCH_HOST}\n"
      << "  security_protocol: SASL_SSL\n  username: krow\n"
      << "  password: ${KROW_DOCTOR_NO_SUCH_SECRET}\ntopics:\n  names: [t]\n"
      << "warehouse:\n  path: w.duckdb\n";
  auto r = doctor({(dir() / "env.yaml").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(line_of(r.out, kFail, "env KROW_DOCTOR_NO_SUCH_HOST")
                .find("not set (used by source.bootstrap_servers"),
            std::string::npos)
      << r.out;
  EXPECT_NE(line_of(r.out, kFail, "env KROW_DOCTOR_NO_SUCH_SECRET").find("source.password"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("set the missing variables first"), std::string::npos) << r.out;

  std::ofstream(dir() / "broken.yaml")
      << "name: broken\nsource:\n  bootstrap_servers: " << bootstrap_
      << "\n  bootstrap_server: typo\nwarehouse:\n  path: w.duckdb\n";
  r = doctor({(dir() / "broken.yaml").string()});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(line_of(r.out, kFail, "manifest").find("bootstrap_server"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("kafka TCP"), std::string::npos) << "checks after a broken manifest:\n"
                                                        << r.out;

  // Without a manifest only the libraries are checked.
  r = doctor({});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(line_of(r.out, kPass, "librdkafka"), "") << r.out;
  EXPECT_NE(r.out.find("no manifest given"), std::string::npos) << r.out;
}

class DoctorPostgres : public Doctor {
 protected:
  std::string engine() const override { return "postgres"; }
};

TEST_F(DoctorPostgres, LoginSchemasAndAWrongPasswordNamingTheSetting) {
  const auto t = make_topic("doctor-pg");
  const auto manifest = write_manifest({t});
  auto r = doctor({manifest});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(line_of(r.out, kPass, "warehouse login krow"), "") << r.out;
  EXPECT_NE(line_of(r.out, kPass, "warehouse schema confluent"), "") << r.out;
  EXPECT_NE(line_of(r.out, kPass, "warehouse schema _krow"), "") << r.out;

  // A role without CREATE anywhere.
  std::string text;
  {
    std::ifstream in(manifest);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  text.replace(text.find("user: krow"), 10, "user: krow_nocreate");
  std::ofstream(dir() / "nocreate.yaml") << text;
  r = doctor({(dir() / "nocreate.yaml").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(line_of(r.out, kFail, "warehouse schema confluent").find("GRANT CREATE ON DATABASE"),
            std::string::npos)
      << r.out;

  set_env("KROW_TEST_PG_PASSWORD", "wrong-pg-secret-93");
  r = doctor({manifest});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto login = line_of(r.out, kFail, "warehouse login krow");
  EXPECT_NE(login.find("authentication failed"), std::string::npos) << r.out;
  EXPECT_NE(login.find("warehouse.password"), std::string::npos) << r.out;
  EXPECT_EQ((r.out + r.err).find("wrong-pg-secret-93"), std::string::npos) << r.out;
  // The checks a login is needed for are named on the "not checked:" line, not dropped.
  const auto skipped = line_of(r.out, "not checked:", "");
  EXPECT_NE(skipped.find("warehouse encoding and schemas: krow could not log in"),
            std::string::npos)
      << r.out;
  EXPECT_NE(skipped.find("warehouse space"), std::string::npos) << r.out;
  const auto json = doctor({manifest, "--format", "json"});
  EXPECT_NE(json.out.find("\"skipped\":\"warehouse encoding and schemas: krow could not log in"),
            std::string::npos)
      << json.out;
  // The Kafka side is unaffected.
  EXPECT_NE(line_of(r.out, kPass, "topic " + t + " READ"), "") << r.out;
}

}  // namespace
}  // namespace krow::testkit
