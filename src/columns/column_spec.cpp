#include "columns/column_spec.hpp"

namespace krow::columns {

std::string path_text(const std::vector<std::string>& path) {
  if (path.empty()) return "(root)";
  std::string out;
  for (const auto& p : path) {
    if (!out.empty()) out += '.';
    out += p;
  }
  return out;
}

}  // namespace krow::columns
