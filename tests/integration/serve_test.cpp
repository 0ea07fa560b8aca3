// `krow serve` (docs/serve.md) against a real broker and each warehouse: hosted syncs run on
// their schedules as `krow sync` processes, one run at a time each, while messages keep coming;
// kill -9 of the service in the middle of a run, then a restart: the cut run is recorded as
// interrupted, no two runs of a sync ever overlap, the next runs proceed, and every message is
// in its table exactly once. Also /livez, /readyz and /metrics, and configs it refuses.

#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "child_server.hpp"
#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

struct RunSeen {
  int64_t started_ms = 0;
  int64_t duration_ms = 0;
  std::string status;
};

class Serve : public EngineTest {
 protected:
  void TearDown() override {
    if (serve_ > 0) {
      kill(serve_, SIGKILL);
      waitpid(serve_, nullptr, 0);
    }
    // Runs the killed service left: they end on their own (SIGTERM from the kernel when the
    // service died); wait so that the test's warehouse can be dropped.
    std::this_thread::sleep_for(seconds(1));
    EngineTest::TearDown();
  }

  // A manifest of its own sync ID for `topic`.
  std::string manifest_for(const std::string& topic, const std::string& id) {
    const auto path = write_manifest({topic}, "batch:\n  max_messages: 500\n", id + ".yaml");
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    std::string text = s.str();
    text.replace(text.find("name: " + sync_id_), 6 + sync_id_.size(), "name: " + id);
    std::ofstream(path) << text;
    return path;
  }

  std::string write_config(const std::vector<std::pair<std::string, std::string>>& syncs,
                           int port = 0) {
    std::ostringstream y;
    y << "listen: 127.0.0.1:" << port << "\nstate: serve.db\nlogs: serve-logs\nsyncs:\n";
    for (const auto& [manifest, schedule] : syncs)
      y << "  - manifest: " << manifest << "\n    schedule: " << schedule << "\n";
    const auto path = (dir() / "server.yaml").string();
    std::ofstream(path) << y.str();
    return path;
  }

  void start_serve(const std::string& config) {
    serve_ = start_krow_to({"serve", "--config", config}, dir() / "serve.out", dir() / "serve.err");
  }

  std::string serve_said() const {
    std::ifstream in(dir() / "serve.err");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // The port the service listens on (0 until it says).
  int serve_port() const {
    static const std::regex line(R"(krow serve: listening on http://127\.0\.0\.1:([0-9]+))");
    std::smatch m;
    const auto text = serve_said();
    int port = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), line);
         it != std::sregex_iterator(); ++it)
      port = std::stoi((*it)[1]);  // the latest: a restarted service listens anew
    return port;
  }

  // The runs `krow runs` lists for `manifest`, oldest first.
  std::vector<RunSeen> runs_of(const std::string& manifest) {
    const auto r = krow({"runs", manifest, "--format", "json", "--limit", "1000"});
    std::vector<RunSeen> out;
    simdjson::dom::parser parser;
    simdjson::dom::array runs;
    if (parser.parse(r.out).get(runs)) return out;
    for (auto run : runs) {
      RunSeen s;
      std::string_view status;
      if (run["started_at_ms"].get(s.started_ms) || run["duration_ms"].get(s.duration_ms) ||
          run["status"].get(status))
        continue;
      s.status = std::string(status);
      out.push_back(s);
    }
    std::sort(out.begin(), out.end(),
              [](const RunSeen& a, const RunSeen& b) { return a.started_ms < b.started_ms; });
    return out;
  }

  // No run of `manifest` began before the one before it ended.
  void expect_one_at_a_time(const std::string& manifest) {
    const auto runs = runs_of(manifest);
    for (size_t i = 1; i < runs.size(); ++i)
      EXPECT_GE(runs[i].started_ms, runs[i - 1].started_ms + runs[i - 1].duration_ms)
          << manifest << ": run " << i << " began before run " << i - 1 << " ended";
  }

  void produce(const std::string& topic, int from, int count) {
    Producer p(bootstrap_);
    for (int i = from; i < from + count; ++i)
      p.send(topic, Record{"k" + std::to_string(i), "{\"n\": " + std::to_string(i) + "}"});
    p.flush();
  }

  pid_t serve_ = -1;
};

