// The SASL_SSL listener with ACLs enforced, shaped like a Confluent Cloud cluster: a
// service account with READ and DESCRIBE on a prefix, a topic without READ that stops
// alone, the lag group with and without rights, saved and encrypted sources bound to a
// cluster ID, wrong secrets, TLS verification, and no secret in anything krow writes.

#include <sys/wait.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

constexpr const char* kUser = "krow";
constexpr const char* kSecret = "krow-secret";
constexpr const char* kPrincipal = "User:krow";

class CloudShaped : public SyncTest {
 protected:
  // A manifest for the SASL_SSL listener; the secret comes from the environment.
  std::string sasl_manifest(const std::string& topics_yaml, const std::string& extra = {},
                            const std::string& file = "cloud.yaml") {
    extra_env_.push_back(std::string("KROW_TEST_SECRET=") + kSecret);
    std::ostringstream y;
    y << "name: cloud\nsource:\n  bootstrap_servers: " << sasl_bootstrap()
      << "\n  security_protocol: SASL_SSL\n  sasl_mechanism: PLAIN\n  username: " << kUser
      << "\n  password: ${KROW_TEST_SECRET}\n  ca_file: " << kafka_ca_file() << "\n  connect_timeout: 10\n"
      << "topics:\n" << topics_yaml << "warehouse:\n  path: warehouse.duckdb\n" << extra;
    const auto path = dir() / file;
    std::ofstream(path) << y.str();
    return path.string();
  }

  void grant_topic(const std::string& name, bool prefixed, std::initializer_list<rd_kafka_AclOperation_t> ops) {
    for (auto op : ops) admin_.grant(RD_KAFKA_RESOURCE_TOPIC, name, prefixed, kPrincipal, op);
  }

  static void produce(const std::string& bootstrap, const std::string& topic, int n, const std::string& tag = "v") {
    Producer p(bootstrap);
    for (int i = 0; i < n; ++i) p.send(topic, Record{"k" + std::to_string(i), "{\"" + tag + "\": " + std::to_string(i) + "}"});
    p.flush();
  }
};

TEST_F(CloudShaped, PrefixAclSyncsThoseTopicsAndNoOthers) {
  const auto base = unique_name("cc");
  const auto a = base + ".orders.eu", b = base + ".orders.us", other = base + ".payments";
  for (const auto& t : {a, b, other}) {
    admin_.create_topic(t, 2);
    produce(bootstrap_, t, 10);
  }
  grant_topic(base + ".orders.", /*prefixed=*/true, {RD_KAFKA_ACL_OPERATION_READ, RD_KAFKA_ACL_OPERATION_DESCRIBE});
  const auto manifest = sasl_manifest("  globs: [\"" + base + "*\"]\n");
  const auto plan = krow({"plan", manifest, "--format", "json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("\"topic\":\"" + a + "\""), std::string::npos);
  EXPECT_EQ(plan.out.find(other), std::string::npos) << "a topic the key cannot describe was listed";
  sync_ok(manifest);
  EXPECT_EQ(probe().count(table_of(a)), 10);
  EXPECT_EQ(probe().count(table_of(b)), 10);
  EXPECT_EQ(probe().tables().size(), 2u);
  for (const auto& t : {a, b, other}) admin_.delete_topic(t);
}

