// `krow schema` against the real broker and the real registry (Apicurio behind nginx, HTTPS
// and basic auth): schemas registered over the registry's REST API under the topics'
// `<topic>-value` subjects, then the columns and warehouse types printed for an Avro topic
// (with a reference), a Protobuf topic, a JSON Schema topic, a topic without a subject, and
// a manifest without a registry; once per warehouse engine.

#include <curl/curl.h>
#include <simdjson.h>

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sync_fixture.hpp"
#include "util/text.hpp"

namespace krow::testkit {
namespace {

std::string registry_ca() {
  return SyncTest::services_dir() + "/registry/tls/ca.pem";
}

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

struct Reference {
  std::string name, subject;
  int version = 1;
};

// Registers `text` under `subject` (POST /subjects/<subject>/versions, as the writer user)
// and returns its schema ID.
int register_schema(const std::string& subject, const std::string& type, const std::string& text,
                    const std::vector<Reference>& refs = {}) {
  std::string body = "{\"schema\":";
  append_json_string(body, text);
  body += ",\"schemaType\":\"" + type + "\",\"references\":[";
  for (size_t i = 0; i < refs.size(); ++i) {
    body += i ? "," : "";
    body += "{\"name\":";
    append_json_string(body, refs[i].name);
    body += ",\"subject\":";
    append_json_string(body, refs[i].subject);
    body += ",\"version\":" + std::to_string(refs[i].version) + "}";
  }
  body += "]}";
  CURL* curl = curl_easy_init();
  std::string answer;
  char* escaped = curl_easy_escape(curl, subject.c_str(), static_cast<int>(subject.size()));
  const std::string url = SyncTest::registry_url() + "/subjects/" + escaped + "/versions";
  curl_free(escaped);
  curl_slist* headers =
      curl_slist_append(nullptr, "Content-Type: application/vnd.schemaregistry.v1+json");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_USERPWD, "registry:registry-secret");
  curl_easy_setopt(curl, CURLOPT_CAINFO, registry_ca().c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  const CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK || status != 200)
    throw std::runtime_error("registering " + subject + " failed: " + curl_easy_strerror(rc) +
                             " HTTP " + std::to_string(status) + " " + answer);
  simdjson::dom::parser parser;
  return static_cast<int>(int64_t(parser.parse(answer)["id"]));
}

constexpr const char* kAddressAvro = R"({"type":"record","name":"Address","namespace":"shop",
  "fields":[{"name":"city","type":"string"},{"name":"zip","type":["null","int"]}]})";

constexpr const char* kOrderAvro = R"({"type":"record","name":"Order","namespace":"shop","fields":[
  {"name":"id","type":"long"},
  {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":12,"scale":2}},
  {"name":"placed_at","type":{"type":"long","logicalType":"timestamp-millis"}},
  {"name":"day","type":{"type":"int","logicalType":"date"}},
  {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID"]}},
  {"name":"note","type":["null","string"]},
  {"name":"ship_to","type":"shop.Address"},
  {"name":"lines","type":{"type":"array","items":"string"}}]})";

constexpr const char* kReadingProto = R"(syntax = "proto3";
package iot;
import "google/protobuf/timestamp.proto";
message Reading {
  string device = 1;
  uint64 counter = 2;
  sint64 delta = 3;
  uint32 small = 4;
  double celsius = 5;
  google.protobuf.Timestamp at = 6;
  Place place = 7;
  repeated int32 samples = 8;
  message Place { float lat = 1; float lon = 2; }
})";

constexpr const char* kEventJson =
    R"({"type":"object","title":"Event","required":["name","at"],"properties":{
  "name":{"type":"string"},
  "at":{"type":"string","format":"date-time"},
  "count":{"type":"integer"},
  "score":{"type":"number"},
  "tags":{"type":"array","items":{"type":"string"}},
  "user":{"type":"object","properties":{"email":{"type":"string"}}}}})";

class SchemaCommand : public EngineTest {
 protected:
  std::string registry_yaml() {
    set_env("KROW_TEST_REGISTRY_SECRET", "reader-secret");
    return "registry:\n  url: " + registry_url() +
           "\n  username: reader\n  password: ${KROW_TEST_REGISTRY_SECRET}\n"
           "  ca_file: " +
           registry_ca() + "\n";
  }

  // The engine's type for each planned type, as the type matrix of docs/typed-tables.md says.
  std::string sql(const std::string& type) const {
    if (type == "decimal(12,2)") return traits().krow_type(Logical::decimal, 12, 2);
    static const std::map<std::string, Logical> types = {
        {"int32", Logical::int32},     {"int64", Logical::int64},
        {"uint64", Logical::uint64},   {"float32", Logical::float32},
        {"float64", Logical::float64}, {"text", Logical::text},
        {"date", Logical::date},       {"timestamp", Logical::timestamp},
        {"json", Logical::json},
    };
    return traits().krow_type(types.at(type));
  }

  // name → "type nullable path" from `krow schema --format json`, per table.
  using Columns = std::map<std::string, std::string>;
  std::map<std::string, Columns> json_columns(const std::string& out,
                                              std::map<std::string, std::string>& status) {
    std::map<std::string, Columns> tables;
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.parse(out);
    for (simdjson::dom::element t : doc["tables"].get_array()) {
      const std::string topic = std::string(std::string_view(t["topic"]));
      status[topic] = std::string(std::string_view(t["status"]));
      simdjson::dom::array cols;
      if (t["columns"].get(cols)) continue;
      for (simdjson::dom::element c : cols) {
        std::string path;
        for (simdjson::dom::element p : c["path"].get_array())
          path += (path.empty() ? "" : ".") + std::string(std::string_view(p));
        tables[topic][std::string(std::string_view(c["name"]))] =
            std::string(std::string_view(c["type"])) +
            (bool(c["nullable"]) ? " null " : " not-null ") + path;
      }
    }
    return tables;
  }
};

