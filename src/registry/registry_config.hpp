#pragma once
// The schema registry a sync decodes with (the manifest's `registry:`). Read by manifest/,
// used by registry/.

#include <string>

#include "util/secret.hpp"

namespace krow {

// Optional Schema Registry (Confluent-compatible API), with its own key and secret.
struct RegistryConfig {
  std::string url;       // e.g. https://psrc-xxxxx.eu-central-1.aws.confluent.cloud; empty: none
  std::string username;  // registry API key
  Secret password;       // registry API secret
  std::string ca_file;   // PEM CA bundle; system CAs when empty
  bool tagged_unions = false;  // Avro unions as {"branch": value} instead of the plain value
  bool configured() const { return !url.empty(); }
};

}  // namespace krow
