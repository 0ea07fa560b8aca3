// The pure parts of `krow doctor`: which ${NAME} a manifest refers to (by key and line, with
// the loader's rules), and how a bootstrap list splits into endpoints.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "doctor/network_probe.hpp"
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

}  // namespace
}  // namespace krow