TEST_P(Serve, TwoSyncsOnShortSchedulesRunOnTimeOneAtATimeEachAndAKillNineIsRecoveredFrom) {
  const auto t1 = make_topic("serve-a", 2), t2 = make_topic("serve-b", 2);
  const auto m1 = manifest_for(t1, sync_id_ + "-a"), m2 = manifest_for(t2, sync_id_ + "-b");
  const auto config = write_config({{m1, "every 3s"}, {m2, "every 3s"}});
  produce(t1, 0, 500);
  produce(t2, 0, 500);
  start_serve(config);
  int port = 0;
  ASSERT_TRUE(eventually([&] { return (port = serve_port()) > 0; }, seconds(30))) << serve_said();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  EXPECT_EQ(http(base + "/livez").status, 200);
  EXPECT_TRUE(eventually([&] { return http(base + "/readyz").status == 200; }, seconds(10)));

  // Messages keep coming while the schedules run: each sync runs every 3 s.
  int produced = 500;
  for (int round = 0; round < 4; ++round) {
    std::this_thread::sleep_for(seconds(2));
    produce(t1, produced, 100);
    produce(t2, produced, 100);
    produced += 100;
  }
  ASSERT_TRUE(
      eventually([&] { return runs_of(m1).size() >= 3 && runs_of(m2).size() >= 3; }, seconds(60)))
      << serve_said();
  const auto metrics = http(base + "/metrics").body;
  EXPECT_GE(
      sample(metrics, "krow_serve_runs_total", "outcome=\"success\",sync=\"" + sync_id_ + "-a\"")
          .value_or(0),
      1)
      << metrics;
  EXPECT_TRUE(metrics.find("krow_serve_next_run_timestamp_seconds{sync=\"" + sync_id_ + "-b\"}") !=
              std::string::npos)
      << metrics;

  // kill -9 of the service while runs may be under way; the runs it started get SIGTERM from
  // the kernel, commit what they read and record an interrupted run. A new service goes on.
  // The kill must land while a run reads: a run that began after these messages were produced,
  // with a second or more of work on each engine (DuckDB writes ~140,000 messages/s, PostgreSQL
  // ~50,000, the BigQuery emulator ~13,000).
  const int burst = GetParam() == "duckdb" ? 100000 : GetParam() == "postgres" ? 60000 : 20000;
  produce(t1, produced, burst);
  produce(t2, produced, burst);
  produced += burst;
  const std::string running_a = "krow_serve_running{sync=\"" + sync_id_ + "-a\"} ";
  auto a_running = [&](const char* value) {
    return http(base + "/metrics").body.find(running_a + value) != std::string::npos;
  };
  // A run under way now may have planned before the burst (and soon end): wait for the next.
  EXPECT_TRUE(eventually([&] { return a_running("0"); }, seconds(60), milliseconds(10)));
  EXPECT_TRUE(eventually([&] { return a_running("1"); }, seconds(30), milliseconds(10)));
  std::this_thread::sleep_for(milliseconds(500));  // well into the run: reading and committing
  kill(serve_, SIGKILL);
  waitpid(serve_, nullptr, 0);
  serve_ = -1;
  // Started again at once, on the same port: no run it started keeps the port.
  start_serve(write_config({{m1, "every 3s"}, {m2, "every 3s"}}, port));
  EXPECT_TRUE(eventually([&] { return serve_port() == port; }, seconds(30))) << serve_said();
  ASSERT_TRUE(
      eventually([&] { return rows_in(t1) == produced && rows_in(t2) == produced; }, seconds(90)))
      << serve_said();
  kill(serve_, SIGTERM);
  int status = 0;
  EXPECT_TRUE(finishes(serve_, seconds(90), status));
  serve_ = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << "\n" << serve_said();

  expect_one_at_a_time(m1);
  expect_one_at_a_time(m2);
  // The run the kill cut short stopped as a SIGTERMed sync does (what it read committed), and
  // its record says so.
  const auto runs = runs_of(m1);
  EXPECT_TRUE(std::any_of(runs.begin(), runs.end(),
                          [](const RunSeen& r) { return r.status == "interrupted"; }))
      << "no interrupted run of " << m1;
  // Each table against an independent consumer, message by message.
  for (const auto& topic : {t1, t2}) {
    const auto table = table_of(topic);
    EXPECT_EQ(probe().count(table), produced) << topic;
    EXPECT_EQ(probe().distinct_ids(table), produced) << topic;
    EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u) << topic;
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, Serve, KROW_ALL_ENGINES);

class ServeConfigTest : public SyncTest {};

TEST_F(ServeConfigTest, ABrokenConfigIsRefusedNamingItsLineBeforeAnythingRuns) {
  const auto topic = make_topic("serve-config", 1);
  const auto manifest = write_manifest({topic});
  auto refuse = [&](const std::string& yaml, const std::string& says) {
    const auto path = (dir() / "server.yaml").string();
    std::ofstream(path) << yaml;
    const auto r = krow({"serve", "--config", path});
    EXPECT_EQ(r.exit_code, 3) << yaml << "\n" << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << yaml << "\n" << r.err;
  };
  refuse("syncs:\n  - manifest: " + manifest + "\n    schedule: hourly\n",
         "server.yaml:3: syncs[0].schedule: 'hourly' is not a schedule");
  refuse("syncs:\n  - manifest: " + manifest + "\n    schedule: cron 61 * * * *\n", "minute: 0-59");
  refuse("listen: 127.0.0.1:8470\nsycns: []\n", "sycns");
  refuse("syncs:\n  - manifest: " + manifest + "\n  - manifest: " + manifest + "\n",
         "is hosted twice");
  refuse("syncs:\n  - manifest: nowhere.yaml\n", "nowhere.yaml");
  refuse("listen: somewhere\n", "listen takes HOST:PORT");
}

class ServeMetrics : public ServeConfigTest {
 protected:
  void TearDown() override {
    if (serve_ > 0) {
      kill(serve_, SIGTERM);
      int status = 0;
      finishes(serve_, seconds(60), status);
    }
    ServeConfigTest::TearDown();
  }
  pid_t serve_ = -1;
};

