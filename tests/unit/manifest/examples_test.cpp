// The documentation against the code, without services:
// - every manifest in examples/ loads with krow's loader and follows schema/manifest.schema.json;
// - every YAML block of README.md and docs/ is (a part of) an example file, a fragment krow's
//   loader accepts, or marked as no manifest at all (the convention: docs/development.md);
// - docs/manifest.md lists exactly the keys the JSON Schema declares, with its defaults and
// choices;
// - every relative link of README.md and docs/ reaches a file and, for a page, a heading.

#include <gtest/gtest.h>
#include <simdjson.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "manifest/manifest.hpp"
#include "util/error.hpp"

namespace krow {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = KROW_SOURCE_DIR;

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

std::string rstrip(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  return b == std::string::npos ? "" : rstrip(s.substr(b));
}

std::string without_backticks(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '`'), s.end());
  return s;
}

std::string repo_path(const fs::path& p) {
  return fs::relative(p, kRoot).generic_string();
}

std::vector<fs::path> example_files() {
  std::vector<fs::path> out;
  for (const auto& f : fs::directory_iterator(kRoot / "examples"))
    if (f.path().extension() == ".yaml") out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<fs::path> doc_files() {
  std::vector<fs::path> out{kRoot / "README.md"};
  for (const auto& f : fs::recursive_directory_iterator(kRoot / "docs"))
    if (f.path().extension() == ".md") out.push_back(f.path());
  std::sort(out.begin() + 1, out.end());
  return out;
}

// Values for the ${VARS} the examples use; any other variable gets a placeholder.
const char* example_env(const char* name) {
  return std::string_view(name) == "CUTOFF" ? "2026-12-01T00:00:00Z" : "placeholder";
}

// ---- fenced code blocks ----

struct Block {
  fs::path file;
  int line = 0;      // 1-based line of the opening fence
  std::string info;  // the fence's info string, trimmed
  std::vector<std::string> lines;
  std::string where() const { return repo_path(file) + ":" + std::to_string(line); }
  std::string text() const {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
  }
};

std::vector<Block> fenced_blocks(const fs::path& md) {
  static const std::regex fence(R"(^( *)(```+)(.*)$)");
  std::vector<Block> out;
  const auto lines = lines_of(read_text(md));
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(lines[i], m, fence)) continue;
    Block b;
    b.file = md;
    b.line = static_cast<int>(i) + 1;
    b.info = trim(m[3]);
    const size_t indent = m[1].length();
    const std::string close = m[2];
    for (++i; i < lines.size(); ++i) {
      if (trim(lines[i]) == close) break;
      const auto& l = lines[i];
      const size_t cut = std::min(indent, l.find_first_not_of(' ') == std::string::npos
                                              ? l.size()
                                              : l.find_first_not_of(' '));
      b.lines.push_back(rstrip(l.substr(cut)));
    }
    out.push_back(std::move(b));
  }
  return out;
}

bool is_yaml(const Block& b) {
  const auto lang = b.info.substr(0, b.info.find(' '));
  return lang == "yaml" || lang == "yml";
}

// ---- YAML to JSON, as an editor's YAML 1.2 (core schema) reads it ----

void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

// A plain (unquoted) scalar resolved by the YAML 1.2 core schema: null, bool, int, float or string.
void append_plain_scalar(std::string& out, const std::string& v) {
  static const std::regex null_re(R"(^(~|null|Null|NULL|)$)");
  static const std::regex true_re(R"(^(true|True|TRUE)$)");
  static const std::regex false_re(R"(^(false|False|FALSE)$)");
  static const std::regex int_re(R"(^[-+]?[0-9]+$)");
  static const std::regex oct_re(R"(^0o[0-7]+$)");
  static const std::regex hex_re(R"(^0x[0-9a-fA-F]+$)");
  static const std::regex float_re(R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)");
  if (std::regex_match(v, null_re)) {
    out += "null";
  } else if (std::regex_match(v, true_re)) {
    out += "true";
  } else if (std::regex_match(v, false_re)) {
    out += "false";
  } else if (std::regex_match(v, int_re)) {
    out += std::to_string(std::stoll(v));
  } else if (std::regex_match(v, oct_re)) {
    out += std::to_string(std::stoll(v.substr(2), nullptr, 8));
  } else if (std::regex_match(v, hex_re)) {
    out += std::to_string(std::stoll(v.substr(2), nullptr, 16));
  } else if (std::regex_match(v, float_re)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", std::strtod(v.c_str(), nullptr));
    out += buf;
  } else {
    append_json_string(out, v);
  }
}

