#include "serve/manifest_secrets.hpp"

#include <map>
#include <regex>
#include <sstream>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace krow::serve {
namespace {

// A `password:` key and its value, in block or flow style: a quoted string, or plain text up
// to a comma, a closing brace or a comment.
const std::regex& password_value() {
  static const std::regex re(
      R"re((\bpassword\s*:[ \t]*)("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,}#\s][^,}#]*[^,}#\s]|[^,}#\s]))re");
  return re;
}

std::string masked_line(const std::string& line) {
  return std::regex_replace(line, password_value(), "$1\"" + std::string(kSecretMask) + "\"");
}

// Each line with the keys it sits under (by indentation), as "source.registry".
std::vector<std::pair<std::string, std::string>> lines_with_parents(const std::string& yaml) {
  static const std::regex key(R"re(^(\s*)(?:-\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:)re");
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::pair<size_t, std::string>> parents;  // (indent, key)
  std::istringstream in(yaml);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a browser's form sends CRLF
    std::smatch m;
    if (std::regex_search(line, m, key)) {
      const size_t indent = m[1].length();
      while (!parents.empty() && parents.back().first >= indent) parents.pop_back();
      std::string path;
      for (const auto& p : parents) path += p.second + ".";
      out.emplace_back(path, line);
      parents.emplace_back(indent, m[2].str());
    } else {
      std::string path;
      for (const auto& p : parents) path += p.second + ".";
      out.emplace_back(path, line);
    }
  }
  return out;
}

}  // namespace

std::string mask_secrets(const std::string& yaml) {
  std::string out;
  std::istringstream in(yaml);
  for (std::string line; std::getline(in, line);) out += masked_line(line) + "\n";
  return out;
}

std::string restore_secrets(const std::string& edited, const std::string& saved) {
  if (edited.find(kSecretMask) == std::string::npos) return edited;
  std::map<std::pair<std::string, std::string>, std::string> originals;  // (parents, masked) → line
  for (const auto& [parents, line] : lines_with_parents(saved))
    if (std::regex_search(line, password_value())) originals[{parents, masked_line(line)}] = line;
  std::string out;
  int number = 0;
  for (const auto& [parents, line] : lines_with_parents(edited)) {
    ++number;
    if (line.find(kSecretMask) == std::string::npos) {
      out += line + "\n";
      continue;
    }
    const auto it = originals.find({parents, line});
    if (it == originals.end())
      throw Error(ErrorClass::config,
                  "line " + std::to_string(number) +
                      " keeps a saved password where the saved manifest has none under the same "
                      "keys",
                  Fix{"Write the password there, or undo the change to the keys above it"});
    out += it->second + "\n";
  }
  return out;
}

}  // namespace krow::serve
