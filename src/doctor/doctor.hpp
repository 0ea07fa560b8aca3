#pragma once
// `krow doctor [manifest]`: checks the environment, connectivity, ACLs and the warehouse,
// one line each, with the fix for what fails. Reads only: nothing is written to Kafka, the
// registry or the warehouse (writability is tested with a temporary file removed at once),
// and no lock is taken, so it can run beside a sync.
//
// Checks, in order (later ones are skipped when an earlier one makes them meaningless):
//   libraries       librdkafka, DuckDB, libpq and libcurl versions (informational)
//   env NAME        each ${NAME} the manifest uses is set (its value is never shown)
//   manifest        it loads (a saved source is read from the encrypted store), and what it asks
//                   of the selected topics can be done (checked when planning, as plan and sync do)
//   kafka DNS/TCP/TLS  each bootstrap server, step by step, TLS with the configured CA
//   kafka authentication (SASL) or connection: the key is accepted, metadata answers
//   cluster ID      a saved source's cluster is the one answering
//   topic T         DESCRIBE (partitions visible) and READ (a real fetch) per selected topic
//   lag group       READ on consumer group krow-<sync name>
//   registry        DNS/TCP/TLS, the key (GET /subjects), reading one subject
//   warehouse       the adapter's checks (see warehouse_checkup.hpp), offsets to read, space
// Each network step waits at most the manifest's connect_timeout, capped at 10 s.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/check.hpp"

namespace krow {

struct DoctorReport {
  std::string manifest;  // the file checked; empty without one
  std::vector<Check> checks;
  // It could not be loaded, or planning refused it (a gate naming no table, ...): exit code 3,
  // as plan and sync refuse it.
  bool manifest_invalid = false;
  std::string skipped;            // what was not checked, and why; empty when everything was
  bool ok() const;                // every check passed
};

// Runs every check. Never throws for what it finds; the texts hold no secret.
DoctorReport run_doctor(const std::optional<std::filesystem::path>& manifest);

// One line per check ("✓ name: detail", "✗ name: detail" and an indented "fix:" line), then a
// summary; or, with `json`, {"manifest", "ok", "checks": [{name, ok, detail, fix}], "skipped"}.
std::string format_doctor(const DoctorReport& report, bool json);

}  // namespace krow