TEST_F(CloudShaped, TopicWithoutReadStopsAloneThenResumesOnceGranted) {
  const auto ok = make_topic("cc-ok", 2), denied = make_topic("cc-denied", 2);
  produce(bootstrap_, ok, 20);
  produce(bootstrap_, denied, 15);
  grant_topic(ok, false, {RD_KAFKA_ACL_OPERATION_READ, RD_KAFKA_ACL_OPERATION_DESCRIBE});
  grant_topic(denied, false, {RD_KAFKA_ACL_OPERATION_DESCRIBE});
  const auto manifest = sasl_manifest("  names: [\"" + ok + "\", \"" + denied + "\"]\n");

  auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;  // partial
  EXPECT_NE(r.err.find("no READ permission on topic " + denied), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Grant User:krow READ"), std::string::npos) << r.err;
  EXPECT_EQ(probe().count(table_of(ok)), 20);
  // Still stopped on the next sync (re-checked at start), and status says why.
  r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 2);
  const auto status = krow({"status", manifest});
  EXPECT_NE(status.out.find("stopped"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("READ"), std::string::npos) << status.out;

  grant_topic(denied, false, {RD_KAFKA_ACL_OPERATION_READ});
  produce(bootstrap_, ok, 5, "later");
  sync_ok(manifest);
  EXPECT_EQ(probe().count(table_of(denied)), 15);
  EXPECT_EQ(probe().count(table_of(ok)), 25);
  EXPECT_EQ(probe().distinct_ids(table_of(ok)), 25);
}

TEST_F(CloudShaped, WrongSecretRefusesToStartWithoutEchoingIt) {
  const auto t = make_topic("cc-pw");
  extra_env_.push_back("KROW_WRONG=not-the-secret-42");
  std::ofstream(dir() / "wrong.yaml") << "name: wrong\nsource:\n  bootstrap_servers: " << sasl_bootstrap()
                                      << "\n  security_protocol: SASL_SSL\n  username: krow\n  password: ${KROW_WRONG}\n"
                                      << "  ca_file: " << kafka_ca_file() << "\n  connect_timeout: 10\n"
                                      << "topics:\n  names: [\"" << t << "\"]\nwarehouse:\n  path: w.duckdb\n";
  const auto r = krow({"sync", (dir() / "wrong.yaml").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("source.username and source.password"), std::string::npos) << r.err;
  EXPECT_EQ((r.out + r.err).find("not-the-secret-42"), std::string::npos);
}

TEST_F(CloudShaped, UnknownCertificateAuthorityIsAClearTlsError) {
  const auto t = make_topic("cc-tls");
  extra_env_.push_back(std::string("KROW_TEST_SECRET=") + kSecret);
  std::ofstream(dir() / "tls.yaml") << "name: tls\nsource:\n  bootstrap_servers: " << sasl_bootstrap()
                                    << "\n  security_protocol: SASL_SSL\n  username: krow\n  password: ${KROW_TEST_SECRET}\n"
                                    << "  connect_timeout: 10\ntopics:\n  names: [\"" << t << "\"]\nwarehouse:\n  path: w.duckdb\n";
  const auto r = krow({"plan", (dir() / "tls.yaml").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("certificate"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ca_file"), std::string::npos) << r.err;
}

TEST_F(CloudShaped, LagGroupWithAndWithoutReadOnKrowGroups) {
  const auto t = make_topic("cc-lag", 3);
  produce(bootstrap_, t, 30);
  grant_topic(t, false, {RD_KAFKA_ACL_OPERATION_READ, RD_KAFKA_ACL_OPERATION_DESCRIBE});

  // Without READ on the group: the sync runs normally and says once that lag reporting is off.
  admin_.revoke(RD_KAFKA_RESOURCE_GROUP, "krow-", true, kPrincipal);
  auto manifest = sasl_manifest("  names: [\"" + t + "\"]\n", {}, "nolag.yaml");
  std::string text;
  {
    std::ifstream in(manifest);
    std::stringstream ss;
    ss << in.rdbuf();
    text = std::regex_replace(ss.str(), std::regex("name: cloud"), "name: " + t + "-nolag");
  }
  std::ofstream(manifest) << text;
  auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(probe().count(table_of(t)), 30);
  size_t said = 0;
  for (size_t pos = 0; (pos = r.err.find("lag reporting is off", pos)) != std::string::npos; ++pos) ++said;
  EXPECT_EQ(said, 1u) << r.err;
  EXPECT_NE(r.err.find("READ on consumer groups with the prefix krow-"), std::string::npos) << r.err;

  // With READ on krow- groups: the group's offsets equal the positions, and lag grows.
  admin_.grant(RD_KAFKA_RESOURCE_GROUP, "krow-", true, kPrincipal, RD_KAFKA_ACL_OPERATION_READ);
  const auto name = t + "-lag";
  text = std::regex_replace(text, std::regex("name: " + t + "-nolag"), "name: " + name);
  text = std::regex_replace(text, std::regex("warehouse.duckdb"), "lag.duckdb");
  std::ofstream(manifest) << text;
  r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("lag reporting is off"), std::string::npos) << r.err;
  const auto lagdb = duckdb_probe((dir() / "lag.duckdb").string());
  auto offsets = admin_.group_offsets("krow-" + name, t, 3);
  const auto pos = lagdb->positions();
  ASSERT_EQ(pos.size(), 3u);
  int64_t committed = 0;
  for (const auto& p : pos) {
    EXPECT_EQ(offsets[p.partition], p.next_offset) << "partition " << p.partition;
    committed += offsets[p.partition];
  }
  EXPECT_EQ(committed, 30);
  produce(bootstrap_, t, 12, "more");
  const auto oracle = consume_all(bootstrap_, t);
  offsets = admin_.group_offsets("krow-" + name, t, 3);
  int64_t lag = 0;
  std::map<int32_t, int64_t> end;
  for (const auto& c : oracle) end[c.partition] = c.offset + 1;
  for (const auto& [p, e] : end) lag += e - offsets[p];
  EXPECT_EQ(lag, 12);
  const auto status = krow({"status", manifest});
  EXPECT_NE(status.out.find("total lag 12 message(s)"), std::string::npos) << status.out;
  admin_.revoke(RD_KAFKA_RESOURCE_GROUP, "krow-", true, kPrincipal);
}

TEST_F(CloudShaped, ConnectSavesEncryptedSourceBoundToTheCluster) {
  const auto t = make_topic("cc-connect");
  produce(bootstrap_, t, 7);
  grant_topic(t, false, {RD_KAFKA_ACL_OPERATION_READ, RD_KAFKA_ACL_OPERATION_DESCRIBE});
  const auto home = dir() / "home";
  extra_env_.push_back("KROW_HOME=" + home.string());
  extra_env_.push_back(std::string("KROW_TEST_SECRET=") + kSecret);
  const std::vector<std::string> connect = {"connect", "prod", "--bootstrap-servers", sasl_bootstrap(),
                                            "--security-protocol", "SASL_SSL", "--username", kUser,
                                            "--password-env", "KROW_TEST_SECRET", "--ca-file", kafka_ca_file()};
  auto r = krow(connect);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("saved source 'prod'"), std::string::npos) << r.out;
  // Encrypted at rest, key file private.
  const auto file = home / "sources" / "prod.source";
  ASSERT_TRUE(std::filesystem::exists(file));
  std::stringstream raw;
  raw << std::ifstream(file, std::ios::binary).rdbuf();
  EXPECT_EQ(raw.str().find(kSecret), std::string::npos);
  EXPECT_EQ(raw.str().find(kUser), std::string::npos);
  EXPECT_EQ(std::filesystem::status(home / "secret.key").permissions() & std::filesystem::perms::group_all,
            std::filesystem::perms::none);

  // A manifest names the saved source instead of carrying secrets.
  std::ofstream(dir() / "saved.yaml") << "name: saved\nsource:\n  saved: prod\ntopics:\n  names: [\"" << t
                                      << "\"]\nwarehouse:\n  path: warehouse.duckdb\n";
  sync_ok((dir() / "saved.yaml").string());
  EXPECT_EQ(probe().count(table_of(t)), 7);

  // A tampered store is an error, never garbage.
  auto bytes = raw.str();
  bytes[bytes.size() - 3] ^= 0x01;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  r = krow({"sync", (dir() / "saved.yaml").string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("cannot be decrypted"), std::string::npos) << r.err;
  // So is a wrong key.
  std::ofstream(file, std::ios::binary | std::ios::trunc) << raw.str();
  extra_env_.push_back("KROW_SECRET_KEY=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
  r = krow({"sync", (dir() / "saved.yaml").string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("cannot be decrypted"), std::string::npos) << r.err;
  extra_env_.pop_back();

  // A key of another cluster is refused for a bound source: start a second cluster.
  const auto second = (dir() / "second-cluster").string();
  const std::string env = "KROW_SERVICES_DIR=" + second + " KROW_KAFKA_PORT=19292 KROW_KAFKA_SASL_PORT=19293 "
                          "KROW_KAFKA_CONTROLLER_PORT=19294 ";
  const auto script = source_dir() + "/scripts/kafka.sh";
  ASSERT_EQ(std::system((env + "bash " + script + " start >/dev/null 2>&1").c_str()), 0);
  // Share the jars instead of resolving them again.
  const std::string ca2 = second + "/kafka/tls/ca.pem";
  auto other = connect;
  other[3] = "127.0.0.1:19293";
  other[other.size() - 1] = ca2;
  extra_env_.back() = "KROW_TEST_SECRET=admin-secret";
  other[7] = "admin";
  r = krow(other);
  std::system((env + "bash " + script + " stop >/dev/null 2>&1").c_str());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("source 'prod' is bound to cluster"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("same cluster"), std::string::npos) << r.err;
}

TEST_F(CloudShaped, NoSecretInAnythingKrowWrites) {
  const auto t = make_topic("cc-secrets");
  produce(bootstrap_, t, 5);
  grant_topic(t, false, {RD_KAFKA_ACL_OPERATION_READ, RD_KAFKA_ACL_OPERATION_DESCRIBE});
  const auto manifest = sasl_manifest("  names: [\"" + t + "\"]\n");
  extra_env_.push_back("KROW_HOME=" + (dir() / "home").string());
  std::string everything;
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"plan", manifest}, {"plan", manifest, "--format", "json"}, {"sync", manifest, "-v"},
           {"status", manifest}, {"status", manifest, "--format", "json"},
           {"connect", "s", "--bootstrap-servers", sasl_bootstrap(), "--username", kUser, "--password-env",
            "KROW_TEST_SECRET", "--ca-file", kafka_ca_file()},
           {"sources"}}) {
    const auto r = krow(args);
    everything += r.out + r.err;
  }
  // Every file krow wrote in the test folder (the DuckDB file included) and the store.
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir())) {
    if (!e.is_regular_file() || e.path().extension() == ".yaml") continue;
    std::stringstream ss;
    ss << std::ifstream(e.path(), std::ios::binary).rdbuf();
    everything += ss.str();
  }
  EXPECT_GT(everything.size(), 1000u);
  EXPECT_EQ(everything.find(kSecret), std::string::npos);
}

}  // namespace
}  // namespace krow::testkit
