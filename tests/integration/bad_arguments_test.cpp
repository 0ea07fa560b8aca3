// What krow answers when the command line or the manifest names something wrong: the
// setting and the value it was given (never a library's own words), and never a secret.

#include <gtest/gtest.h>

#include <fstream>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class BadArguments : public SyncTest {};

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

}  // namespace
}  // namespace krow::testkit
