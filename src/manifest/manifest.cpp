#include "manifest/manifest.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <strings.h>

#include "util/error.hpp"

namespace krow {

namespace {

// Reads one manifest, keeping the file name for messages.
class Reader {
 public:
  Reader(std::filesystem::path file, EnvLookup env) : file_(std::move(file)), env_(env) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    std::ostringstream msg;
    msg << file_.string();
    if (at.IsDefined() && at.Mark().line >= 0) msg << ":" << at.Mark().line + 1;
    msg << ": " << what;
    throw Error(ErrorClass::config, msg.str());
  }

  // Rejects keys of `map` that are not in `allowed`, suggesting the closest one.
  void check_keys(const YAML::Node& map, const std::string& where,
                  const std::vector<std::string>& allowed) const {
    if (!map.IsMap()) fail(map, where + " must be a mapping of keys to values");
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) fail(kv.first, "keys in " + where + " must be plain names");
      const auto key = kv.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string msg = "unknown key '" + key + "' in " + where;
      if (auto near = closest(key, allowed); !near.empty()) msg += "; did you mean '" + near + "'?";
      msg += " (allowed: ";
      for (size_t i = 0; i < allowed.size(); ++i) msg += (i ? ", " : "") + allowed[i];
      fail(kv.first, msg + ")");
    }
  }

  std::string text(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) fail(node, "'" + key + "' must be a single value");
    return substitute(node, node.Scalar(), key);
  }

  bool boolean(const YAML::Node& node, const std::string& key) const {
    const auto v = text(node, key);
    if (v == "true" || v == "yes" || v == "on") return true;
    if (v == "false" || v == "no" || v == "off") return false;
    fail(node, "'" + key + "' must be true or false, not '" + v + "'");
  }

  // A count or a size: a plain integer, or a number with KiB/MiB/GiB (or KB/MB/GB).
  int64_t size(const YAML::Node& node, const std::string& key, int64_t min, int64_t max) const {
    const auto v = text(node, key);
    static const std::regex re(R"(^\s*(\d+)\s*(|[KMG]i?B|[kKMG])\s*$)");
    std::smatch m;
    if (!std::regex_match(v, m, re))
      fail(node, "'" + key + "' must be a whole number (optionally with KiB, MiB or GiB), not '" +
                     v + "'");
    int64_t n = 0;
    try {
      n = std::stoll(m[1]);
    } catch (...) {
      fail(node, "'" + key + "' is too large");
    }
    const std::string unit = m[2];
    int64_t scale = 1;
    if (!unit.empty()) {
      const bool binary = unit.size() == 3 || unit.size() == 1;
      const int64_t base = binary ? 1024 : 1000;
      const char u = static_cast<char>(std::toupper(unit[0]));
      scale = u == 'K' ? base : u == 'M' ? base * base : base * base * base;
    }
    if (n > max / scale || n * scale < min || n * scale > max)
      fail(node, "'" + key + "' must be between " + std::to_string(min) + " and " +
                     std::to_string(max) + ", not " + v);
    return n * scale;
  }

  std::vector<std::string> list(const YAML::Node& node, const std::string& key) const {
    std::vector<std::string> out;
    if (node.IsScalar()) {
      out.push_back(text(node, key));
      return out;
    }
    if (!node.IsSequence()) fail(node, "'" + key + "' must be a list of strings");
    for (const auto& item : node) out.push_back(text(item, key));
    return out;
  }

  std::string one_of(const YAML::Node& node, const std::string& key,
                     const std::vector<std::string>& choices) const {
    auto v = text(node, key);
    for (const auto& c : choices)
      if (strcasecmp(c.c_str(), v.c_str()) == 0) return c;
    std::string msg = "'" + key + "' must be one of ";
    for (size_t i = 0; i < choices.size(); ++i) msg += (i ? ", " : "") + choices[i];
    fail(node, msg + "; got '" + v + "'");
  }

 private:
  // Replaces ${NAME} with the environment variable NAME; "$$" is a literal "$".
  std::string substitute(const YAML::Node& at, const std::string& in, const std::string& key) const {
    std::string out;
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] != '$' || i + 1 >= in.size()) {
        out.push_back(in[i]);
        continue;
      }
      if (in[i + 1] == '$') {
        out.push_back('$');
        ++i;
        continue;
      }
      if (in[i + 1] != '{') {
        out.push_back('$');
        continue;
      }
      const auto close = in.find('}', i + 2);
      if (close == std::string::npos) fail(at, "'" + key + "' has an unclosed '${'");
      const auto name = in.substr(i + 2, close - i - 2);
      static const std::regex ok(R"(^[A-Za-z_][A-Za-z0-9_]*$)");
      if (!std::regex_match(name, ok))
        fail(at, "'" + key + "' refers to '${" + name + "}', which is not a valid variable name");
      const char* value = env_ ? env_(name.c_str()) : std::getenv(name.c_str());
      if (value == nullptr)
        fail(at, "'" + key + "' uses ${" + name + "}, but the environment variable " + name +
                     " is not set; export it before running krow");
      out += value;
      i = close;
    }
    return out;
  }

  static size_t distance(const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= b.size(); ++j)
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
      std::swap(prev, cur);
    }
    return prev[b.size()];
  }

  static std::string closest(const std::string& key, const std::vector<std::string>& allowed) {
    std::string best;
    size_t best_d = 3;  // suggest only near misses
    for (const auto& a : allowed) {
      const auto d = distance(key, a);
      if (d < best_d) best_d = d, best = a;
    }
    return best;
  }

  std::filesystem::path file_;
  EnvLookup env_;
};

