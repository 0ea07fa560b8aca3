#include "doctor/doctor.hpp"

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

#include "doctor/network_probe.hpp"
#include "engines/engines.hpp"
#include "http/curl_info.hpp"
#include "kafka/access_probe.hpp"
#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "kafka/errors.hpp"
#include "kafka/library.hpp"
#include "manifest/manifest.hpp"
#include "manifest/saved_source.hpp"
#include "plan/plan.hpp"
#include "registry/registry_http.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"
#include "util/text.hpp"

namespace krow {

bool DoctorReport::ok() const {
  return !manifest_invalid &&
         std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.ok; });
}

namespace {

using namespace std::chrono_literals;

std::string human_bytes(uint64_t b) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 5) v /= 1024, ++u;
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

bool has(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

void library_checks(std::vector<Check>& out) {
  if (kafka::librdkafka_new_enough())
    out.push_back(Check::pass("librdkafka", kafka::librdkafka_version()));
  else
    out.push_back(
        Check::fail("librdkafka", kafka::librdkafka_version() + " is older than 2.4",
                    "install librdkafka 2.4 or later (scripts/setup-deps.sh builds one)"));
  for (const auto* engine : engines())
    for (const auto& [library, version] : engine->library_versions())
      out.push_back(Check::pass(library, version));
  out.push_back(Check::pass("libcurl", libcurl_version()));
}

// Which environment variable a manifest key takes its value from: " (from ${NAME})".
std::string from_env(const std::vector<EnvReference>& refs, const std::string& key) {
  for (const auto& r : refs)
    if (r.key == key) return " (from ${" + r.name + "})";
  return {};
}

// Planning needs the stored positions; a warehouse that cannot be opened is planned as one
// that holds none, so that the cluster side is still checked.
class NoState final : public StateStore {
 public:
  std::string describe() const override { return "no warehouse state (it could not be opened)"; }
  std::vector<Position> positions(const std::string&) override { return {}; }
  std::vector<TableMapping> tables() override { return {}; }
  std::vector<PartitionClaim> take(const std::string&, const std::vector<PartitionKey>&) override {
    throw Error(ErrorClass::fatal_run, "krow doctor writes nothing");
  }
  void record_run(const RunRecord&) override {
    throw Error(ErrorClass::fatal_run, "krow doctor writes nothing");
  }
  std::vector<RunRecord> runs(const std::string&, int) override { return {}; }
};

// What the Kafka checks learnt, for the space estimate.
struct KafkaFindings {
  bool planned = false;
  int64_t to_read = 0;
  size_t partitions = 0;
  size_t sampled = 0;          // messages fetched by the READ probes
  uint64_t sampled_bytes = 0;  // their key and value bytes
  bool manifest_refused = false;  // planning refused the manifest, as plan and sync do (exit 3)
};

std::string lag_group_fix(const std::string& user) {
  const std::string who = user.empty() ? "User:<name>" : "User:" + user;
  return "grant " + who +
         " READ on consumer groups with the prefix krow- (kafka-acls --add --allow-principal " +
         who +
         " --operation Read --group krow- --resource-pattern-type prefixed; on Confluent Cloud: "
         "confluent kafka acl "
         "create --allow --service-account <id> --operations read --consumer-group krow- "
         "--prefix). Optional: syncs "
         "run the same without it, but Kafka's tools then show no lag for this sync";
}

void kafka_checks(const Manifest& m, const std::vector<EnvReference>& refs,
                  std::chrono::seconds wait, const WarehouseCheckup& wh, std::vector<Check>& out,
                  std::vector<std::string>& skipped, KafkaFindings& found) {
  const auto& s = m.source;
  TlsProbe tls;
  tls.enabled = s.security_protocol == "SSL" || s.security_protocol == "SASL_SSL";
  tls.ca_file = s.ca_file;
  tls.ca_setting = "source.ca_file";
  tls.verify = s.verify_certificates;
  tls.verify_setting = "source.verify_certificates";
  bool reachable = false;
  for (const auto& e : split_endpoints(s.bootstrap_servers)) {
    bool r = false;
    for (auto& c : probe_endpoint("kafka", e, tls, wait, r)) out.push_back(std::move(c));
    reachable |= r;
  }
  if (!reachable) {
    skipped.push_back(
        "Kafka authentication, topics, lag group and the plan: no bootstrap server could be "
        "reached");
    return;
  }

  const bool sasl = s.security_protocol.rfind("SASL_", 0) == 0;
  const std::string login = sasl ? "kafka authentication" : "kafka connection";
  std::unique_ptr<kafka::Client> client;
  std::string cluster_id;
  try {
    client = std::make_unique<kafka::Client>(s, kafka::ClientOptions{});
    client->check_connection(wait);
    kafka::Cluster cluster(*client, wait, wait);
    cluster_id = cluster.cluster_id();
  } catch (const Error& e) {
    const std::string& said = e.said();
    const std::string& fix = e.fix();
    if (sasl && kafka::is_authentication_failure(e))
      out.push_back(Check::fail(
          login,
          "authentication failed for source.username '" + s.username + "' (" + s.sasl_mechanism +
              "): " + said,
          "check source.username and source.password" + from_env(refs, "source.password") +
              ": the cluster API key and its secret (a registry key does not work here)"));
    else if (kafka::is_tls_failure(e))
      out.push_back(Check::fail(
          login, said, fix.empty() ? "check source.ca_file and source.security_protocol" : fix));
    else
      out.push_back(Check::fail(
          login, said,
          fix.empty() ? "check source.bootstrap_servers and source.security_protocol" : fix));
    skipped.push_back("topics, lag group and the plan: the cluster did not accept the connection");
    return;
  }
  out.push_back(Check::pass(login, (sasl ? "user '" + s.username + "' accepted (" +
                                               s.security_protocol + ", " + s.sasl_mechanism + "); "
                                         : s.security_protocol + "; ") +
                                       "cluster " + cluster_id));
  if (!m.bound_cluster_id.empty()) {
    if (cluster_id == m.bound_cluster_id)
      out.push_back(Check::pass(
          "cluster ID", "the saved source '" + m.saved_source + "' is bound to this cluster"));
    else
      out.push_back(
          Check::fail("cluster ID",
                      "the saved source '" + m.saved_source + "' was checked on cluster " +
                          m.bound_cluster_id + ", but " + cluster_id + " answers",
                      "point the source at its own cluster, or save a new source for this one with "
                      "`krow connect`"));
  }

  std::string stage = "planning";
  try {
    kafka::Cluster cluster(*client, wait, wait);
    std::unique_ptr<Warehouse> opened;
    if (wh.usable) {
      try {
        opened = open_warehouse(m.warehouse, m.name, OpenMode::read_only);
      } catch (const Error&) {
        // Reported by the warehouse checks; the cluster side is still worth checking.
      }
    }
    NoState none;
    const auto plan = make_plan(cluster, opened ? static_cast<StateStore&>(*opened) : none, m);

    if (plan.topics.empty()) {
      out.push_back(Check::fail(
          "topics",
          "the manifest's selection matches no topic that " +
              (s.username.empty() ? std::string("this client") : "user '" + s.username + "'") +
              " can describe",
          "check topics: in the manifest, and that the key holds DESCRIBE on those topics (" +
              kafka::read_acl_fix("<topic>", s.username) + ")"));
    }
    std::vector<kafka::ReadProbe> probes;
    for (const auto& t : plan.topics) {
      if (t.topic_id.empty()) {
        out.push_back(Check::fail(
            "topic " + t.topic + " DESCRIBE", t.error_said.empty() ? t.error : t.error_said,
            t.error_fix.empty() ? kafka::read_acl_fix(t.topic, s.username) : t.error_fix));
        continue;
      }
      out.push_back(
          Check::pass("topic " + t.topic + " DESCRIBE",
                      "visible, topic ID " + t.topic_id.str() +
                          (t.partitions.empty()
                               ? ""
                               : ", " + std::to_string(t.partitions.size()) + " partition(s)")));
      // Fetch where there is something to fetch (a message also gives a size sample); a
      // topic whose partitions the plan left out (no READ reported) is fetched at 0: the
      // broker checks READ before the offset.
      kafka::ReadProbe p{{t.topic, Partition(0)}, Offset(0)};
      int64_t most = -1;
      for (const auto& pp : t.partitions)
        if (distance(pp.earliest, pp.last_stable) > most) {
          most = distance(pp.earliest, pp.last_stable);
          p = {{t.topic, pp.partition}, pp.earliest};
        }
      probes.push_back(p);
    }
    stage = "fetching";
    const auto answers = kafka::probe_read(*client, probes, wait);
    for (const auto& p : probes) {
      const auto it = answers.find(p.partition.topic);
      const std::string name = "topic " + p.partition.topic + " READ";
      if (it == answers.end()) continue;
      const auto& a = it->second;
      if (a.error == RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (a.message_bytes) {
          ++found.sampled;
          found.sampled_bytes += *a.message_bytes;
        }
        out.push_back(Check::pass(name, a.message_bytes
                                            ? "fetched a message from partition " +
                                                  std::to_string(p.partition.partition.value())
                                            : "a fetch from partition " +
                                                  std::to_string(p.partition.partition.value()) +
                                                  " was answered (no message there yet)"));
      } else if (kafka::is_topic_authorization(a.error)) {
        out.push_back(
            Check::fail(name, "the broker refused a fetch: no READ permission (" + a.detail + ")",
                        kafka::read_acl_fix(p.partition.topic, s.username)));
      } else {
        out.push_back(Check::fail(
            name, "a fetch failed: " + a.detail,
            "check that the topic's partitions have a leader and that the brokers it names "
            "can be reached (their advertised addresses), then run krow doctor again"));
      }
    }

    stage = "describing the lag group";
    const std::string group = "krow-" + m.name;
    const auto g = kafka::probe_group(*client, group, wait);
    const std::string gname = "lag group " + group;
    const std::string who =
        s.username.empty() ? std::string("this client") : "user '" + s.username + "'";
    if (g.error == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED ||
        (!g.error && g.operations_known && !g.can_read))
      out.push_back(Check::fail(gname,
                                who + " may not read consumer group " + group +
                                    ", where krow records its positions for Kafka's lag tools",
                                lag_group_fix(s.username)));
    else if (g.error)
      out.push_back(Check::fail(
          gname, "describing the group failed: " + g.detail,
          "check that the cluster's group coordinator is available, then run krow doctor again"));
    else
      out.push_back(Check::pass(
          gname, g.operations_known ? who + " may read it: positions show as its offsets"
                                    : "the group can be described (the broker did not report "
                                      "whether READ is granted)"));

    found.planned = true;
    found.to_read = plan.to_read();
    for (const auto& t : plan.topics) found.partitions += t.partitions.size();
  } catch (const Error& e) {
    if (e.error_class() == ErrorClass::config) {
      // What the manifest asks of the selected topics that no sync could do: plan and sync
      // refuse it with the same words and exit code.
      out.push_back(
          Check::fail("manifest and topics", e.what(),
                      "correct the manifest: `krow plan` and `krow sync` refuse it the same way"));
      found.manifest_refused = true;
      return;
    }
    out.push_back(Check::fail("kafka " + stage, e.said(),
                              e.fix().empty() ? "run krow doctor again; if it persists, run "
                                                "`krow plan` with the manifest for details"
                                              : e.fix()));
  }
}

// The registry URL's host and port (443 or 80 by default).
Endpoint url_endpoint(const std::string& url) {
  const auto scheme_end = url.find("://");
  const bool https = url.rfind("https://", 0) == 0;
  std::string rest = scheme_end == std::string::npos ? url : url.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find('/'));
  auto list = split_endpoints(rest);
  Endpoint e = list.empty() ? Endpoint{rest, {}} : list.front();
  if (rest.find(':') == std::string::npos ||
      (rest.front() == '[' && rest.find("]:") == std::string::npos))
    e.port = https ? "443" : "80";
  return e;
}

