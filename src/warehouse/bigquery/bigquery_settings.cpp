#include "warehouse/bigquery/bigquery_settings.hpp"

#include <algorithm>
#include <regex>

#include "contract/row_contract.hpp"

namespace krow {

std::string BigQuerySettings::describe(const std::string& dataset) const {
  return "BigQuery dataset " + project + "." + dataset +
         (endpoint.empty() ? "" : " at " + endpoint);
}

std::shared_ptr<const AdapterSettings> parse_bigquery_settings(
    const Section& section, const std::vector<std::string>& common) {
  auto keys = common;
  for (const char* k : {"project", "dataset", "location", "credentials", "endpoint", "partition_by",
                        "cluster_by", "request_timeout"})
    keys.push_back(k);
  section.check_keys(keys);
  auto s = std::make_shared<BigQuerySettings>();
  s->project =
      section.required_text("project", "the Google Cloud project ID, e.g. project: my-project");
  // Project IDs: 6-30 of [a-z0-9-]; older ones may carry a domain ("example.com:proj").
  static const std::regex project_id(R"(^([a-z][a-z0-9.-]*:)?[a-z][a-z0-9-]{4,61}[a-z0-9]$)");
  if (!std::regex_match(s->project, project_id))
    section.fail(
        "project",
        "warehouse.project must be a project ID (lower-case letters, digits and -), not '" +
            s->project + "'");
  if (section.has("location"))
    s->location = section.required_text("location", "a BigQuery location, e.g. EU");
  if (section.has("credentials")) {
    const auto c = section.required_text("credentials", "a service-account key file, or adc");
    s->credentials = c == "adc" ? c : section.path("credentials").string();
  }
  if (section.has("endpoint")) {
    s->endpoint =
        section.required_text("endpoint", "the API's root URL, e.g. http://127.0.0.1:9050");
    if (s->endpoint.rfind("http://", 0) != 0 && s->endpoint.rfind("https://", 0) != 0)
      section.fail("endpoint", "warehouse.endpoint must be an http:// or https:// URL");
    while (!s->endpoint.empty() && s->endpoint.back() == '/') s->endpoint.pop_back();
    // An emulator takes no credentials: without an explicit key file, none are sent.
    if (!section.has("credentials")) s->credentials = "none";
  }
  if (section.has("partition_by"))
    s->partition_by = section.one_of("partition_by", {"day", "hour", "month", "year", "none"});
  if (section.has("cluster_by")) {
    s->cluster_by = section.list("cluster_by");
    if (s->cluster_by.size() > 4)
      section.fail("cluster_by", "BigQuery clusters by at most 4 columns");
    for (const auto& c : s->cluster_by)
      if (std::none_of(contract::kColumns.begin(), contract::kColumns.end(),
                       [&](const contract::Column& k) { return k.name == c; }) ||
          c == "value" || c == "headers")
        section.fail("cluster_by", "warehouse.cluster_by: '" + c +
                                       "' is not a column krow's tables can be clustered "
                                       "by (a metadata column other than value and headers)");
  }
  if (section.has("request_timeout"))
    s->request_timeout_s = static_cast<int>(section.size("request_timeout", 5, 3600));
  return s;
}

}  // namespace krow
