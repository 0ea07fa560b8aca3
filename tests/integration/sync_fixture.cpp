#include "sync_fixture.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <simdjson.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

extern char** environ;

namespace krow::testkit {

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& out,
            const std::filesystem::path& err, const std::vector<std::string>& extra_env,
            const std::filesystem::path& in = "/dev/null") {
  std::vector<std::string> argv_s{KROW_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  // The test's own variables replace the inherited ones of the same name.
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const auto name = entry.substr(0, entry.find('=') + 1);
    if (std::none_of(extra_env.begin(), extra_env.end(), [&](const std::string& x) { return x.rfind(name, 0) == 0; }))
      env_s.push_back(entry);
  }
  env_s.insert(env_s.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start " + argv_s[0]);
  return pid;
}

}  // namespace

void SyncTest::SetUp() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = "krow-it-" + std::string(info->test_suite_name()) + "-" + info->name() + "-" +
                     std::to_string(::getpid());
  std::replace(name.begin(), name.end(), '/', '_');
  dir_ = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  // The engine's own warehouse for this test (a database, a project; DuckDB: a file in dir_).
  warehouse_ = TestWarehouse{};
  warehouse_.dir = dir_;
  traits().provision(warehouse_);
  for (const auto& [name, value] : warehouse_.env) set_env(name, value);
}

void SyncTest::TearDown() {
  for (const auto& t : topics_) {
    try {
      admin_.delete_topic(t);
    } catch (...) {
    }
  }
  probe_.reset();
  pg_admin_.reset();
  if (!HasFailure()) {
    std::filesystem::remove_all(dir_);
    traits().release(warehouse_);
  } else {
    std::cerr << "test folder kept: " << dir_
              << (warehouse_.database.empty() ? "" : ", database kept: " + warehouse_.database)
              << "\n";
  }
}

std::string SyncTest::warehouse_yaml(const std::string& schema) const {
  std::string y = "warehouse:\n" + traits().warehouse_yaml(warehouse_);
  if (!schema.empty()) y += "  schema: " + schema + "\n";
  return y;
}

Probe& SyncTest::probe() {
  if (!probe_) probe_ = probe_for("confluent");
  return *probe_;
}

std::unique_ptr<Probe> SyncTest::probe_for(const std::string& schema) {
  return traits().probe(warehouse_, schema);
}

void SyncTest::expect_every_message_once(const std::string& topic, int64_t total) {
  const auto table = table_of(topic);
  EXPECT_EQ(probe().count(table), total);
  EXPECT_EQ(probe().distinct_ids(table), total);
  EXPECT_EQ(probe().positions_sum(), total);
  const auto oracle = consume_all(bootstrap_, topic);
  ASSERT_EQ(oracle.size(), static_cast<size_t>(total));
  EXPECT_EQ(differences(probe().rows(table), oracle), 0u);
}

size_t SyncTest::differences(const std::vector<StoredRow>& rows, const std::vector<Consumed>& oracle) {
  std::vector<Cell> values;
  for (const auto& c : oracle) values.push_back(c.value);
  const auto expected = probe().canonical_json(values);
  size_t n = rows.size() > oracle.size() ? rows.size() - oracle.size() : oracle.size() - rows.size();
  for (size_t i = 0; i < std::min(rows.size(), oracle.size()); ++i)
    n += !(rows[i].partition == oracle[i].partition && rows[i].offset == oracle[i].offset &&
           rows[i].key == oracle[i].key && rows[i].value == expected[i]);
  return n;
}

PgSession& SyncTest::pg_admin() {
  if (!pg_admin_)
    pg_admin_ = std::make_unique<PgSession>(pg_server().conninfo(warehouse_.database));
  return *pg_admin_;
}

std::string SyncTest::make_topic(const std::string& prefix, int partitions,
                                 const std::map<std::string, std::string>& configs) {
  const auto name = unique_name(prefix);
  admin_.create_topic(name, partitions, configs);
  topics_.push_back(name);
  return name;
}

std::string SyncTest::write_manifest(const std::vector<std::string>& topics, const std::string& extra,
                                     const std::string& file) {
  std::ostringstream y;
  y << "name: " << sync_id_ << "\nsource:\n  bootstrap_servers: " << bootstrap_ << "\ntopics:\n  names:\n";
  for (const auto& t : topics) y << "    - \"" << t << "\"\n";
  y << warehouse_yaml() << extra;
  const auto path = dir_ / file;
  std::ofstream(path) << y.str();
  return path.string();
}

RunOutput SyncTest::krow(const std::vector<std::string>& args) {
  return krow_with_input(args, std::nullopt);
}