void append_json(std::string& out, const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      out += "null";
      return;
    case YAML::NodeType::Scalar:
      // yaml-cpp tags a plain scalar "?" and a quoted one "!".
      if (node.Tag() == "?")
        append_plain_scalar(out, node.Scalar());
      else
        append_json_string(out, node.Scalar());
      return;
    case YAML::NodeType::Sequence: {
      out += '[';
      bool first = true;
      for (const auto& item : node) {
        if (!first) out += ',';
        first = false;
        append_json(out, item);
      }
      out += ']';
      return;
    }
    case YAML::NodeType::Map: {
      out += '{';
      bool first = true;
      for (const auto& kv : node) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, kv.first.Scalar());
        out += ':';
        append_json(out, kv.second);
      }
      out += '}';
      return;
    }
  }
}

TEST(YamlToJson, ReadsScalarsAsAYaml12EditorDoes) {
  std::string out;
  append_json(
      out,
      YAML::Load("a: 40960\nb: '40960'\nc: true\nd: ~\ne: 16MiB\nf: 2026-03-01T00:00:00Z\ng: 0.5\n"
                 "h: [x, \"y\"]\ni: ${CUTOFF}\nj: yes\nk:\n"));
  EXPECT_EQ(
      out,
      R"({"a":40960,"b":"40960","c":true,"d":null,"e":"16MiB","f":"2026-03-01T00:00:00Z","g":0.5,)"
      R"("h":["x","y"],"i":"${CUTOFF}","j":"yes","k":null})");
}

// ---- the JSON Schema's keys ----

// What the schema says about one key: its default(s) and the values it allows by name.
struct KeyFacts {
  std::set<std::string> defaults;
  std::set<std::string> choices;
};
// Keyed "<tag>|<path>": the path joins property names with '.', `[]` for list items and
// `<pattern>` for a mapping's free keys; the tag is the `type` const of the oneOf branch that
// alone declares the key (a warehouse engine, a gate type), empty for keys every branch has.
using KeyMap = std::map<std::string, KeyFacts>;

std::string rendered(simdjson::dom::element e) {
  std::string_view s;
  if (e.get(s) == simdjson::SUCCESS) return std::string(s);
  simdjson::dom::array a;
  if (e.get(a) == simdjson::SUCCESS) {
    std::string out = "[";
    for (auto item : a) out += (out.size() > 1 ? ", " : "") + rendered(item);
    return out + "]";
  }
  return simdjson::minify(e);
}

class SchemaKeys {
 public:
  explicit SchemaKeys(const fs::path& file) : root_(parser_.load(file.string())) {}

  KeyMap keys() {
    KeyMap out;
    walk(root_, "", "", out);
    return out;
  }

  // The names of the manifest's top-level sections.
  std::set<std::string> sections() {
    std::set<std::string> out;
    simdjson::dom::object properties;
    EXPECT_EQ(root_["properties"].get(properties), simdjson::SUCCESS);
    for (auto kv : properties) out.insert(std::string(kv.key));
    return out;
  }

 private:
  simdjson::dom::element resolve(simdjson::dom::element e) {
    std::string_view ref;
    while (e.at_key("$ref").get(ref) == simdjson::SUCCESS) {
      const std::string_view prefix = "#/$defs/";
      EXPECT_EQ(ref.substr(0, prefix.size()), prefix) << "only local $defs references are followed";
      e = root_["$defs"][ref.substr(prefix.size())];
    }
    return e;
  }

