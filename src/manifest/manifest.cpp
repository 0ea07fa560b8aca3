#include "manifest/manifest.hpp"

#include <strings.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "engines/engines.hpp"
#include "manifest/credentials.hpp"
#include "util/error.hpp"

namespace krow {

namespace {

void read_source(const ManifestReader& r, const YAML::Node& node, SourceConfig& s, std::string& saved) {
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
  if (lacks_sasl_credentials(s))
    r.fail(node, "security_protocol " + s.security_protocol +
                     " needs source.username and source.password (use ${ENV_VAR} for the secret)");
}

void read_registry(const ManifestReader& r, const YAML::Node& node, RegistryConfig& g) {
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

void read_topics(const ManifestReader& r, const YAML::Node& node, TopicSelection& t) {
  r.check_keys(node, "topics", {"names", "prefixes", "globs", "exclude"});
  if (auto n = node["names"]) t.names = r.list(n, "names");
  if (auto n = node["prefixes"]) t.prefixes = r.list(n, "prefixes");
  if (auto n = node["globs"]) t.globs = r.list(n, "globs");
  if (auto n = node["exclude"]) t.exclude = r.list(n, "exclude");
}

void read_warehouse(const ManifestReader& r, const YAML::Node& node, WarehouseConfig& w) {
  const Section section(r, node, "warehouse");
  if (!node.IsMap()) r.fail(node, "warehouse must be a mapping of keys to values");
  if (section.has("type")) w.type = section.one_of("type", warehouse_types());
  const Engine& engine = engine_of(w.type);
  // An engine may have its own word for the schema (BigQuery's dataset): either key names it.
  const auto& alias = engine.schema_key_alias;
  const std::string schema_key = !alias.empty() && section.has(alias) ? alias : "schema";
  if (!alias.empty() && section.has(alias) && section.has("schema"))
    section.fail("schema",
                 "warehouse.schema and warehouse." + alias + " name the same thing: keep " + alias);
  if (section.has(schema_key)) {
    w.schema = section.text(schema_key);
    static const std::regex ok(R"(^[A-Za-z_][A-Za-z0-9_]{0,62}$)");
    if (!std::regex_match(w.schema, ok))
      section.fail(schema_key,
                   "warehouse." + schema_key +
                       " must be a plain identifier (letters, digits, _; at most 63), not '" +
                       w.schema + "'");
  }
  if (section.has("retry_timeout")) w.retry_timeout_s = static_cast<int>(section.size("retry_timeout", 1, 86400));
  w.settings = engine.parse_settings(section, {"type", "schema", "retry_timeout"});
}

void read_bounds(const ManifestReader& r, const YAML::Node& node, BoundsConfig& b) {
  std::vector<std::string> keys;
  for (const auto& s : bound_settings()) keys.push_back(s.key);
  r.check_keys(node, "bounds", keys);
  for (const auto& key : keys)
    if (auto n = node[key])
      if (auto problem = set_bound(b, key, r.text(n, key)); !problem.empty()) r.fail(n, "bounds: " + problem);
}

}  // namespace

Manifest parse_manifest(const std::string& yaml, const std::filesystem::path& file, EnvLookup env) {
  ManifestReader r(file, env);
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorClass::config, file.string() + ":" + std::to_string(e.mark.line + 1) +
                                        ": not valid YAML: " + e.msg);
  }
  if (!root.IsMap()) r.fail(root, "a manifest is a YAML mapping with source, topics and warehouse");
  r.check_keys(root, "the manifest", {"name", "source", "registry", "topics", "warehouse", "batch", "limits", "bounds",
                                  "quality", "tables"});

  Manifest m;
  m.file = file;
  const auto base = r.base();
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
  if (!root["warehouse"]) r.fail(root, "the manifest needs a 'warehouse' section (type and where to write)");
  read_warehouse(r, root["warehouse"], m.warehouse);
  if (auto n = root["batch"]) {
    r.check_keys(n, "batch", {"max_messages", "max_bytes", "max_wait"});
    if (auto v = n["max_messages"]) m.batch.max_messages = r.size(v, "max_messages", 1, 1'000'000);
    if (auto v = n["max_bytes"]) m.batch.max_bytes = r.size(v, "max_bytes", 1024, 1ll << 30);
    if (auto v = n["max_wait"]) {
      const auto text = r.text(v, "max_wait");
      const auto ms = parse_duration_ms(text);
      if (!ms || *ms < 10 || *ms > 3'600'000)
        r.fail(v, "max_wait must be a duration from 10ms to 1h such as 500ms, 2s or 1m, not '" +
                      text + "'");
      m.batch.max_wait_ms = *ms;
    }
  }
  if (auto n = root["limits"]) {
    r.check_keys(n, "limits", {"max_value_bytes"});
    if (auto v = n["max_value_bytes"])
      m.limits.max_value_bytes = r.size(v, "max_value_bytes", 0, 1ll << 30);
  }
  if (auto n = root["bounds"]) read_bounds(r, n, m.bounds);
  if (auto n = root["quality"]) m.quality = read_quality(r, n);
  if (auto n = root["tables"]) m.tables = read_table_rules(r, n, m.warehouse.type);
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
