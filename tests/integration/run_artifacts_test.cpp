// Run artifacts: every run leaves `<manifest dir>/.krow/runs/<sync id>/<run id>.json` (the
// record the warehouse holds) and `.md` (its summary), whatever its outcome; `krow runs`
// lists them and `krow runs show` prints one; a folder that cannot be written costs a
// warning, never the run; no secret ever reaches an artifact.

#include <fcntl.h>
#include <simdjson.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs krow from another working directory (for the commands that default to ./.krow).
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const fs::path& to) : before_(fs::current_path()) { fs::current_path(to); }
  ~WorkingDirectory() {
    std::error_code ignored;
    fs::current_path(before_, ignored);
  }

 private:
  fs::path before_;
};

class RunArtifacts : public SyncTest {
 protected:
  fs::path runs_dir() const { return dir() / ".krow" / "runs" / "it"; }

  std::string produced_topic(int messages = 30) {
    const auto topic = make_topic("artifacts", 2);
    Producer p(bootstrap_);
    for (int i = 0; i < messages; ++i) p.send(topic, Record{"k" + std::to_string(i), "{\"i\": " + std::to_string(i) + "}"});
    p.flush();
    return topic;
  }

  // The run ID of the newest record stored in the warehouse.
  std::string newest_run_id() {
    simdjson::dom::parser parser;
    simdjson::dom::element record = parser.parse(probe().run_records().at(0));
    return std::string(std::string_view(record["run_id"]));
  }
};