  static void add_choices(simdjson::dom::element e, KeyFacts& f) {
    simdjson::dom::array values;
    if (e["enum"].get(values) == simdjson::SUCCESS)
      for (auto v : values) f.choices.insert(rendered(v));
    simdjson::dom::element c;
    if (e.at_key("const").get(c) == simdjson::SUCCESS) f.choices.insert(rendered(c));
  }

  void facts(simdjson::dom::element property, KeyFacts& f) {
    for (auto e : {property, resolve(property)}) {
      simdjson::dom::element d;
      if (e.at_key("default").get(d) == simdjson::SUCCESS) f.defaults.insert(rendered(d));
      add_choices(e, f);
      for (const char* combinator : {"anyOf", "oneOf"}) {
        simdjson::dom::array branches;
        if (e[combinator].get(branches) == simdjson::SUCCESS)
          for (auto b : branches) add_choices(resolve(b), f);
      }
    }
  }

  // The `type` const of a branch, or "" when it has none.
  static std::string discriminator(simdjson::dom::element branch) {
    std::string_view c;
    return branch["properties"]["type"]["const"].get(c) == simdjson::SUCCESS ? std::string(c) : "";
  }

  static void merge(KeyMap& into, const std::string& key, const KeyFacts& f) {
    auto& k = into[key];
    k.defaults.insert(f.defaults.begin(), f.defaults.end());
    k.choices.insert(f.choices.begin(), f.choices.end());
  }

  void walk(simdjson::dom::element node, const std::string& path, const std::string& tag,
            KeyMap& out) {
    node = resolve(node);
    simdjson::dom::object properties;
    if (node["properties"].get(properties) == simdjson::SUCCESS) {
      for (auto kv : properties) {
        const std::string p = path.empty() ? std::string(kv.key) : path + "." + std::string(kv.key);
        KeyFacts f;
        facts(kv.value, f);
        merge(out, tag + "|" + p, f);
        walk(kv.value, p, tag, out);
      }
    }
    simdjson::dom::element nested;
    if (node["additionalProperties"].get(nested) == simdjson::SUCCESS && nested.is_object())
      walk(nested, path + ".<pattern>", tag, out);
    if (node["items"].get(nested) == simdjson::SUCCESS && nested.is_object())
      walk(nested, path + "[]", tag, out);
    simdjson::dom::array all;
    if (node["allOf"].get(all) == simdjson::SUCCESS) {
      // `if` holds conditions, not declarations; `then` and `else` may declare keys.
      for (auto b : all)
        for (const char* part : {"then", "else"}) {
          simdjson::dom::element e;
          if (b.at_key(part).get(e) == simdjson::SUCCESS) walk(e, path, tag, out);
        }
    }
    for (const char* combinator : {"oneOf", "anyOf"}) {
      simdjson::dom::array branches;
      if (node[combinator].get(branches) != simdjson::SUCCESS) continue;
      std::vector<simdjson::dom::element> resolved;
      bool tagged = true;
      for (auto b : branches) {
        resolved.push_back(resolve(b));
        tagged = tagged && !discriminator(resolved.back()).empty();
      }
      if (!tagged || resolved.size() < 2) {
        for (auto b : resolved) walk(b, path, tag, out);
        continue;
      }
      std::vector<std::pair<std::string, KeyMap>> per_branch;
      std::map<std::string, size_t> seen;
      for (auto b : resolved) {
        KeyMap m;
        walk(b, path, "", m);
        for (const auto& kv : m) ++seen[kv.first];
        per_branch.emplace_back(discriminator(b), std::move(m));
      }
      // A key every branch declares keeps the enclosing tag; one some branches declare takes
      // each such branch's const; a key tagged deeper down keeps its own tag.
      for (const auto& [branch_tag, m] : per_branch)
        for (const auto& [key, f] : m) {
          if (key.front() != '|')
            merge(out, key, f);
          else if (seen[key] == resolved.size())
            merge(out, tag + key, f);
          else
            merge(out, branch_tag + key, f);
        }
    }
  }

  simdjson::dom::parser parser_;
  simdjson::dom::element root_;
};

// ---- the reference page's keys ----

