// The layers of src/ (docs/ARCHITECTURE.md): the order the docs give, the libraries CMake
// builds (the layers.txt it writes) and every #include in src/ agree. The build refuses an
// include of a library that is not linked; this also refuses a link or an include that runs
// up or across the layers, and a C library used outside the folders that own it.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kSource = KROW_SOURCE_DIR;

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Folder → layer (0 the lowest), from the ```layers block of docs/ARCHITECTURE.md.
std::map<std::string, int> doc_layers() {
  const auto doc = read_file(kSource / "docs/ARCHITECTURE.md");
  const auto start = doc.find("```layers\n");
  if (start == std::string::npos) return {};
  const auto end = doc.find("```", start + 10);
  std::istringstream lines(doc.substr(start + 10, end - start - 10));
  std::map<std::string, int> out;
  int level = 0;
  for (std::string line; std::getline(lines, line); ++level) {
    std::istringstream folders(line);
    for (std::string f; folders >> f;) out[f] = level;
  }
  return out;
}

struct Library {
  std::string name;
  std::string folder;
  std::vector<std::string> links;  // krow libraries
};

// From the layers.txt CMake writes: "<library> <folder>: <link>;<link>".
std::vector<Library> cmake_libraries() {
  std::ifstream in(KROW_LAYERS_FILE);
  std::vector<Library> out;
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    const auto space = line.find(' ');
    if (colon == std::string::npos || space == std::string::npos || space > colon) continue;
    Library l{line.substr(0, space), line.substr(space + 1, colon - space - 1), {}};
    std::istringstream links(line.substr(colon + 1));
    for (std::string link; std::getline(links, link, ';');) {
      link.erase(std::remove(link.begin(), link.end(), ' '), link.end());
      if (!link.empty()) l.links.push_back(link);
    }
    out.push_back(std::move(l));
  }
  return out;
}

// The folder (a layer of `layers`) that `path` (relative to src/) is in: the longest that
// prefixes it.
std::string folder_of(const std::string& path, const std::map<std::string, int>& layers) {
  std::string best;
  for (const auto& [folder, _] : layers)
    if (path.rfind(folder + "/", 0) == 0 && folder.size() > best.size()) best = folder;
  return best;
}

struct Include {
  std::string file;  // relative to src/
  std::string path;  // as written
  bool system = false;
};

std::vector<Include> includes_of_src() {
  static const std::regex include(R"re(^\s*#\s*include\s*([<"])([^>"]+)[>"])re");
  std::vector<Include> out;
  for (const auto& entry : fs::recursive_directory_iterator(kSource / "src")) {
    const auto ext = entry.path().extension();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
    std::ifstream in(entry.path());
    const auto file = fs::relative(entry.path(), kSource / "src").string();
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_search(line, m, include)) out.push_back({file, m[2].str(), m[1].str() == "<"});
    }
  }
  return out;
}

TEST(Layers, TheDocsGiveTheOrderAndNameEveryLibrarysFolder) {
  const auto layers = doc_layers();
  ASSERT_FALSE(layers.empty()) << "docs/ARCHITECTURE.md has no ```layers block";
  const auto libraries = cmake_libraries();
  ASSERT_FALSE(libraries.empty()) << "no libraries in " << KROW_LAYERS_FILE;
  std::set<std::string> built;
  for (const auto& l : libraries) {
    built.insert(l.folder);
    EXPECT_TRUE(layers.count(l.folder)) << "library " << l.name << " (src/" << l.folder
                                        << ") is not in the layers of docs/ARCHITECTURE.md";
  }
  for (const auto& [folder, _] : layers)
    EXPECT_TRUE(built.count(folder)) << "docs/ARCHITECTURE.md names layer " << folder
                                     << ", which no library of src/CMakeLists.txt builds";
  // Every folder of src/ that holds code is some library's.
  for (const auto& entry : fs::recursive_directory_iterator(kSource / "src")) {
    if (!entry.is_regular_file()) continue;
    const auto ext = entry.path().extension();
    if (ext != ".cpp" && ext != ".hpp") continue;
    const auto file = fs::relative(entry.path(), kSource / "src").string();
    EXPECT_FALSE(folder_of(file, layers).empty()) << "src/" << file << " is in no layer";
  }
}