TEST_F(RunArtifacts, SyncWritesTheWarehouseRecordAndASummary) {
  const auto topic = produced_topic();
  const auto manifest = write_manifest({topic});
  sync_ok(manifest);
  const auto stored = probe().run_records().at(0);
  const auto id = newest_run_id();
  const auto json = read_file(runs_dir() / (id + ".json"));
  ASSERT_FALSE(json.empty()) << "no artifact in " << runs_dir();
  EXPECT_EQ(json, stored + "\n");  // the same record, byte for byte

  simdjson::dom::parser parser;
  simdjson::dom::element record = parser.parse(json);
  EXPECT_EQ(std::string_view(record["status"]), "success");
  EXPECT_EQ(int64_t(record["messages"]), 30);
  EXPECT_EQ(simdjson::dom::array(record["gates"]).size(), 0u);  // no gates yet, the key is there
  for (const char* phase : {"connect_plan_ms", "read_write_ms", "final_drain_ms", "lag_report_ms"})
    EXPECT_GE(int64_t(record["phases"][phase]), 0) << phase;

  const auto md = read_file(runs_dir() / (id + ".md"));
  EXPECT_NE(md.find("# krow run " + id + ": success"), std::string::npos) << md;
  EXPECT_NE(md.find("`" + topic + "` -> table `" + table_of(topic) + "`: 30 messages read"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("partition 1: 0 -> "), std::string::npos) << md;
  EXPECT_NE(md.find("- Lag reporting: positions went to consumer group `krow-it`"), std::string::npos) << md;
  // Only the two files: temporary files are renamed away.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(runs_dir())) files += e.is_regular_file();
  EXPECT_EQ(files, 2u);
}

TEST_F(RunArtifacts, RunThatFailsBeforeReadingLeavesItsArtifact) {
  std::ofstream(dir() / "down.yaml") << "name: it\nsource:\n  bootstrap_servers: 127.0.0.1:1\n  connect_timeout: 2\n"
                                     << warehouse_yaml();
  const auto r = krow({"sync", (dir() / "down.yaml").string()});
  EXPECT_EQ(r.exit_code, 75) << r.err;
  const auto id = newest_run_id();
  simdjson::dom::parser parser;
  simdjson::dom::element record = parser.parse(read_file(runs_dir() / (id + ".json")));
  EXPECT_EQ(std::string_view(record["status"]), "failed");
  EXPECT_GE(simdjson::dom::array(record["errors"]).size(), 1u);
  EXPECT_GE(int64_t(record["phases"]["connect_plan_ms"]), 0);
  EXPECT_TRUE(record["phases"]["read_write_ms"].is_null());  // never reached
  const auto md = read_file(runs_dir() / (id + ".md"));
  EXPECT_NE(md.find(": failed"), std::string::npos) << md;
  EXPECT_NE(md.find("bootstrap_servers"), std::string::npos) << md;
}

// The line a sync prints about its record, whatever its outcome: its run ID and where its
// summary is.
void expect_names_its_run(const RunOutput& r, const std::string& id, const fs::path& summary) {
  EXPECT_NE(r.out.find(", run " + id + "\n"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("run summary: " + summary.string()), std::string::npos) << r.out << r.err;
  EXPECT_TRUE(fs::is_regular_file(summary)) << summary;
}

TEST_F(RunArtifacts, EveryOutcomePrintsItsRunIdAndArtifactExit75Too) {
  // Exit 75 (the broker is away): before, only the error was printed.
  std::ofstream(dir() / "down.yaml")
      << "name: it\nsource:\n  bootstrap_servers: 127.0.0.1:1\n  connect_timeout: 2\n"
      << warehouse_yaml();
  auto r = krow({"sync", (dir() / "down.yaml").string()});
  EXPECT_EQ(r.exit_code, 75) << r.err;
  auto id = newest_run_id();
  expect_names_its_run(r, id, runs_dir() / (id + ".md"));
  EXPECT_NE(r.out.find("sync 'it' failed"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("bootstrap_servers"), std::string::npos) << r.err;

  // Exit 75 before the warehouse opens (another sync of it runs): no record in the
  // warehouse, but the artifact files say what happened.
  const auto topic = produced_topic(6);
  const auto manifest =
      write_manifest({topic}, "quality:\n  gates:\n    - {id: some, type: min_rows, min: 1}\n");
  {
    const auto lock = db() + ".it.lock";
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
    r = krow({"sync", manifest});
    ::close(fd);
  }
  EXPECT_EQ(r.exit_code, 75) << r.err;
  const auto line = r.out.find(", run ");
  ASSERT_NE(line, std::string::npos) << r.out << r.err;
  id = r.out.substr(line + 6, r.out.find('\n', line) - line - 6);
  expect_names_its_run(r, id, runs_dir() / (id + ".md"));
  simdjson::dom::parser parser;
  const auto record_text = read_file(runs_dir() / (id + ".json"));
  simdjson::dom::element record = parser.parse(record_text);
  EXPECT_EQ(std::string_view(record["status"]), "failed");
  EXPECT_TRUE(bool(record["retry_later"])) << record_text;
  EXPECT_NE(std::string(std::string_view(record["errors"].at(0))).find("already running"),
            std::string::npos)
      << record_text;
  EXPECT_NE(read_file(runs_dir() / (id + ".md")).find("run again later"), std::string::npos);

  // Success: the same line, and the summary's Phases has every phase of the record, the gates
  // and publish phase too.
  r = sync_ok(manifest);
  id = newest_run_id();
  expect_names_its_run(r, id, runs_dir() / (id + ".md"));
  record = parser.parse(read_file(runs_dir() / (id + ".json")));
  EXPECT_GE(int64_t(record["phases"]["gates_publish_ms"]), 0);
  const auto md = read_file(runs_dir() / (id + ".md"));
  EXPECT_NE(md.find("final drain"), std::string::npos) << md;
  EXPECT_NE(md.find(", gates and publish "), std::string::npos) << md;
}

TEST_F(RunArtifacts, RunsListsNewestFirstAndLimits) {
  const auto manifest = write_manifest({produced_topic(5)});
  for (int i = 0; i < 3; ++i) sync_ok(manifest);
  const auto stored = probe().run_records();  // newest first
  ASSERT_EQ(stored.size(), 3u);
  std::vector<std::string> ids;
  for (const auto& s : stored) {
    simdjson::dom::parser parser;
    ids.emplace_back(std::string_view(parser.parse(s)["run_id"]));
  }

  const auto all = krow({"runs", manifest});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto a = all.out.find(ids[0]), b = all.out.find(ids[1]), c = all.out.find(ids[2]);
  ASSERT_NE(c, std::string::npos) << all.out;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_NE(all.out.find("success"), std::string::npos);

  const auto two = krow({"runs", manifest, "--limit", "2", "--format", "json"});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  simdjson::dom::parser parser;
  simdjson::dom::array listed = parser.parse(two.out);
  ASSERT_EQ(listed.size(), 2u) << two.out;
  EXPECT_EQ(std::string_view(listed.at(0)["run_id"]), ids[0]);
  EXPECT_EQ(std::string_view(listed.at(1)["run_id"]), ids[1]);
  EXPECT_EQ(int64_t(listed.at(1)["errors"]), 0);
  EXPECT_EQ(std::string_view(listed.at(0)["mode"]), "sync");

  // Without a manifest: every sync's runs under ./.krow/runs.
  WorkingDirectory in(dir());
  const auto here = krow({"runs", "--limit", "1"});
  ASSERT_EQ(here.exit_code, 0) << here.err;
  EXPECT_NE(here.out.find(ids[0]), std::string::npos) << here.out;
  EXPECT_EQ(here.out.find(ids[1]), std::string::npos) << here.out;
}

TEST_F(RunArtifacts, ShowPrintsTheSummaryOrTheRecord) {
  const auto manifest = write_manifest({produced_topic(5)});
  sync_ok(manifest);
  const auto id = newest_run_id();
  const auto md = krow({"runs", "show", id, manifest});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out, read_file(runs_dir() / (id + ".md")));
  const auto json = krow({"runs", "show", id, manifest, "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out, probe().run_records().at(0) + "\n");

  WorkingDirectory in(dir());
  const auto here = krow({"runs", "show", id});
  EXPECT_EQ(here.exit_code, 0) << here.err;
  EXPECT_EQ(here.out, md.out);
}

TEST_F(RunArtifacts, UnknownRunIdExits3NamingTheFolder) {
  const auto manifest = write_manifest({produced_topic(1)});
  sync_ok(manifest);
  for (const std::string id : {"20000101T000000Z-000000", "../../etc/passwd"}) {
    const auto r = krow({"runs", "show", id, manifest});
    EXPECT_EQ(r.exit_code, 3) << id;
    EXPECT_NE(r.err.find(runs_dir().string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("krow runs"), std::string::npos) << r.err;
  }
}

TEST_F(RunArtifacts, UnwritableFolderWarnsOnceAndTheSyncStands) {
  const auto topic = produced_topic(12);
  const auto manifest = write_manifest({topic});
  std::ofstream(dir() / ".krow") << "a file where the folder would go\n";
  const auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(probe().count(table_of(topic)), 12);
  const auto folder = (dir() / ".krow" / "runs" / "it").string();
  const auto warning = r.err.find("krow: warning: could not write the run artifact in " + folder);
  EXPECT_NE(warning, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("krow: warning", warning + 1), std::string::npos) << "more than one warning: " << r.err;
  EXPECT_NE(r.err.find("writable directory"), std::string::npos) << r.err;
  EXPECT_EQ(probe().run_records().size(), 1u);  // the warehouse record is there all the same
}

TEST_F(RunArtifacts, NoSecretInAnyArtifact) {
  const std::string secret = "admin-secret";  // the broker's super user (scripts/kafka.sh)
  set_env("KROW_TEST_SECRET", secret);
  const auto topic = produced_topic(4);
  auto sasl = [&](const std::string& file, const std::string& bootstrap) {
    std::ofstream(dir() / file) << "name: it\nsource:\n  bootstrap_servers: " << bootstrap
                                << "\n  security_protocol: SASL_SSL\n  sasl_mechanism: PLAIN\n  username: admin\n"
                                   "  password: ${KROW_TEST_SECRET}\n  ca_file: "
                                << kafka_ca_file() << "\n  connect_timeout: 5\ntopics:\n  names: [\"" << topic
                                << "\"]\n" << warehouse_yaml();
    return (dir() / file).string();
  };
  sync_ok(sasl("cloud.yaml", sasl_bootstrap()));
  EXPECT_EQ(probe().count(table_of(topic)), 4);
  EXPECT_NE(krow({"sync", sasl("down.yaml", "127.0.0.1:1")}).exit_code, 0);
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir() / ".krow")) {
    if (!e.is_regular_file()) continue;
    ++files;
    EXPECT_EQ(read_file(e.path()).find(secret), std::string::npos) << e.path();
  }
  EXPECT_EQ(files, 4u);  // two runs, two files each
  // The listing needs no secret: without the variable it still works.
  std::erase_if(extra_env_, [](const std::string& e) { return e.rfind("KROW_TEST_SECRET=", 0) == 0; });
  const auto listed = krow({"runs", (dir() / "cloud.yaml").string()});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out.find(secret), std::string::npos);
}

}  // namespace
}  // namespace krow::testkit
