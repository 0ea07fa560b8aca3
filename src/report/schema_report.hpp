#pragma once
// `krow schema`'s output: the typed columns each table would get (SchemaReport, from
// plan/typed_columns), as aligned text for people or as JSON for programs. Pure; any thread
// may call it.

#include <string>

#include "plan/typed_columns.hpp"

namespace krow {

std::string format_schema_report(const SchemaReport& report, bool json);

}  // namespace krow