void registry_checks(const RegistryConfig& g, const std::vector<EnvReference>& refs,
                     std::chrono::seconds wait, std::vector<Check>& out,
                     std::vector<std::string>& skipped) {
  TlsProbe tls;
  tls.enabled = g.url.rfind("https://", 0) == 0;
  tls.ca_file = g.ca_file;
  tls.ca_setting = "registry.ca_file";
  bool reachable = false;
  for (auto& c : probe_endpoint("registry", url_endpoint(g.url), tls, wait, reachable))
    out.push_back(std::move(c));
  if (!reachable) {
    skipped.push_back("the registry key and subjects: the registry could not be reached");
    return;
  }
  try {
    RegistryHttp http(g, wait);
    const auto r = http.get("/subjects");
    const std::string name = "registry authentication";
    if (r.status == 401 || r.status == 403) {
      out.push_back(Check::fail(
          name,
          "the registry refused " +
              (g.username.empty() ? std::string("a request without a key")
                                  : "registry.username '" + g.username + "'") +
              " (HTTP " + std::to_string(r.status) + ")",
          g.username.empty() ? "set registry.username and registry.password (the registry API key "
                               "and secret)"
                             : "check registry.username and registry.password" +
                                   from_env(refs, "registry.password") +
                                   ": the registry API key and secret (not the cluster's), and "
                                   "that the key may read subjects"));
      return;
    }
    if (r.status == 0) {
      out.push_back(Check::fail(name, "no answer to GET /subjects (" + r.error + ")",
                                "check registry.url and registry.ca_file"));
      return;
    }
    if (r.status != 200) {
      out.push_back(Check::fail(
          "registry subjects",
          "GET " + g.url + "/subjects answered HTTP " + std::to_string(r.status),
          "check registry.url: it must be the registry's base URL, where GET /subjects lists the "
          "subjects (Confluent's API)"));
      return;
    }
    out.push_back(Check::pass(name, g.username.empty()
                                        ? "the registry answers without a key"
                                        : "registry.username '" + g.username + "' accepted"));
    simdjson::dom::parser parser;
    simdjson::dom::array subjects;
    if (parser.parse(r.body).get_array().get(subjects)) {
      out.push_back(
          Check::fail("registry subjects", "GET /subjects did not answer a JSON list",
                      "check registry.url: it must be a Confluent-compatible schema registry"));
      return;
    }
    if (subjects.size() == 0) {
      out.push_back(Check::pass("registry subjects", "no subject registered yet"));
      return;
    }
    std::string_view first;
    if (subjects.at(0).get_string().get(first)) first = {};
    const auto v = http.get("/subjects/" + url_escape(first) + "/versions/latest");
    if (v.status == 200)
      out.push_back(Check::pass("registry subjects", std::to_string(subjects.size()) +
                                                         " subject(s); read the latest "
                                                         "schema of " +
                                                         std::string(first)));
    else
      out.push_back(Check::fail(
          "registry subjects",
          std::to_string(subjects.size()) + " subject(s), but reading the latest schema of " +
              std::string(first) + " answered HTTP " + std::to_string(v.status),
          "give the registry key read access to the subjects (on Confluent Cloud: the "
          "DeveloperRead role on the subjects)"));
  } catch (const Error& e) {
    out.push_back(
        Check::fail("registry authentication", e.said(),
                    e.fix().empty() ? "check the registry settings of the manifest" : e.fix()));
  }
}

