#pragma once
// Fixture for integration tests: a real broker (scripts/kafka.sh start), the real krow
// binary run as a child process, and the real warehouse it writes — a DuckDB file, or a
// database of its own on the local PostgreSQL server (scripts/postgres.sh start) — read
// back through an engine-neutral probe.
//
// Suites that hold for every engine derive from EngineTest and are instantiated with
// KROW_ALL_ENGINES (the shared adapter suite, BigQuery too) or KROW_ENGINES (features the
// SQL servers have and the BigQuery adapter does not yet: latest_by_key, typed columns);
// the others (source-side behaviour) derive from SyncTest and use DuckDB. What differs
// between engines is asked of traits() (tests/support/engine_traits.hpp), never of the
// engine's name.

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bq_session.hpp"
#include "engine_traits.hpp"
#include "kafka_testkit.hpp"
#include "pg_session.hpp"
#include "warehouse_probe.hpp"

namespace krow::testkit {

struct RunOutput {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class SyncTest : public ::testing::Test {
 public:
  // Where the scripts keep the local services: $KROW_SERVICES_DIR, or <repo>/.services.
  static std::string services_dir();
  // The local schema registry (KROW_TEST_REGISTRY, else https://127.0.0.1:8081).
  static std::string registry_url();

 protected:
  void SetUp() override;
  void TearDown() override;

  // The warehouse engine of this test: "duckdb", "postgres" or "bigquery".
  virtual std::string engine() const { return "duckdb"; }
  // What this engine does differently: types, SQL, quirks, its warehouse and probe.
  const EngineTraits& traits() const { return engine_traits(engine()); }

  // Creates a topic with a unique name built from `prefix`; deleted after the test.
  std::string make_topic(const std::string& prefix, int partitions = 1,
                         const std::map<std::string, std::string>& configs = {});
  // Deletes `topic`, made some other way (a producer script, an exact name), after the test.
  void delete_after_test(const std::string& topic) { topics_.push_back(topic); }

  // Writes a manifest selecting `topics` by name into the test folder, with this test's
  // warehouse; `extra` is appended as more YAML. Returns its path.
  std::string write_manifest(const std::vector<std::string>& topics, const std::string& extra = {},
                             const std::string& file = "sync.yaml");
  // The manifest's `warehouse:` section for this test's engine (schema: default when empty).
  std::string warehouse_yaml(const std::string& schema = {}) const;

  // Runs the krow binary with `args` and waits for it.
  RunOutput krow(const std::vector<std::string>& args);
  // The same, `input` on its standard input (else /dev/null).
  RunOutput krow_with_input(const std::vector<std::string>& args,
                            const std::optional<std::string>& input);
  // Starts the krow binary without waiting; returns its pid (output to files in the folder).
  pid_t start_krow(const std::vector<std::string>& args);
  // As start_krow, with its output in `out` and `err` (several krows running at once).
  pid_t start_krow_to(const std::vector<std::string>& args, const std::filesystem::path& out,
                      const std::filesystem::path& err);

  // Starts the krow binary (as start_krow) and freezes it with SIGSTOP as soon as it has
  // committed (or, with publish: staged, staged) its first batch, so that a test can change the cluster under a running sync;
  // SIGCONT lets it go on. Throws when krow ends first.
  pid_t start_krow_frozen_after_first_batch(const std::vector<std::string>& args);

  // Polls `done` every `every` until it holds or `within` has passed; an exception (a
  // warehouse read while a sync has the warehouse, as a DuckDB file is while a batch commits)
  // counts as not yet.
  static bool eventually(const std::function<bool()>& done, std::chrono::seconds within,
                         std::chrono::milliseconds every = std::chrono::milliseconds(200));

  // Waits up to `within` for a process started by start_krow to end (SIGKILLed after that);
  // true when it ended by itself. Its wait status goes to `status`.
  static bool finishes(pid_t pid, std::chrono::seconds within, int& status);

  // Runs `krow sync` on the test manifest and expects success.
  RunOutput sync_ok(const std::string& manifest);

