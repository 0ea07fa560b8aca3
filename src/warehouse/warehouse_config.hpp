#pragma once
// The manifest's `warehouse` section: the keys every adapter shares, and the adapter's own
// settings, which its folder parses and checks (see warehouse/adapters.hpp).

#include <memory>
#include <string>

namespace krow {

// An adapter's own keys (the DuckDB file, the PostgreSQL server, ...), parsed by the adapter.
class AdapterSettings {
 public:
  virtual ~AdapterSettings() = default;
};

struct WarehouseConfig {
  std::string type = "duckdb";
  std::string schema = "confluent";  // the schema (dataset) that holds the row tables
  int retry_timeout_s = 300;         // how long a failing warehouse is retried mid-sync
  std::shared_ptr<const AdapterSettings> settings;

  // The adapter's settings as their own type; throws std::bad_cast for another adapter's.
  template <class T>
  const T& settings_as() const {
    return dynamic_cast<const T&>(*settings);
  }
};

}  // namespace krow