struct DocRow {
  int line = 0;
  std::map<std::string, std::string> cells;  // by column header
  std::string text;
};
using DocKeys = std::map<std::string, DocRow>;  // "<tag>|<path>", as KeyMap

std::vector<std::string> table_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  bool code = false;
  for (size_t i = 1; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '`') code = !code;
    if (c == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (c == '|' && !code) {
      cells.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  return cells;
}

// Rows of the tables whose first column is headed "key". A heading that names `type: X` tags
// the rows under it (and under its subheadings) with X.
DocKeys documented_keys(const fs::path& md) {
  static const std::regex heading(R"(^(#+) (.*)$)");
  static const std::regex marker(R"(`type: ([a-z_]+)`)");
  DocKeys out;
  std::vector<std::pair<size_t, std::string>> stack;  // heading level, tag
  std::vector<std::string> header;
  bool in_code = false;
  const auto lines = lines_of(read_text(md));
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (l.rfind("```", 0) == 0) in_code = !in_code;
    if (in_code) continue;
    std::smatch m;
    if (std::regex_match(l, m, heading)) {
      const size_t level = m[1].length();
      while (!stack.empty() && stack.back().first >= level) stack.pop_back();
      std::smatch t;
      const std::string text = m[2];
      const std::string tag = std::regex_search(text, t, marker) ? std::string(t[1])
                              : stack.empty()                    ? ""
                                                                 : stack.back().second;
      stack.emplace_back(level, tag);
      continue;
    }
    if (l.rfind("|", 0) != 0) {
      header.clear();
      continue;
    }
    auto cells = table_cells(l);
    if (header.empty()) {
      if (!cells.empty() && cells[0] == "key") header = cells;
      continue;
    }
    if (!cells.empty() && cells[0].rfind("---", 0) == 0) continue;
    EXPECT_TRUE(cells.size() == header.size() && cells[0].size() > 2 && cells[0].front() == '`' &&
                cells[0].back() == '`')
        << repo_path(md) << ":" << i + 1
        << ": a key table's row starts with the key in backticks and has " << header.size()
        << " cells";
    if (cells.empty()) continue;
    DocRow row;
    row.line = static_cast<int>(i) + 1;
    row.text = without_backticks(l);
    for (size_t c = 0; c < cells.size() && c < header.size(); ++c)
      row.cells[header[c]] = without_backticks(cells[c]);
    const auto key = (stack.empty() ? "" : stack.back().second) + "|" + without_backticks(cells[0]);
    EXPECT_EQ(out.count(key), 0u) << repo_path(md) << ":" << i + 1 << ": " << key
                                  << " is documented twice";
    out[key] = row;
  }
  return out;
}

std::string shown(const std::string& key) {
  const auto bar = key.find('|');
  return key.substr(bar + 1) +
         (bar == 0 ? "" : " (under a heading with `type: " + key.substr(0, bar) + "`)");
}

// ---- links ----

// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
std::string slug(const std::string& heading) {
  static const std::regex link(R"(\[([^\]]*)\]\([^)]*\))");
  const std::string text = std::regex_replace(heading, link, "$1");
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c))
      out += static_cast<char>(std::tolower(c));
    else if (c == ' ' || c == '-')
      out += '-';
    else if (c == '_')
      out += '_';
  }
  return out;
}

std::set<std::string> anchors_of(const fs::path& md) {
  static const std::regex heading(R"(^#+ (.*)$)");
  std::set<std::string> out;
  std::map<std::string, int> used;
  bool in_code = false;
  for (const auto& l : lines_of(read_text(md))) {
    if (l.find("```") != std::string::npos && trim(l).rfind("```", 0) == 0) in_code = !in_code;
    std::smatch m;
    if (in_code || !std::regex_match(l, m, heading)) continue;
    const auto s = slug(m[1]);
    const int n = used[s]++;
    out.insert(n == 0 ? s : s + "-" + std::to_string(n));
  }
  return out;
}

// ---------------------------------------------------------------------------------------