  // One HTTP request (libcurl), the path sent as it is ("/../" too), with `headers`
  // ("Name: value"): the status (0 when nothing answered), the headers and the body.
  struct HttpAnswer {
    long status = 0;
    std::string body;
    std::string headers;
  };
  static HttpAnswer http(const std::string& url, const std::string& method = "GET",
                         const std::string& body = {},
                         const std::vector<std::string>& headers = {});
  // The port a krow serving metrics said it listens on ("krow: metrics at
  // http://127.0.0.1:PORT/metrics" in its stderr, the file `err`); 0 until it says.
  static int metrics_port(const std::filesystem::path& err);
  // A PromQL query's single value, through the HTTP API of the Prometheus server on `port`;
  // none while it has none.
  static std::optional<double> prometheus_query(int port, const std::string& promql);
  // The value of sample `name{labels}` in a Prometheus text exposition; none when absent.
  // `labels` as krow writes them: sorted by name, `name="value"` joined by commas.
  static std::optional<double> sample(const std::string& exposition, const std::string& name,
                                      const std::string& labels);

  // The rows of `topic`'s table (0 while it has none).
  int64_t rows_in(const std::string& topic) {
    const auto table = table_of(topic);
    return probe().has_table(table) ? probe().count(table) : 0;
  }

  // What krow wrote, in the warehouse schema `schema`.
  Probe& probe();
  std::unique_ptr<Probe> probe_for(const std::string& schema);
  // The stored value `expected` would be: as written for DuckDB, normalised for jsonb.
  Cell stored_json(const Cell& expected) { return probe().canonical_json(expected); }

  // How many stored rows differ from what an independent consumer read (partition, offset,
  // key, value); a missing or extra row counts too.
  size_t differences(const std::vector<StoredRow>& rows, const std::vector<Consumed>& oracle);

  // The proof that a sync of `topic` (holding `total` messages) stored every message exactly
  // once: as many rows and distinct ids as messages, positions covering them all, and each
  // row equal to what an independent consumer reads.
  void expect_every_message_once(const std::string& topic, int64_t total);

  std::string db() const { return warehouse_.duckdb_file().string(); }
  std::filesystem::path dir() const { return dir_; }

  // BigQuery: the test's own project on the local emulator.
  const std::string& bq_project() const { return warehouse_.project; }

  // PostgreSQL: the test's own database, and a superuser session to it.
  const std::string& pg_database() const { return warehouse_.database; }
  PgSession& pg_admin();
  static PgServer pg_server() { return PgServer::from_env(); }

  // Holds the lock of sync `sync_id` as another running sync would, until destroyed.
  std::unique_ptr<Held> hold_sync_lock(const std::string& sync_id) const {
    return traits().hold_sync_lock(warehouse_, sync_id);
  }

  // Takes the lock of sync `sync_id` away from krow process `pid`, alive but stopped; false
  // where the engine cannot (EngineTraits::break_sync_lock).
  bool break_sync_lock(const std::string& sync_id, pid_t pid) const {
    if (!traits().break_sync_lock) return false;
    traits().break_sync_lock(warehouse_, sync_id, static_cast<int>(pid));
    return true;
  }

  // Table name of a topic as krow maps it (lower case, [a-z0-9_]).
  static std::string table_of(const std::string& topic);

  // The broker's SASL_SSL listener (PLAIN, ACLs enforced) and its CA, as scripts/kafka.sh
  // starts it: users admin/admin-secret (super user) and krow/krow-secret (no rights).
  static std::string sasl_bootstrap();
  static std::string kafka_ca_file();
  static std::string source_dir() { return KROW_SOURCE_DIR; }

  // The sync ID write_manifest gives its manifests.
  std::string sync_id_ = "it";

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
  TestWarehouse warehouse_;
  std::unique_ptr<Probe> probe_;
  std::unique_ptr<PgSession> pg_admin_;
};

// A suite that runs once per warehouse engine.
class EngineTest : public SyncTest, public ::testing::WithParamInterface<std::string> {
 protected:
  std::string engine() const override { return GetParam(); }
};

// The engines with typed tables (EngineTraits::typed_tables).
#define KROW_ENGINES                                                                     \
  ::testing::ValuesIn(                                                                   \
      ::krow::testkit::engine_names_with(&::krow::testkit::EngineTraits::typed_tables)), \
      [](const ::testing::TestParamInfo<std::string>& info) { return info.param; }
// The shared adapter suite: every engine, BigQuery (the local emulator) too.
#define KROW_ALL_ENGINES                                \
  ::testing::ValuesIn(::krow::testkit::engine_names()), \
      [](const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace krow::testkit
