#pragma once
// PostgreSQL's physical design: the indexes of the manifest's `indexes:`
// (docs/physical-design.md). Pure; any thread.

#include <string>

#include "warehouse/table_design.hpp"

namespace krow {

// The name of `index` on `table`: krow_ix_<its columns, as lower-case letters, digits and
// _>_<8 hex digits of a hash of table, method and columns>, within 63 bytes. The same index of
// the same table always has the same name, and index names are unique in a schema, so the
// table is part of the hash. Every index krow makes for the manifest starts with krow_ix_,
// and only those are ever dropped.
std::string postgres_index_name(const std::string& table, const IndexSpec& index);

// CREATE INDEX "<name>" ON "<schema>"."<table>" USING <method> ("a", "b").
std::string postgres_index_sql(const std::string& schema, const std::string& table,
                               const IndexSpec& index);

// The prefix of the names postgres_index_name gives.
inline constexpr const char* kPostgresIndexPrefix = "krow_ix_";

}  // namespace krow