void space_check(const WarehouseCheckup& wh, const KafkaFindings& k, std::vector<Check>& out) {
  const std::string reading = k.planned ? with_thousands(static_cast<uint64_t>(k.to_read)) +
                                              " offset(s) to read in " +
                                              std::to_string(k.partitions) + " partition(s)"
                                        : "offsets to read unknown (the cluster was not planned)";
  if (!wh.free_bytes) {
    out.push_back(Check::pass("warehouse space",
                              reading + "; the server's free space is not visible to a client: "
                                        "watch it on the server"));
    return;
  }
  const std::string free = human_bytes(*wh.free_bytes) + " free in " + wh.free_where;
  if (!k.planned || k.sampled == 0 || k.to_read == 0) {
    out.push_back(Check::pass(
        "warehouse space",
        free + "; " + reading +
            (k.planned && k.to_read > 0 ? " (message sizes unknown: none sampled)" : "")));
    return;
  }
  const uint64_t average = k.sampled_bytes / k.sampled;
  const uint64_t estimate = average * static_cast<uint64_t>(k.to_read);
  const std::string detail =
      free + "; " + reading + ", roughly " + human_bytes(estimate) + " of keys and values if " +
      "they are like the " + std::to_string(k.sampled) + " message(s) sampled (" +
      human_bytes(average) + " on average; DuckDB compresses what it stores)";
  if (*wh.free_bytes >= estimate)
    out.push_back(Check::pass("warehouse space", detail));
  else
    out.push_back(Check::fail("warehouse space", detail,
                              "free space in " + wh.free_where +
                                  ", choose a warehouse.path on a larger disk, or read "
                                  "in steps with bounds: max_messages"));
}