void read_source(const Reader& r, const YAML::Node& node, SourceConfig& s, std::string& saved) {
  r.check_keys(node, "source",
               {"saved", "bootstrap_servers", "security_protocol", "sasl_mechanism", "username", "password",
                "ca_file", "verify_certificates", "connect_timeout", "retry_timeout"});
  if (auto n = node["connect_timeout"])
    s.connect_timeout_s = static_cast<int>(r.size(n, "connect_timeout", 1, 3600));
  if (auto n = node["retry_timeout"]) s.retry_timeout_s = static_cast<int>(r.size(n, "retry_timeout", 1, 86400));
  if (auto n = node["saved"]) {
    saved = r.text(n, "saved");
    for (const auto& kv : node) {
      const auto key = kv.first.Scalar();
      if (key != "saved" && key != "connect_timeout" && key != "retry_timeout")
        r.fail(kv.first, "source." + key + " cannot be combined with source.saved: the saved source '" + saved +
                             "' holds the connection settings (change them with `krow connect " + saved + "`)");
    }
    return;
  }
  if (!node["bootstrap_servers"])
    r.fail(node, "source.bootstrap_servers is required (e.g. localhost:9092)");
  s.bootstrap_servers = r.text(node["bootstrap_servers"], "bootstrap_servers");
  if (s.bootstrap_servers.empty()) r.fail(node["bootstrap_servers"], "source.bootstrap_servers is empty");
  if (auto n = node["security_protocol"])
    s.security_protocol =
        r.one_of(n, "security_protocol", {"PLAINTEXT", "SSL", "SASL_SSL", "SASL_PLAINTEXT"});
  if (auto n = node["sasl_mechanism"])
    s.sasl_mechanism = r.one_of(n, "sasl_mechanism", {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"});
  if (auto n = node["username"]) s.username = r.text(n, "username");
  if (auto n = node["password"]) s.password = Secret(r.text(n, "password"));
  if (auto n = node["ca_file"]) s.ca_file = r.text(n, "ca_file");
  if (auto n = node["verify_certificates"]) s.verify_certificates = r.boolean(n, "verify_certificates");
  const bool sasl = s.security_protocol.rfind("SASL_", 0) == 0;
  if (sasl && (s.username.empty() || s.password.empty()))
    r.fail(node, "security_protocol " + s.security_protocol +
                     " needs source.username and source.password (use ${ENV_VAR} for the secret)");
}

bool url_has_credentials(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return false;
  const auto host_end = url.find('/', scheme + 3);
  return url.substr(scheme + 3, host_end == std::string::npos ? std::string::npos : host_end - scheme - 3)
             .find('@') != std::string::npos;
}

void read_registry(const Reader& r, const YAML::Node& node, RegistryConfig& g) {
  r.check_keys(node, "registry", {"url", "username", "password", "ca_file", "avro_unions"});
  if (auto n = node["avro_unions"]) g.tagged_unions = r.one_of(n, "avro_unions", {"plain", "tagged"}) == "tagged";
  if (!node["url"]) r.fail(node, "registry.url is required (e.g. https://psrc-xxxxx.<region>.<cloud>.confluent.cloud)");
  g.url = r.text(node["url"], "url");
  if (g.url.rfind("https://", 0) != 0 && g.url.rfind("http://", 0) != 0)
    r.fail(node["url"], "registry.url must start with https:// (or http:// for a local registry)");
  while (!g.url.empty() && g.url.back() == '/') g.url.pop_back();
  if (url_has_credentials(g.url))
    r.fail(node["url"], "registry.url must not carry a user or password; put them in registry.username and "
                        "registry.password (so they never show in messages)");
  if (auto n = node["username"]) g.username = r.text(n, "username");
  if (auto n = node["password"]) g.password = Secret(r.text(n, "password"));
  if (auto n = node["ca_file"]) g.ca_file = r.text(n, "ca_file");
  if (g.username.empty() != g.password.empty())
    r.fail(node, "registry.username and registry.password go together (the registry API key and secret)");
}

void read_topics(const Reader& r, const YAML::Node& node, TopicSelection& t) {
  r.check_keys(node, "topics", {"names", "prefixes", "globs", "exclude"});
  if (auto n = node["names"]) t.names = r.list(n, "names");
  if (auto n = node["prefixes"]) t.prefixes = r.list(n, "prefixes");
  if (auto n = node["globs"]) t.globs = r.list(n, "globs");
  if (auto n = node["exclude"]) t.exclude = r.list(n, "exclude");
}

void read_warehouse(const Reader& r, const YAML::Node& node, WarehouseConfig& w,
                    const std::filesystem::path& base) {
  r.check_keys(node, "warehouse", {"type", "path", "schema"});
  if (auto n = node["type"]) w.type = r.one_of(n, "type", {"duckdb"});
  if (!node["path"]) r.fail(node, "warehouse.path is required (the DuckDB file to write)");
  w.path = r.text(node["path"], "path");
  if (w.path.empty()) r.fail(node["path"], "warehouse.path is empty");
  if (w.path.is_relative()) w.path = base / w.path;
  if (auto n = node["schema"]) {
    w.schema = r.text(n, "schema");
    static const std::regex ok(R"(^[A-Za-z_][A-Za-z0-9_]{0,62}$)");
    if (!std::regex_match(w.schema, ok))
      r.fail(n, "warehouse.schema must be a plain identifier (letters, digits, _), not '" +
                    w.schema + "'");
  }
}

}  // namespace

Manifest parse_manifest(const std::string& yaml, const std::filesystem::path& file, EnvLookup env) {
  Reader r(file, env);
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorClass::config, file.string() + ":" + std::to_string(e.mark.line + 1) +
                                        ": not valid YAML: " + e.msg);
  }
  if (!root.IsMap()) r.fail(root, "a manifest is a YAML mapping with source, topics and warehouse");
  r.check_keys(root, "the manifest", {"name", "source", "registry", "topics", "warehouse", "batch", "limits"});

  Manifest m;
  m.file = file;
  const auto base = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  m.name = file.stem().string();
  if (auto n = root["name"]) m.name = r.text(n, "name");
  static const std::regex name_ok(R"(^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$)");
  if (!std::regex_match(m.name, name_ok))
    r.fail(root["name"], "name must be 1-100 letters, digits, '.', '_' or '-', starting with a "
                         "letter or digit; got '" + m.name + "'");

  if (!root["source"]) r.fail(root, "the manifest needs a 'source' section (bootstrap_servers, ...)");
  read_source(r, root["source"], m.source, m.saved_source);
  if (auto n = root["registry"]) read_registry(r, n, m.registry);
  // Files named in the manifest are relative to its folder, like the warehouse path.
  for (auto* f : {&m.source.ca_file, &m.registry.ca_file})
    if (!f->empty() && std::filesystem::path(*f).is_relative()) *f = (base / *f).string();
  if (auto n = root["topics"]) read_topics(r, n, m.topics);
  if (!root["warehouse"]) r.fail(root, "the manifest needs a 'warehouse' section (path, schema)");
  read_warehouse(r, root["warehouse"], m.warehouse, base);
  if (auto n = root["batch"]) {
    r.check_keys(n, "batch", {"max_messages", "max_bytes"});
    if (auto v = n["max_messages"]) m.batch.max_messages = r.size(v, "max_messages", 1, 1'000'000);
    if (auto v = n["max_bytes"]) m.batch.max_bytes = r.size(v, "max_bytes", 1024, 1ll << 30);
  }
  if (auto n = root["limits"]) {
    r.check_keys(n, "limits", {"max_value_bytes"});
    if (auto v = n["max_value_bytes"])
      m.limits.max_value_bytes = r.size(v, "max_value_bytes", 0, 1ll << 30);
  }
  return m;
}

Manifest load_manifest(const std::filesystem::path& file, EnvLookup env) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw Error(ErrorClass::config, "cannot read manifest " + file.string() +
                                        ": no such file or not readable");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_manifest(ss.str(), file, env);
}

}  // namespace krow