RunOutput SyncTest::krow_with_input(const std::vector<std::string>& args,
                                    const std::optional<std::string>& input) {
  const auto out = dir_ / "krow.out", err = dir_ / "krow.err", in = dir_ / "krow.in";
  if (input) std::ofstream(in, std::ios::binary | std::ios::trunc) << *input;
  const pid_t pid =
      spawn(args, out, err, extra_env_, input ? in : std::filesystem::path("/dev/null"));
  int status = 0;
  waitpid(pid, &status, 0);
  RunOutput r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

pid_t SyncTest::start_krow(const std::vector<std::string>& args) {
  return spawn(args, dir_ / "krow-bg.out", dir_ / "krow-bg.err", extra_env_);
}

pid_t SyncTest::start_krow_to(const std::vector<std::string>& args,
                              const std::filesystem::path& out, const std::filesystem::path& err) {
  return spawn(args, out, err, extra_env_);
}

pid_t SyncTest::start_krow_frozen_after_first_batch(const std::vector<std::string>& args) {
  set_env("KROW_TRACE_BATCHES", "1");  // krow says on stderr when each batch is committed
  const pid_t pid = start_krow(args);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream err(dir_ / "krow-bg.err");
    const std::string said((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
    if (said.find("committed in") != std::string::npos || said.find("staged in") != std::string::npos) {
      kill(pid, SIGSTOP);
      return pid;
    }
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid)
      throw std::runtime_error("krow ended before its first batch was committed: " + said);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  throw std::runtime_error("krow committed no batch within 120 s");
}

bool SyncTest::eventually(const std::function<bool()>& done, std::chrono::seconds within,
                          std::chrono::milliseconds every) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      if (done()) return true;
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(every);
  }
  return false;
}

bool SyncTest::finishes(pid_t pid, std::chrono::seconds within, int& status) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return false;
}

RunOutput SyncTest::sync_ok(const std::string& manifest) {
  auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 0) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
  return r;
}

std::string SyncTest::sasl_bootstrap() {
  const char* b = std::getenv("KROW_TEST_SASL_BOOTSTRAP");
  return b && *b ? b : "127.0.0.1:9093";
}

std::string SyncTest::kafka_ca_file() {
  if (const char* c = std::getenv("KROW_TEST_KAFKA_CA"); c && *c) return c;
  return services_dir() + "/kafka/tls/ca.pem";
}

std::string SyncTest::services_dir() {
  const char* s = std::getenv("KROW_SERVICES_DIR");
  return s && *s ? s : source_dir() + "/.services";
}

std::string SyncTest::registry_url() {
  const char* u = std::getenv("KROW_TEST_REGISTRY");
  return u && *u ? u : "https://127.0.0.1:8081";
}

std::string SyncTest::table_of(const std::string& topic) {
  std::string out;
  for (char c : topic) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.push_back((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? c : '_');
  }
  return out;
}

SyncTest::HttpAnswer SyncTest::http(const std::string& url, const std::string& method,
                                    const std::string& body,
                                    const std::vector<std::string>& headers) {
  HttpAnswer a;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> list(nullptr, curl_slist_free_all);
  for (const auto& h : headers) list.reset(curl_slist_append(list.release(), h.c_str()));
  if (list) curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, list.get());
  curl_easy_setopt(
      curl.get(), CURLOPT_HEADERFUNCTION, +[](char* p, size_t s, size_t n, void* out) {
        static_cast<std::string*>(out)->append(p, s * n);
        return s * n;
      });
  curl_easy_setopt(curl.get(), CURLOPT_HEADERDATA, &a.headers);
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_PATH_AS_IS, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, 10L);
  // The tests' HTTPS servers have certificates made for the test, signed by nobody.
  curl_easy_setopt(curl.get(), CURLOPT_SSL_VERIFYPEER, 0L);
  curl_easy_setopt(curl.get(), CURLOPT_SSL_VERIFYHOST, 0L);
  if (!body.empty()) {
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(
      curl.get(), CURLOPT_WRITEFUNCTION, +[](char* p, size_t s, size_t n, void* out) {
        static_cast<std::string*>(out)->append(p, s * n);
        return s * n;
      });
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &a.body);
  if (curl_easy_perform(curl.get()) == CURLE_OK)
    curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &a.status);
  return a;
}

std::optional<double> SyncTest::prometheus_query(int port, const std::string& promql) {
  char* escaped = curl_easy_escape(nullptr, promql.c_str(), static_cast<int>(promql.size()));
  const auto a =
      http("http://127.0.0.1:" + std::to_string(port) + "/api/v1/query?query=" + escaped);
  curl_free(escaped);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::array result;
  std::string_view value;
  if (a.status != 200 || parser.parse(a.body).get(doc) || doc["data"]["result"].get(result) ||
      result.size() != 1 || result.at(0)["value"].at(1).get(value))
    return std::nullopt;
  return std::stod(std::string(value));
}

int SyncTest::metrics_port(const std::filesystem::path& err) {
  std::ifstream in(err);
  std::stringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  static const std::regex line(R"(krow: metrics at http://127\.0\.0\.1:([0-9]+)/metrics)");
  std::smatch m;
  return std::regex_search(text, m, line) ? std::stoi(m[1]) : 0;
}

std::optional<double> SyncTest::sample(const std::string& exposition, const std::string& name,
                                       const std::string& labels) {
  const std::string head = name + "{" + labels + "} ";
  std::istringstream lines(exposition);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(head, 0) == 0) return std::stod(line.substr(head.size()));
  return std::nullopt;
}

}  // namespace krow::testkit
