#include "serve/serve_config.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "manifest/manifest.hpp"
#include "manifest/quality.hpp"
#include "settings/section.hpp"
#include "util/error.hpp"

namespace krow::serve {

ServeConfig load_serve_config(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ErrorClass::config, "cannot read the service's config " + file.string() + ": no such file or not readable");
  std::stringstream text;
  text << in.rdbuf();
  ManifestReader r(file, nullptr);
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    throw Error(ErrorClass::config, file.string() + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  if (!root.IsMap()) r.fail(root, "the service's config is a YAML mapping with listen, state and syncs");
  r.check_keys(root, "the service's config",
               {"listen", "state", "logs", "run_timeout", "tls", "api_manifests", "syncs"});
  ServeConfig c;
  c.file = file;
  const Section top(r, root, "");
  if (top.has("listen")) c.listen = top.text("listen");
  c.state = top.has("state") ? top.path("state") : r.base() / "krow-serve.db";
  c.logs = top.has("logs") ? top.path("logs") : r.base() / "logs";
  c.api_manifests = top.has("api_manifests") ? top.path("api_manifests") : r.base() / "api-syncs";
  if (const auto tls = root["tls"]) {
    if (!tls.IsMap()) r.fail(tls, "tls is a mapping with certificate and key (PEM files)");
    const Section t(r, tls, "tls");
    t.check_keys({"certificate", "key"});
    c.tls_certificate = t.path("certificate");
    c.tls_key = t.path("key");
    for (const auto& [key, file] :
         {std::pair{"certificate", c.tls_certificate}, std::pair{"key", c.tls_key}}) {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(file, ec))
        t.fail(key, std::string("tls.") + key + ": no such file " + file.string());
    }
  }
  if (top.has("run_timeout")) {
    const auto ms = parse_duration_ms(top.text("run_timeout"));
    if (!ms || *ms < 1000) top.fail("run_timeout", "run_timeout is a duration such as 30m or 2h");
    c.run_timeout = std::chrono::milliseconds(*ms);
  }
  const auto syncs = root["syncs"];
  if (syncs && !syncs.IsSequence()) r.fail(syncs, "syncs is a list of {manifest, schedule}");
  std::set<std::string> ids;
  for (size_t i = 0; syncs && i < syncs.size(); ++i) {
    const auto node = syncs[i];
    const std::string where = "syncs[" + std::to_string(i) + "]";
    if (!node.IsMap()) r.fail(node, where + " is a mapping with manifest and schedule");
    const Section s(r, node, where);
    s.check_keys({"manifest", "schedule"});
    HostedSync h{"", s.path("manifest"), Schedule::parse("manual", where)};
    if (s.has("schedule")) {
      try {
        h.schedule = Schedule::parse(s.text("schedule"), where + ".schedule");
      } catch (const Error& e) {
        s.fail("schedule", e.what());  // at the key's line
      }
    }
    // Loaded now, as `krow plan` would: a broken manifest stops the service before it starts.
    h.id = load_manifest(h.manifest).name;
    if (!ids.insert(h.id).second)
      s.fail("manifest", "sync '" + h.id + "' is hosted twice: one entry per sync ID (the manifest's name)");
    c.syncs.push_back(std::move(h));
  }
  return c;
}

}  // namespace krow::serve
