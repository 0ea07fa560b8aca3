// The Debian package (cpack -G DEB, cmake/Packaging.cmake) and `cmake --install`: built from
// this build tree, unpacked into a scratch root, and the installed krow — with the librdkafka
// and DuckDB it carries, nothing of the build tree — answers --version, syncs a topic (the
// table against an independent consumer) and serves with the shipped config.

#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

using std::chrono::seconds;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs a shell command line; its exit code, and its output in `out`.
int shell(const std::string& command, std::string& out, const std::filesystem::path& scratch) {
  const auto file = scratch / "shell.out";
  const int status = std::system((command + " > '" + file.string() + "' 2>&1").c_str());
  out = read_file(file);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class Package : public SyncTest {};

TEST_F(Package, TheDebianPackageInstallsAKrowThatSyncsAndServesWithWhatItCarries) {
  std::string out;
  const auto pkg = dir() / "pkg";
  ASSERT_EQ(shell("cpack -G DEB -B '" + pkg.string() + "' --config '" KROW_BUILD_DIR "/CPackConfig.cmake'", out, dir()),
            0)
      << out;
  std::filesystem::path deb;
  for (const auto& e : std::filesystem::directory_iterator(pkg))
    if (e.path().extension() == ".deb") deb = e.path();
  ASSERT_FALSE(deb.empty()) << out;

  // Its control data: the Debian libraries it links, the config kept on upgrade, its user.
  ASSERT_EQ(shell("dpkg-deb -I '" + deb.string() + "'", out, dir()), 0) << out;
  for (const char* dep : {"libsqlite3-0", "libsodium23", "libcpp-httplib0.11", "libprometheus-cpp-core1.0",
                          "libpq5", "libyaml-cpp0.7", "adduser"})
    EXPECT_NE(out.find(dep), std::string::npos) << dep << " is not a dependency:\n" << out;
  EXPECT_EQ(out.find("librdkafka"), std::string::npos) << "librdkafka ships inside, it is no dependency";
  ASSERT_EQ(shell("dpkg-deb -e '" + deb.string() + "' '" + (dir() / "control").string() + "'", out, dir()), 0);
  EXPECT_EQ(read_file(dir() / "control" / "conffiles"), "/etc/krow/server.yaml\n");
  EXPECT_NE(read_file(dir() / "control" / "postinst").find("adduser --system"), std::string::npos);

  const auto root = dir() / "root";
  ASSERT_EQ(shell("dpkg-deb -x '" + deb.string() + "' '" + root.string() + "'", out, dir()), 0) << out;
  const auto krow_bin = (root / "usr/bin/krow").string();
  // Nothing of the build tree: no LD_LIBRARY_PATH, and the build's own libraries out of reach.
  const std::string env = "env -i PATH=/usr/bin:/bin HOME='" + dir().string() + "' ";
  ASSERT_EQ(shell(env + "ldd '" + krow_bin + "'", out, dir()), 0) << out;
  EXPECT_NE(out.find(root.string() + "/usr/bin/../lib/krow/libduckdb.so"), std::string::npos) << out;
  EXPECT_NE(out.find(root.string() + "/usr/bin/../lib/krow/librdkafka.so.1"), std::string::npos) << out;
  EXPECT_EQ(out.find("not found"), std::string::npos) << out;
  ASSERT_EQ(shell(env + "'" + krow_bin + "' --version", out, dir()), 0) << out;
  EXPECT_NE(out.find("krow 0.1.0"), std::string::npos) << out;
  EXPECT_NE(out.find("librdkafka 2."), std::string::npos) << out;
  EXPECT_NE(out.find("duckdb v1."), std::string::npos) << out;

  // A sync with the installed binary.
  const auto topic = make_topic("package", 2);
  Producer p(bootstrap_);
  for (int i = 0; i < 250; ++i) p.send(topic, Record{"k" + std::to_string(i), "{\"n\": " + std::to_string(i) + "}"});
  p.flush();
  const auto manifest = write_manifest({topic});
  ASSERT_EQ(shell(env + "'" + krow_bin + "' sync -q '" + manifest + "'", out, dir()), 0) << out;
  const auto table = table_of(topic);
  EXPECT_EQ(probe().count(table), 250);
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);

  // The systemd unit runs the installed binary with the shipped config, as the package's user.
  const auto unit = read_file(root / "usr/lib/systemd/system/krow-serve.service");
  EXPECT_NE(unit.find("ExecStart=/usr/bin/krow serve --config /etc/krow/server.yaml"), std::string::npos) << unit;
  EXPECT_NE(unit.find("User=krow"), std::string::npos);
  EXPECT_NE(unit.find("StateDirectory=krow"), std::string::npos);
  // The shipped config, its state moved into the scratch root, is one the installed krow serves.
  auto config = read_file(root / "etc/krow/server.yaml");
  ASSERT_NE(config.find("/var/lib/krow"), std::string::npos) << config;
  const auto state = dir() / "var-lib-krow";
  std::filesystem::create_directories(state);
  config = std::regex_replace(config, std::regex("/var/lib/krow"), state.string());
  config = std::regex_replace(config, std::regex("listen: 127.0.0.1:8470"), "listen: 127.0.0.1:0");
  std::ofstream(dir() / "server.yaml") << config;
  const auto serve_err = dir() / "serve.err";
  const std::string serve = env + "'" + krow_bin + "' serve --config '" + (dir() / "server.yaml").string() + "' 2> '" +
                            serve_err.string() + "' & echo $!";
  ASSERT_EQ(shell(serve, out, dir()), 0) << out;
  const pid_t pid = std::stoi(out);
  static const std::regex line(R"(listening on http://127\.0\.0\.1:([0-9]+))");
  std::smatch m;
  std::string said;
  EXPECT_TRUE(eventually(
      [&] {
        said = read_file(serve_err);
        return std::regex_search(said, m, line);
      },
      seconds(30)))
      << said;
  if (!m.empty()) {
    EXPECT_TRUE(eventually([&] { return http("http://127.0.0.1:" + m[1].str() + "/readyz").status == 200; }, seconds(10)));
  }
  EXPECT_NE(said.find("krow serve add-user NAME --role admin"), std::string::npos) << said;
  kill(pid, SIGTERM);
  for (int i = 0; i < 300 && kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_NE(kill(pid, 0), 0) << "the installed krow serve did not stop on SIGTERM";
}

TEST_F(Package, CmakeInstallPutsKrowItsLibrariesTheUnitAndTheConfigUnderTheDestination) {
  std::string out;
  const auto dest = dir() / "dest";
  ASSERT_EQ(shell("DESTDIR='" + dest.string() + "' cmake --install '" KROW_BUILD_DIR "' --prefix /usr --strip", out, dir()),
            0)
      << out;
  for (const char* file : {"usr/bin/krow", "usr/lib/krow/libduckdb.so", "usr/lib/krow/librdkafka.so.1",
                           "usr/lib/systemd/system/krow-serve.service", "etc/krow/server.yaml",
                           "usr/share/doc/krow/openapi.yaml"})
    EXPECT_TRUE(std::filesystem::is_regular_file(dest / file)) << file << "\n" << out;
  ASSERT_EQ(shell("env -i PATH=/usr/bin:/bin '" + (dest / "usr/bin/krow").string() + "' --version", out, dir()), 0)
      << out;
  EXPECT_NE(out.find("krow 0.1.0"), std::string::npos) << out;
}

}  // namespace
}  // namespace krow::testkit