TEST(Layers, ALibraryLinksOnlyLibrariesOfLowerLayers) {
  const auto layers = doc_layers();
  std::map<std::string, std::string> folder_of_library;
  for (const auto& l : cmake_libraries()) folder_of_library[l.name] = l.folder;
  for (const auto& l : cmake_libraries())
    for (const auto& link : l.links) {
      ASSERT_TRUE(folder_of_library.count(link)) << link;
      EXPECT_LT(layers.at(folder_of_library.at(link)), layers.at(l.folder))
          << l.name << " (src/" << l.folder << ") links " << link << " (src/"
          << folder_of_library.at(link) << "), which is not below it in docs/ARCHITECTURE.md";
    }
}

TEST(Layers, NoIncludeRunsUpOrAcrossTheLayers) {
  const auto layers = doc_layers();
  const auto libraries = cmake_libraries();
  // What each folder's library reaches through its links, itself included.
  std::map<std::string, std::set<std::string>> reaches;
  std::map<std::string, const Library*> by_name, by_folder;
  for (const auto& l : libraries) by_name[l.name] = by_folder[l.folder] = &l;
  for (const auto& l : libraries) {
    std::vector<const Library*> todo{&l};
    auto& seen = reaches[l.folder];
    while (!todo.empty()) {
      const auto* at = todo.back();
      todo.pop_back();
      if (!seen.insert(at->folder).second) continue;
      for (const auto& link : at->links) todo.push_back(by_name.at(link));
    }
  }
  size_t checked = 0;
  for (const auto& inc : includes_of_src()) {
    if (inc.system) continue;
    const auto from = folder_of(inc.file, layers);
    const auto to = folder_of(inc.path, layers);
    ASSERT_FALSE(to.empty()) << "src/" << inc.file << " includes \"" << inc.path
                             << "\", in no layer";
    ++checked;
    if (from == to) continue;
    EXPECT_LT(layers.at(to), layers.at(from)) << "src/" << inc.file << " includes \"" << inc.path
                                              << "\": " << to << " is not below " << from;
    EXPECT_TRUE(reaches[from].count(to))
        << "src/" << inc.file << " includes \"" << inc.path << "\", but the library of " << from
        << " does not link the one of " << to;
  }
  EXPECT_GT(checked, 300u);
}

// Each C library is wrapped by the folders that own it (an engine's by its adapter alone).
TEST(Layers, CLibrariesAreIncludedOnlyWhereTheyAreWrapped) {
  const std::map<std::string, std::set<std::string>> owners = {
      {"duckdb.h", {"warehouse/duckdb"}},
      {"libpq-fe.h", {"warehouse/postgres"}},
      {"openssl/", {"warehouse/bigquery"}},
      {"librdkafka/", {"kafka"}},
      {"sodium.h", {"secrets"}},
      {"yaml-cpp/", {"settings", "manifest", "serve"}},
      {"sqlite3.h", {"serve"}},
      {"curl/", {"http"}},
      {"prometheus/", {"metrics"}},
      {"httplib.h", {"metrics", "serve"}},
      {"google/protobuf/", {"codec", "columns"}},
  };
  const auto layers = doc_layers();
  for (const auto& inc : includes_of_src()) {
    if (!inc.system) continue;
    for (const auto& [prefix, folders] : owners) {
      if (inc.path.rfind(prefix, 0) != 0) continue;
      EXPECT_TRUE(folders.count(folder_of(inc.file, layers)))
          << "src/" << inc.file << " includes <" << inc.path << ">, which only " << *folders.begin()
          << (folders.size() > 1 ? " (and others)" : "") << " may";
    }
  }
}

// Unit tests live in folders that mirror src/: tests/unit/codec/avro tests src/codec/avro.
TEST(Layers, UnitTestFoldersMirrorTheSourceTree) {
  size_t checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kSource / "tests" / "unit")) {
    if (!entry.is_directory()) continue;
    const auto folder = fs::relative(entry.path(), kSource / "tests" / "unit");
    EXPECT_TRUE(fs::is_directory(kSource / "src" / folder))
        << "tests/unit/" << folder.string() << " has no src/" << folder.string() << " to mirror";
    ++checked;
  }
  for (const auto& entry : fs::directory_iterator(kSource / "tests" / "unit")) {
    if (entry.is_regular_file() && entry.path().filename() != "layers_test.cpp")
      ADD_FAILURE() << "tests/unit/" << entry.path().filename().string()
                    << " belongs in the folder of the src/ folder it tests";
  }
  EXPECT_GT(checked, 10u);
}

}  // namespace
