#include "metrics/exposition.hpp"

#include <httplib.h>

#include <map>
#include <sstream>

namespace krow::metrics {

namespace {

// The metric name a line starts with (after "# HELP " or "# TYPE ", or of a sample).
std::string name_at(const std::string& line, size_t from) {
  const auto end = line.find_first_of("{ ", from);
  return line.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

}  // namespace

std::string merge_expositions(const std::vector<std::string>& texts) {
  struct Family {
    std::string help, type;
    std::vector<std::string> samples;
  };
  std::vector<std::string> order;
  std::map<std::string, Family> families;
  auto family = [&](const std::string& name) -> Family& {
    auto [it, added] = families.try_emplace(name);
    if (added) order.push_back(name);
    return it->second;
  };
  for (const auto& text : texts) {
    std::istringstream in(text);
    std::string line, current;
    bool skip = false;  // the current family's TYPE differs from the one kept
    while (std::getline(in, line)) {
      if (line.rfind("# HELP ", 0) == 0) {
        current = name_at(line, 7);
        auto& f = family(current);
        if (f.help.empty()) f.help = line;
        skip = false;
      } else if (line.rfind("# TYPE ", 0) == 0) {
        current = name_at(line, 7);
        auto& f = family(current);
        if (f.type.empty()) f.type = line;
        skip = f.type != line;
      } else if (!line.empty() && line[0] != '#') {
        // A sample of the family announced last (histograms' _bucket, _sum, _count too), or
        // of its own name when none was.
        if (current.empty() || name_at(line, 0).rfind(current, 0) != 0) {
          current = name_at(line, 0);
          skip = false;
        }
        if (!skip) family(current).samples.push_back(line);
      }
    }
  }
  std::string out;
  for (const auto& name : order) {
    const auto& f = families.at(name);
    if (!f.help.empty()) out += f.help + "\n";
    if (!f.type.empty()) out += f.type + "\n";
    for (const auto& s : f.samples) out += s + "\n";
  }
  return out;
}

std::optional<std::string> scrape_local(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(std::chrono::milliseconds(500));
  client.set_read_timeout(std::chrono::seconds(2));
  const auto answer = client.Get("/metrics");
  if (!answer || answer->status != 200) return std::nullopt;
  return answer->body;
}

}  // namespace krow::metrics
