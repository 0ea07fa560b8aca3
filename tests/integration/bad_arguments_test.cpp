// What krow answers when the command line or the manifest names something wrong: the
// setting and the value it was given (never a library's own words), never a secret, and
// never a success that did nothing.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class BadArguments : public SyncTest {};

TEST_F(BadArguments, HelpNamesEveryWarehouseEngine) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--help"}, std::vector<std::string>{"doctor", "--help"}}) {
    const auto r = krow(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const char* engine : {"DuckDB", "PostgreSQL", "BigQuery"})
      EXPECT_NE(r.out.find(engine), std::string::npos)
          << args[0] << " does not name " << engine << ":\n"
          << r.out;
  }
  // Exit code 75 covers another sync still running, not only outages (wherever the lines break).
  auto help = krow({"--help"}).out;
  std::replace(help.begin(), help.end(), '\n', ' ');
  EXPECT_NE(help.find("another sync of the same sync ID still running"), std::string::npos) << help;
}

TEST_F(BadArguments, ASecretGivenAsAnArgumentIsRefusedWithoutEchoingIt) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"connect", "prod", "--bootstrap-servers", "127.0.0.1:1", "--password",
                                 "s3cr3t-value-91"},
        std::vector<std::string>{"connect", "prod", "--bootstrap-servers", "127.0.0.1:1", "--password=s3cr3t-value-91"},
        std::vector<std::string>{"connect", "prod", "--bootstrap-servers", "127.0.0.1:1", "--registry-api-secret",
                                 "s3cr3t-value-91"}}) {
    const auto r = krow(args);
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("not expected"), std::string::npos) << r.err;
    EXPECT_EQ((r.out + r.err).find("s3cr3t-value-91"), std::string::npos) << r.err;
  }
  // Other arguments are still quoted, so that the mistake can be found.
  const auto r = krow({"connect", "prod", "--bootstrap-servers", "127.0.0.1:1", "--colour", "blue"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--colour"), std::string::npos) << r.err;
}

TEST_F(BadArguments, UnknownFormatsAndAMissingManifestAreRefusedNamingWhatIsAllowed) {
  const auto manifest = write_manifest({"nothing"});
  auto r = krow({"plan", manifest, "--format", "bogus"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("bogus not in {text,md,json}"), std::string::npos) << r.err;
  r = krow({"status", manifest, "--format", "yaml"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("yaml not in {text,json}"), std::string::npos) << r.err;
  r = krow({"sync"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("manifest is required"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--help"), std::string::npos) << r.err;
}

TEST_F(BadArguments, AMissingCaFileIsNamedWithItsSetting) {
  const auto t = make_topic("missing-ca");
  const auto missing = (dir() / "no-such-ca.pem").string();

  const auto manifest = write_manifest({t}, "", "kafka-ca.yaml");
  {
    // The source with a CA file that is not there.
    std::ifstream in(manifest);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find("source:\n") + 8;
    text.insert(at, "  ca_file: no-such-ca.pem\n");
    std::ofstream(manifest, std::ios::trunc) << text;
  }
  auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("source.ca_file '" + missing + "' does not exist"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("x509"), std::string::npos) << r.err;

  const auto registry = write_manifest({t}, "registry:\n  url: https://127.0.0.1:1\n  ca_file: no-such-ca.pem\n",
                                       "registry-ca.yaml");
  r = krow({"sync", registry});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("registry.ca_file '" + missing + "' does not exist"), std::string::npos) << r.err;

  // `krow connect` names its own option.
  r = krow({"connect", "prod", "--bootstrap-servers", "127.0.0.1:1", "--ca-file", missing});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--ca-file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
}

TEST_F(BadArguments, ResyncOfATableTheSyncDoesNotHaveIsRefused) {
  const auto a = make_topic("resync-a"), b = make_topic("resync-b");
  Producer p(bootstrap_);
  for (int i = 0; i < 3; ++i) p.send(a, Record{"k", "{\"a\": " + std::to_string(i) + "}"});
  for (int i = 0; i < 5; ++i) p.send(b, Record{"k", "{\"b\": " + std::to_string(i) + "}"});
  p.flush();
  const auto manifest = write_manifest({a, b});
  sync_ok(manifest);

  auto r = krow({"resync", "--full", "-q", "--table", table_of(a) + "_typo", manifest});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no such table"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(table_of(a)), std::string::npos) << r.err;  // the tables it has are listed
  r = krow({"resync", "--full", "-q", "--table", a, manifest});  // the topic's name, not its table's
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("its table is '" + table_of(a) + "'"), std::string::npos) << r.err;

  // The right name re-reads that table alone.
  r = krow({"resync", "--full", "-q", "--table", table_of(a), manifest});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" 3 messages"), std::string::npos) << r.out;
  EXPECT_EQ(probe().count(table_of(a)), 3);
  EXPECT_EQ(probe().count(table_of(b)), 5);
}

}  // namespace
}  // namespace krow::testkit