TEST_P(SchemaCommand, ColumnsOfAvroProtobufAndJsonSchemaTopics) {
  const auto avro_topic = make_topic("schema-avro");
  const auto proto_topic = make_topic("schema-proto");
  const auto json_topic = make_topic("schema-json");
  const auto plain_topic = make_topic("schema-plain");
  register_schema(avro_topic + "-address", "AVRO", kAddressAvro);
  const int avro_id = register_schema(avro_topic + "-value", "AVRO", kOrderAvro,
                                      {{"shop.Address", avro_topic + "-address"}});
  register_schema(proto_topic + "-value", "PROTOBUF", kReadingProto);
  register_schema(json_topic + "-value", "JSON", kEventJson);
  const auto manifest =
      write_manifest({avro_topic, proto_topic, json_topic, plain_topic}, registry_yaml());

  const auto text = krow({"schema", manifest});
  ASSERT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("table " + table_of(avro_topic) + " (topic " + avro_topic + ")"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("subject " + avro_topic + "-value: schema ID " + std::to_string(avro_id) +
                          ", version 1, AVRO, record shop.Order"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("PROTOBUF, message iot.Reading"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("JSON, object Event"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("no schema in the registry for subject " + plain_topic +
                          "-value: columns: infer would sample its JSON values"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("long (timestamp-millis)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("a table gets these columns with columns: from_schema"), std::string::npos) << text.out;

  const auto json = krow({"schema", manifest, "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.out << json.err;
  std::map<std::string, std::string> status;
  const auto tables = json_columns(json.out, status);
  EXPECT_EQ(status[avro_topic], "planned");
  EXPECT_EQ(status[proto_topic], "planned");
  EXPECT_EQ(status[json_topic], "planned");
  EXPECT_EQ(status[plain_topic], "no_subject");

  const Columns avro = {
      {"value__id", sql("int64") + " not-null id"},
      {"amount", sql("decimal(12,2)") + " not-null amount"},
      {"placed_at", sql("timestamp") + " not-null placed_at"},
      {"day", sql("date") + " not-null day"},
      {"status", sql("text") + " not-null status"},
      {"note", sql("text") + " null note"},
      {"ship_to__city", sql("text") + " not-null ship_to.city"},
      {"ship_to__zip", sql("int32") + " null ship_to.zip"},
      {"lines", sql("json") + " not-null lines"},
  };
  EXPECT_EQ(tables.at(avro_topic), avro);
  const Columns proto = {
      {"device", sql("text") + " not-null device"},
      {"counter", sql("uint64") + " not-null counter"},
      {"delta", sql("int64") + " not-null delta"},
      {"small", sql("int64") + " not-null small"},
      {"celsius", sql("float64") + " not-null celsius"},
      {"at", sql("timestamp") + " null at"},
      {"place__lat", sql("float32") + " null place.lat"},
      {"place__lon", sql("float32") + " null place.lon"},
      {"samples", sql("json") + " not-null samples"},
  };
  EXPECT_EQ(tables.at(proto_topic), proto);
  const Columns event = {
      {"name", sql("text") + " not-null name"}, {"at", sql("timestamp") + " not-null at"},
      {"count", sql("int64") + " null count"},  {"score", sql("float64") + " null score"},
      {"tags", sql("json") + " null tags"},     {"user__email", sql("text") + " null user.email"},
  };
  EXPECT_EQ(tables.at(json_topic), event);
}

TEST_P(SchemaCommand, NoRegistryConfiguredSaysTypedColumnsNeedOne) {
  const auto topic = make_topic("schema-noreg");
  const auto manifest = write_manifest({topic});
  const auto r = krow({"schema", manifest});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("set registry.url"), std::string::npos) << r.out;
  const auto j = krow({"schema", manifest, "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.out << j.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(j.out);
  EXPECT_FALSE(bool(doc["registry"]));
  EXPECT_EQ(doc["tables"].get_array().size(), 0u);
}

TEST_P(SchemaCommand, UnreachableRegistryFailsWithExitOne) {
  const auto topic = make_topic("schema-down");
  const auto manifest = write_manifest(
      {topic}, "registry:\n  url: https://127.0.0.1:9\n  username: reader\n  password: x\n");
  std::stringstream read;
  read << std::ifstream(manifest).rdbuf();
  std::string yaml = read.str();
  const auto at = yaml.find("source:\n");
  yaml.insert(at + 8, "  connect_timeout: 5\n");
  std::ofstream(manifest) << yaml;
  const auto r = krow({"schema", manifest});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("the schema registry at https://127.0.0.1:9"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("then run `krow schema` again"), std::string::npos) << r.err;
}

TEST_P(SchemaCommand, BadManifestExitsThree) {
  const auto path = dir() / "bad.yaml";
  std::ofstream(path) << "name: it\nsource:\n  bootstrap_servers: " << bootstrap_
                      << "\nno_such_key: 1\n";
  const auto r = krow({"schema", path.string()});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
}

INSTANTIATE_TEST_SUITE_P(Engines, SchemaCommand, KROW_ENGINES);

}  // namespace
}  // namespace krow::testkit