// The service's /metrics holds its own figures, those of its finished runs (from their run
// records) and the live figures of its continuous runs, each family once; a real Prometheus
// scrapes it and its API gives the figures back.
TEST_F(ServeMetrics, APrometheusServerScrapesTheServiceWithTheFiguresOfItsRuns) {
  const auto scheduled = make_topic("serve-metrics-s", 2), live = make_topic("serve-metrics-c", 2);
  Producer p(bootstrap_);
  for (int i = 0; i < 200; ++i) {
    p.send(scheduled, Record{"k" + std::to_string(i), "{\"n\": " + std::to_string(i) + "}"});
    p.send(live,
           Record{"k" + std::to_string(i), i % 10 == 0 ? std::string("\0\0\0\0\7xyz", 8) : "{}"});
  }
  p.flush();
  // Each its own sync ID and DuckDB file: a continuous run keeps its file open.
  const auto m1 = write_manifest({scheduled}, "", "scheduled.yaml");
  auto text = [&](const std::string& file) {
    std::ifstream in(file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }(write_manifest({live}, "batch:\n  max_wait: 300ms\n", "live.yaml"));
  text.replace(text.find("name: " + sync_id_), 6 + sync_id_.size(), "name: " + sync_id_ + "-live");
  if (const auto at = text.find("path: warehouse.duckdb"); at != std::string::npos)
    text.replace(at, 22, "path: live.duckdb");
  const auto m2 = (dir() / "live.yaml").string();
  std::ofstream(m2) << text;
  std::ofstream(dir() / "server.yaml")
      << "listen: 127.0.0.1:0\nstate: serve.db\nsyncs:\n  - manifest: " << m1
      << "\n    schedule: every 2s\n  - manifest: " << m2 << "\n    schedule: continuous\n";
  serve_ = start_krow_to({"serve", "--config", (dir() / "server.yaml").string()},
                         dir() / "serve.out", dir() / "serve.err");
  static const std::regex line(R"(krow serve: listening on http://127\.0\.0\.1:([0-9]+))");
  std::smatch m;
  std::string said;
  ASSERT_TRUE(eventually(
      [&] {
        std::ifstream in(dir() / "serve.err");
        said.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        return std::regex_search(said, m, line);
      },
      seconds(30)));
  const std::string port = m[1];
  const std::string url = "http://127.0.0.1:" + port + "/metrics";
  const std::string s1 = "sync=\"" + sync_id_ + "\"", s2 = "sync=\"" + sync_id_ + "-live\"";
  std::string exposition;
  ASSERT_TRUE(eventually(
      [&] {
        exposition = http(url).body;
        return sample(exposition, "krow_rows_written_total", s1) == 200.0 &&
               sample(exposition, "krow_rows_written_total", s2) == 200.0;
      },
      seconds(90)))
      << exposition << said;
  // The scheduled sync's figures come from its run records; the continuous one's from the run
  // itself, by topic; each family is announced once.
  EXPECT_EQ(sample(exposition, "krow_messages_read_total", s1), 200.0) << exposition;
  EXPECT_EQ(sample(exposition, "krow_messages_read_total", s2 + ",topic=\"" + live + "\""), 200.0)
      << exposition;
  EXPECT_EQ(sample(exposition, "krow_decode_errors_total", s2 + ",topic=\"" + live + "\""), 20.0)
      << exposition;
  EXPECT_EQ(sample(exposition, "krow_serve_running", s2), 1.0) << exposition;
  EXPECT_GE(sample(exposition, "krow_serve_runs_total", "outcome=\"success\"," + s1).value_or(0),
            1.0);
  for (const char* family :
       {"krow_messages_read_total", "krow_rows_written_total", "krow_batches_total"}) {
    const std::string type = std::string("# TYPE ") + family + " counter";
    const auto first = exposition.find(type);
    EXPECT_NE(first, std::string::npos) << family;
    EXPECT_EQ(exposition.find(type, first + 1), std::string::npos) << family << " announced twice";
  }

  ChildServer prometheus({"python3", source_dir() + "/tests/support/prometheus_child.py",
                          (dir() / "prometheus").string(), "127.0.0.1:" + port});
  const int api = prometheus.port();
  EXPECT_TRUE(eventually(
      [&] { return prometheus_query(api, "sum(krow_rows_written_total)") == 400.0; }, seconds(60)))
      << http("http://127.0.0.1:" + std::to_string(api) + "/api/v1/targets").body;
  EXPECT_EQ(prometheus_query(api, "sum(krow_decode_errors_total)"), 20.0);
  EXPECT_EQ(prometheus_query(api, "sum(krow_partition_lag_messages{" + s2 + "})"), 0.0);
  EXPECT_GE(prometheus_query(api, "sum(krow_serve_runs_total{" + s1 + "})").value_or(0), 1.0);
  EXPECT_EQ(prometheus_query(api, "up{job=\"krow\"}"), 1.0);
}

}  // namespace
}  // namespace krow::testkit
