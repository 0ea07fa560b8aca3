#pragma once
// Fixture for integration tests: a real broker (scripts/kafka.sh start), the real krow
// binary run as a child process, and the real DuckDB file it writes.

#include <gtest/gtest.h>
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "duckdb_query.hpp"
#include "kafka_testkit.hpp"

namespace krow::testkit {

struct RunOutput {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class SyncTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Creates a topic with a unique name built from `prefix`; deleted after the test.
  std::string make_topic(const std::string& prefix, int partitions = 1,
                         const std::map<std::string, std::string>& configs = {});

  // Writes a manifest selecting `topics` by name into the test folder; `extra` is
  // appended as more YAML. Returns its path.
  std::string write_manifest(const std::vector<std::string>& topics, const std::string& extra = {},
                             const std::string& file = "sync.yaml");

  // Runs the krow binary with `args` and waits for it.
  RunOutput krow(const std::vector<std::string>& args);
  // Starts the krow binary without waiting; returns its pid (output to files in the folder).
  pid_t start_krow(const std::vector<std::string>& args);

  // Runs `krow sync` on the test manifest and expects success.
  RunOutput sync_ok(const std::string& manifest);

  std::string db() const { return (dir_ / "warehouse.duckdb").string(); }
  std::filesystem::path dir() const { return dir_; }
  QueryResult sql(const std::string& query) const { return testkit::query(db(), query); }
  std::string sql1(const std::string& query) const { return testkit::scalar(db(), query); }

  // Table name of a topic as krow maps it (lower case, [a-z0-9_]).
  static std::string table_of(const std::string& topic);

  // The broker's SASL_SSL listener (PLAIN, ACLs enforced) and its CA, as scripts/kafka.sh
  // starts it: users admin/admin-secret (super user) and krow/krow-secret (no rights).
  static std::string sasl_bootstrap();
  static std::string kafka_ca_file();
  static std::string source_dir() { return KROW_SOURCE_DIR; }

  // Environment variables added to every krow run of this test ("NAME=value").
  std::vector<std::string> extra_env_;
  // Sets (or replaces) one of them.
  void set_env(const std::string& name, const std::string& value) {
    std::erase_if(extra_env_, [&](const std::string& e) { return e.rfind(name + "=", 0) == 0; });
    extra_env_.push_back(name + "=" + value);
  }

  std::string bootstrap_ = test_bootstrap();
  Admin admin_{bootstrap_};

 private:
  std::filesystem::path dir_;
  std::vector<std::string> topics_;
};

}  // namespace krow::testkit