TEST(Examples, EveryManifestLoads) {
  const auto files = example_files();
  EXPECT_GE(files.size(), 10u);
  for (const auto& f : files) EXPECT_NO_THROW(load_manifest(f, example_env)) << repo_path(f);
  const auto gated = load_manifest(kRoot / "examples/gated-ci.yaml", example_env);
  EXPECT_EQ(gated.quality.publish, PublishMode::staged);
  EXPECT_EQ(gated.quality.gates.size(), 4u);
}

// Validated as written (before ${VARS} are replaced), as an editor with the schema sees them.
TEST(Examples, EveryManifestFollowsTheJsonSchema) {
  char dir_template[] = "/tmp/krow-examples-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const fs::path dir = dir_template;
  std::string documents;
  for (const auto& f : example_files()) {
    std::string json;
    append_json(json, YAML::LoadFile(f.string()));
    const auto out = dir / (f.filename().string() + ".json");
    std::ofstream(out) << json;
    documents += " '" + out.string() + "'";
  }
  std::string python = "python3";
  if (const char* p = std::getenv("KROW_PYTHON")) {
    python = p;
  } else {
    // The reference payloads' virtual environment (tests/reference/setup_venv.sh) pins jsonschema.
    const char* services = std::getenv("KROW_SERVICES_DIR");
    const fs::path venv = (services ? fs::path(services) : kRoot / ".services") / "py/bin/python";
    if (fs::exists(venv)) python = venv.string();
  }
  const std::string command =
      "'" + python + "' '" + (kRoot / "tests/support/json_schema_check.py").string() + "' '" +
      (kRoot / "schema/manifest.schema.json").string() + "'" + documents + " 2>&1";
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  const int status = pclose(pipe);
  fs::remove_all(dir);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 77 || code == 127) GTEST_SKIP() << "no JSON Schema validator: " << output;
  EXPECT_EQ(code, 0) << output;
}

TEST(Examples, EveryExampleIsNamedInTheDocs) {
  std::string docs;
  for (const auto& md : doc_files()) docs += read_text(md);
  for (const auto& f : example_files())
    EXPECT_NE(docs.find("examples/" + f.filename().string()), std::string::npos)
        << repo_path(f) << " is named nowhere in README.md or docs/";
}

TEST(DocBlocks, EveryYamlBlockIsAnExampleAFragmentOrMarked) {
  SchemaKeys schema(kRoot / "schema/manifest.schema.json");
  const auto sections = schema.sections();
  int examples = 0, fragments = 0;
  for (const auto& md : doc_files()) {
    for (const auto& b : fenced_blocks(md)) {
      if (!is_yaml(b)) continue;
      const auto rest = trim(
          b.info.substr(b.info.find(' ') == std::string::npos ? b.info.size() : b.info.find(' ')));
      if (rest.rfind("examples/", 0) == 0) {
        ++examples;
        const auto file = kRoot / rest;
        ASSERT_TRUE(fs::exists(file)) << b.where() << ": no file " << rest;
        std::vector<std::string> file_lines;
        for (const auto& l : lines_of(read_text(file))) file_lines.push_back(rstrip(l));
        ASSERT_FALSE(b.lines.empty()) << b.where();
        const auto at =
            std::search(file_lines.begin(), file_lines.end(), b.lines.begin(), b.lines.end());
        EXPECT_NE(at, file_lines.end())
            << b.where() << ": the block is not a run of whole lines of " << rest
            << " (show the file, or a part of it, exactly as it is):\n"
            << b.text();
      } else if (rest == "fragment") {
        ++fragments;
        YAML::Node node;
        ASSERT_NO_THROW(node = YAML::Load(b.text())) << b.where();
        ASSERT_TRUE(node.IsMap()) << b.where() << ": a fragment is one or more manifest sections";
        for (const auto& kv : node)
          EXPECT_TRUE(sections.count(kv.first.Scalar()))
              << b.where() << ": '" << kv.first.Scalar() << "' is not a manifest section";
        EXPECT_FALSE(node["source"] && node["warehouse"])
            << b.where()
            << ": a fragment with both source and warehouse is a manifest: put it in examples/";
        std::string yaml = b.text();
        if (!node["source"]) yaml += "source: {bootstrap_servers: '127.0.0.1:9092'}\n";
        if (!node["warehouse"]) yaml += "warehouse: {path: fragment.duckdb}\n";
        try {
          parse_manifest(yaml, kRoot / "docs/fragment.yaml", example_env);
        } catch (const Error& e) {
          ADD_FAILURE() << b.where() << ": krow's loader refuses the fragment: " << e.what();
        }
      } else if (rest == "other") {
        EXPECT_NO_THROW(YAML::Load(b.text())) << b.where();
      } else {
        ADD_FAILURE() << b.where()
                      << ": a YAML block's fence says what it is: ```yaml examples/NAME.yaml (a "
                      << "manifest or a part of one, from that file), ```yaml fragment (manifest "
                         "sections that "
                      << "are no file) or ```yaml other (no manifest); see docs/development.md";
      }
    }
  }
  EXPECT_GE(examples, 5);
  EXPECT_GE(fragments, 5);
}

