#pragma once
// The Kafka cluster a sync reads (the manifest's `source:`, or a source saved by `krow
// connect`): where it is and how to authenticate. Read by manifest/, used by kafka/.

#include <string>

#include "util/secret.hpp"

namespace krow {

struct SourceConfig {
  std::string bootstrap_servers;                // host:port[,host:port...]
  std::string security_protocol = "PLAINTEXT";  // PLAINTEXT | SSL | SASL_SSL | SASL_PLAINTEXT
  std::string sasl_mechanism = "PLAIN";         // PLAIN | SCRAM-SHA-256 | SCRAM-SHA-512
  std::string username;                         // API key on Confluent Cloud
  Secret password;                              // API secret on Confluent Cloud
  std::string ca_file;                          // PEM CA bundle; system CAs when empty
  bool verify_certificates = true;              // TLS peer and host name verification
  int connect_timeout_s = 30;                   // how long to wait for the cluster to answer
  int retry_timeout_s = 300;                    // outage tolerated mid-sync before giving up
};

}  // namespace krow
