#include "connect/connect.hpp"

#include <chrono>

#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "plan/topic_selection.hpp"
#include "registry/registry_http.hpp"
#include "util/error.hpp"

namespace krow {

void check_registry(const RegistryConfig& registry) {
  RegistryHttp http(registry, std::chrono::seconds(15));
  const auto r = http.get("/subjects");
  if (r.status == 200) return;
  std::string what = "the schema registry at " + registry.url;
  if (r.status == 0)
    throw Error(ErrorClass::fatal_run, what + " could not be reached (" + r.error + ")",
                Fix{"check the registry URL and, for a private CA, the registry's ca_file", "; "},
                {"schema registry", http::failure_name(r.failure)});
  if (r.status == 401 || r.status == 403)
    throw Error(ErrorClass::fatal_run,
                what + " refused the registry key (HTTP " + std::to_string(r.status) + ")",
                Fix{"check the registry API key and secret (they are not the cluster's) and that "
                    "the key may read subjects",
                    "; "},
                ErrorSource{"schema registry", "HTTP " + std::to_string(r.status)});
  throw Error(ErrorClass::fatal_run,
              what + " answered HTTP " + std::to_string(r.status) + " to GET /subjects",
              ErrorSource{"schema registry", "HTTP " + std::to_string(r.status)});
}

ConnectReport connect_source(SavedSource candidate, const SecretStore& store) {
  ConnectReport report;
  kafka::Client client(candidate.source, {});
  client.check_connection(std::chrono::seconds(candidate.source.connect_timeout_s));
  kafka::Cluster cluster(client);
  report.cluster_id = cluster.cluster_id();

  if (store.exists(candidate.name)) {
    const auto existing = store.load(candidate.name);
    if (existing.cluster_id != report.cluster_id)
      throw Error(ErrorClass::fatal_run, "source '" + candidate.name + "' is bound to cluster " + existing.cluster_id +
                                             ", but this key belongs to cluster " + report.cluster_id +
                                             "; a rotated key must be for the same cluster. Use another source name "
                                             "for another cluster");
    report.replaced = true;
  }

  std::vector<std::string> names;
  for (const auto& n : cluster.topic_names())
    if (!is_internal_topic(n)) names.push_back(n);
  for (const auto& d : cluster.describe(names))
    if (!d.error) ++report.describable_topics;
  const std::string who = candidate.source.username.empty() ? "the key's principal" : "User:" + candidate.source.username;
  if (report.describable_topics == 0)
    throw Error(ErrorClass::fatal_run,
                "the key authenticates, but " + who + " cannot DESCRIBE any topic of cluster " + report.cluster_id +
                    "; grant it READ and DESCRIBE on the topics to sync (a prefixed ACL such as every topic "
                    "starting with orders. works), then run connect again");

  if (candidate.registry.configured()) {
    check_registry(candidate.registry);
    report.registry_checked = true;
  }

  candidate.cluster_id = report.cluster_id;
  candidate.saved_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  store.save(candidate);
  return report;
}

}  // namespace krow