// Replaces every secret the manifest holds, wherever a library may have quoted it.
void scrub(std::vector<Check>& checks, const std::vector<std::string>& secrets) {
  for (auto& c : checks)
    for (std::string* text : {&c.name, &c.detail, &c.fix})
      for (const auto& s : secrets)
        if (!s.empty())
          for (size_t at; (at = text->find(s)) != std::string::npos;)
            text->replace(at, s.size(), "<hidden>");
}

}  // namespace

DoctorReport run_doctor(const std::optional<std::filesystem::path>& manifest_path) {
  DoctorReport report;
  auto& out = report.checks;
  library_checks(out);
  if (!manifest_path) {
    report.skipped =
        "everything but the libraries: no manifest given (krow doctor MANIFEST checks its cluster, "
        "ACLs, registry and warehouse)";
    return report;
  }
  report.manifest = manifest_path->string();

  // Every variable is reported, set or not, before the manifest is loaded: loading stops at
  // the first one missing.
  const auto refs = env_references(*manifest_path);
  std::map<std::string, std::vector<std::string>> uses;  // variable -> the keys using it
  std::vector<std::string> order;
  for (const auto& r : refs) {
    if (!uses.count(r.name)) order.push_back(r.name);
    uses[r.name].push_back(r.key + " at line " + std::to_string(r.line));
  }
  bool missing = false;
  for (const auto& name : order) {
    std::string used;
    for (const auto& u : uses[name]) used += (used.empty() ? "" : ", ") + u;
    const char* v = std::getenv(name.c_str());
    if (v && *v) {
      out.push_back(Check::pass("env " + name, "set (used by " + used + ")"));
    } else {
      missing = true;
      out.push_back(Check::fail(
          "env " + name, std::string(v ? "set but empty" : "not set") + " (used by " + used + ")",
          "export " + name + " before running krow (in CI, from the job's secrets)"));
    }
  }

  Manifest m;
  try {
    // With variables missing the structure is still checked, with stand-ins for them.
    m = load_manifest(*manifest_path, missing ? [](const char* name) -> const char* {
      const char* v = std::getenv(name);
      return v && *v ? v : "unset";
    } : EnvLookup(nullptr));
  } catch (const Error& e) {
    out.push_back(Check::fail("manifest", e.what(), "correct the manifest at the place named"));
    report.manifest_invalid = true;
    report.skipped = "everything after the manifest: it must load first";
    return report;
  }
  out.push_back(Check::pass("manifest", "sync '" + m.name + "', warehouse " + m.warehouse.type +
                                            ", schema " + m.warehouse.schema));
  if (missing) {
    report.skipped = "the cluster, registry and warehouse: set the missing variables first";
    return report;
  }
  if (!m.saved_source.empty()) {
    try {
      resolve_saved_source(m);
      out.push_back(Check::pass("saved source " + m.saved_source, "read from the encrypted store"));
    } catch (const Error& e) {
      out.push_back(Check::fail("saved source " + m.saved_source, e.what(),
                                "save it again with `krow connect " + m.saved_source + "`"));
      report.skipped = "the cluster, registry and warehouse: the saved source could not be read";
      return report;
    }
  }

  const auto wait = std::chrono::seconds(std::clamp(m.source.connect_timeout_s, 1, 10));
  std::vector<std::string> skipped;
  const auto wh = check_warehouse(m.warehouse, m.name, wait);
  KafkaFindings found;
  kafka_checks(m, refs, wait, wh, out, skipped, found);
  report.manifest_invalid = found.manifest_refused;
  if (m.registry.configured()) registry_checks(m.registry, refs, wait, out, skipped);
  for (const auto& c : wh.checks) out.push_back(c);
  if (!wh.skipped.empty()) skipped.push_back(wh.skipped);
  if (wh.usable)
    space_check(wh, found, out);
  else
    skipped.push_back("warehouse space: the warehouse checks must pass first");

  // The secrets: the source's and the registry's, and every variable a password-like key
  // takes (the warehouse's password too, without naming its engine here).
  std::vector<std::string> secrets{m.source.password.reveal(), m.registry.password.reveal()};
  for (const auto& r : refs) {
    const auto key = lower_ascii(r.key);
    if (has(key, "password") || has(key, "secret") || has(key, "token") || has(key, "dsn"))
      if (const char* v = std::getenv(r.name.c_str())) secrets.emplace_back(v);
  }
  scrub(out, secrets);
  for (const auto& s : skipped) report.skipped += (report.skipped.empty() ? "" : "; ") + s;
  return report;
}