TEST(ManifestReference, ListsExactlyTheKeysOfTheJsonSchema) {
  SchemaKeys schema(kRoot / "schema/manifest.schema.json");
  const auto declared = schema.keys();
  const auto documented = documented_keys(kRoot / "docs/manifest.md");
  EXPECT_GE(declared.size(), 60u);
  for (const auto& [key, facts] : declared)
    EXPECT_TRUE(documented.count(key)) << "docs/manifest.md does not document " << shown(key)
                                       << ", which schema/manifest.schema.json declares";
  for (const auto& [key, row] : documented)
    EXPECT_TRUE(declared.count(key))
        << "docs/manifest.md:" << row.line << " documents " << shown(key)
        << ", which schema/manifest.schema.json does not declare";
}

TEST(ManifestReference, GivesTheDefaultsAndChoicesOfTheJsonSchema) {
  SchemaKeys schema(kRoot / "schema/manifest.schema.json");
  const auto documented = documented_keys(kRoot / "docs/manifest.md");
  int checked = 0;
  for (const auto& [key, facts] : schema.keys()) {
    const auto row = documented.find(key);
    if (row == documented.end()) continue;  // reported by the test above
    for (const auto& d : facts.defaults) {
      ++checked;
      EXPECT_NE(row->second.cells.at("default").find(d), std::string::npos)
          << "docs/manifest.md:" << row->second.line << ": " << shown(key) << " has the default "
          << d << " in the schema";
    }
    for (const auto& c : facts.choices) {
      ++checked;
      EXPECT_NE(row->second.text.find(c), std::string::npos)
          << "docs/manifest.md:" << row->second.line << ": " << shown(key) << " may be " << c
          << " in the schema";
    }
  }
  EXPECT_GE(checked, 40);
}

TEST(DocLinks, EveryRelativeLinkResolves) {
  static const std::regex link(R"(\]\(([^)\s]+)\))");
  static const std::regex code_span("`[^`]*`");
  int checked = 0;
  for (const auto& md : doc_files()) {
    bool in_code = false;
    int n = 0;
    for (const auto& raw : lines_of(read_text(md))) {
      ++n;
      if (trim(raw).rfind("```", 0) == 0) in_code = !in_code;
      if (in_code) continue;
      const auto line = std::regex_replace(raw, code_span, "code");
      for (std::sregex_iterator it(line.begin(), line.end(), link), end; it != end; ++it) {
        const std::string target = (*it)[1];
        if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
        ++checked;
        const auto hash = target.find('#');
        const std::string file_part = target.substr(0, hash);
        const fs::path file =
            file_part.empty() ? md : (md.parent_path() / file_part).lexically_normal();
        const std::string where = repo_path(md) + ":" + std::to_string(n) + ": " + target;
        if (!fs::exists(file)) {
          ADD_FAILURE() << where << ": no such file";
          continue;
        }
        if (hash == std::string::npos || file.extension() != ".md") continue;
        const auto anchors = anchors_of(file);
        EXPECT_TRUE(anchors.count(target.substr(hash + 1)))
            << where << ": no such heading in " << repo_path(file);
      }
    }
  }
  EXPECT_GE(checked, 50);
}

}  // namespace
}  // namespace krow
