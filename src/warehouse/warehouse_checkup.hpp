#pragma once
// What `krow doctor` finds out about a warehouse without writing to it: each adapter's own
// checks (the DuckDB file's folder and the file; the PostgreSQL login, encoding and the
// privileges krow needs on its schemas), and the free space where the engine keeps its
// data when a client can see it.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/check.hpp"

namespace krow {

struct WarehouseCheckup {
  std::vector<Check> checks;
  bool usable = false;                 // every check passed: a read-only open may follow
  // The checks a failed one made meaningless and that were left out, and why ("warehouse
  // encoding and schemas: the login failed"); empty when none was. `krow doctor` prints it
  // on its "not checked:" line.
  std::string skipped;
  std::optional<uint64_t> free_bytes;  // space left for the warehouse's files, when visible
  std::string free_where;              // the folder it was measured in
};

}  // namespace krow
