#pragma once
// The manifest: what to sync, from where, into where. Loaded from YAML; every key is
// declared once here with its default (the warehouse adapters declare their own keys in
// their folders), unknown keys are rejected with their line, and `${ENV_VAR}` references
// are replaced before values are checked.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "manifest/bounds.hpp"
#include "manifest/quality.hpp"
#include "manifest/secret.hpp"
#include "manifest/table_settings.hpp"
#include "manifest/section.hpp"
#include "warehouse/warehouse_config.hpp"

namespace krow {

struct SourceConfig {
  std::string bootstrap_servers;           // host:port[,host:port...]
  std::string security_protocol = "PLAINTEXT";  // PLAINTEXT | SSL | SASL_SSL | SASL_PLAINTEXT
  std::string sasl_mechanism = "PLAIN";    // PLAIN | SCRAM-SHA-256 | SCRAM-SHA-512
  std::string username;                    // API key on Confluent Cloud
  Secret password;                         // API secret on Confluent Cloud
  std::string ca_file;                     // PEM CA bundle; system CAs when empty
  bool verify_certificates = true;         // TLS peer and host name verification
  int connect_timeout_s = 30;              // how long to wait for the cluster to answer
  int retry_timeout_s = 300;               // outage tolerated mid-sync before giving up
};

// Optional Schema Registry (Confluent-compatible API), with its own key and secret.
struct RegistryConfig {
  std::string url;         // e.g. https://psrc-xxxxx.eu-central-1.aws.confluent.cloud; empty: none
  std::string username;    // registry API key
  Secret password;         // registry API secret
  std::string ca_file;     // PEM CA bundle; system CAs when empty
  bool tagged_unions = false;  // Avro unions as {"branch": value} instead of the plain value
  bool configured() const { return !url.empty(); }
};

struct TopicSelection {
  std::vector<std::string> names;     // exact topic names
  std::vector<std::string> prefixes;  // e.g. "orders."
  std::vector<std::string> globs;     // shell-style: *, ?, [abc]
  std::vector<std::string> exclude;   // globs removed from the selection
  bool selects_all() const { return names.empty() && prefixes.empty() && globs.empty(); }
};

struct BatchConfig {
  // 40,960: whole row groups in the DuckDB files krow writes (see the DuckDB adapter), and
  // within the contract's "at most 50,000 messages".
  int64_t max_messages = 40960;
  int64_t max_bytes = 16ll << 20;
};

struct LimitsConfig {
  int64_t max_value_bytes = 8ll << 20;
};

struct Manifest {
  std::filesystem::path file;  // where it was loaded from
  std::string name;            // the sync ID; defaults to the file's stem
  SourceConfig source;
  std::string saved_source;    // `source: {saved: NAME}`: settings come from `krow connect`
  std::string bound_cluster_id;  // set from a saved source: the cluster its key was checked on
  RegistryConfig registry;
  TopicSelection topics;
  WarehouseConfig warehouse;
  BatchConfig batch;
  LimitsConfig limits;
  BoundsConfig bounds;  // how far one run reads (`bounds:`, overridden by the sync flags)
  QualityConfig quality;  // gates a run must pass, and when its rows become visible (`quality:`)
  std::vector<TableRule> tables;  // per-table strategy (`tables:`)
};

// Loads and checks a manifest. Throws Error(ErrorClass::config) naming the file, line and
// key of the first problem. `env` looks up environment variables (injectable for tests).
Manifest load_manifest(const std::filesystem::path& file, EnvLookup env = nullptr);
Manifest parse_manifest(const std::string& yaml, const std::filesystem::path& file,
                        EnvLookup env = nullptr);

}  // namespace krow