std::string format_doctor(const DoctorReport& report, bool json) {
  if (json) {
    JsonWriter w;
    w.begin_object();
    w.key("manifest");
    if (report.manifest.empty())
      w.null();
    else
      w.value(report.manifest);
    w.field("ok", report.ok());
    w.key("checks").begin_array();
    for (const auto& c : report.checks) {
      w.begin_object().field("name", c.name).field("ok", c.ok).field("detail", c.detail).key("fix");
      if (c.ok)
        w.null();
      else
        w.value(c.fix);
      w.end_object();
    }
    w.end_array();
    w.key("skipped");
    if (report.skipped.empty())
      w.null();
    else
      w.value(report.skipped);
    w.end_object();
    return w.str() + "\n";
  }
  std::string out =
      "krow doctor" + (report.manifest.empty() ? std::string() : " " + report.manifest) + "\n";
  size_t failed = 0;
  for (const auto& c : report.checks) {
    out += std::string(c.ok ? "\u2713 " : "\u2717 ") + c.name + ": " + c.detail + "\n";
    if (!c.ok) {
      ++failed;
      out += "    fix: " + c.fix + "\n";
    }
  }
  if (!report.skipped.empty()) out += "not checked: " + report.skipped + "\n";
  out += failed == 0 ? "all " + std::to_string(report.checks.size()) + " checks passed\n"
                     : std::to_string(failed) + " of " + std::to_string(report.checks.size()) +
                           " checks failed\n";
  return out;
}

}  // namespace krow
