// Schema Registry payloads on the real broker and the real registry (Apicurio behind nginx
// with HTTPS and basic auth), produced by Confluent's own serializers (Python
// confluent-kafka, tests/reference/produce.py), so the decoders are checked against bytes
// krow did not write. Every scenario's stored value must equal its hand-written expectation.

#include <simdjson.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

// Structural JSON equality: object key order does not matter, numbers compare by value.
bool json_equal(simdjson::dom::element a, simdjson::dom::element b, std::string& where) {
  using T = simdjson::dom::element_type;
  if (a.type() != b.type()) {
    const bool both_numbers = (a.is_number() && b.is_number());
    if (!both_numbers) return where = "type differs", false;
    return double(a) == double(b) ? true : (where = "number differs", false);
  }
  switch (a.type()) {
    case T::OBJECT: {
      simdjson::dom::object oa = a, ob = b;
      if (oa.size() != ob.size()) return where = "object sizes differ", false;
      for (auto field : oa) {
        simdjson::dom::element other;
        if (ob.at_key(field.key).get(other)) return where = "missing key " + std::string(field.key), false;
        if (!json_equal(field.value, other, where)) return where = std::string(field.key) + "." + where, false;
      }
      return true;
    }
    case T::ARRAY: {
      simdjson::dom::array aa = a, ab = b;
      if (aa.size() != ab.size()) return where = "array sizes differ", false;
      auto ib = ab.begin();
      size_t i = 0;
      for (auto ea : aa) {
        if (!json_equal(ea, *ib, where)) return where = "[" + std::to_string(i) + "]" + where, false;
        ++ib, ++i;
      }
      return true;
    }
    case T::STRING: return std::string_view(a) == std::string_view(b) ? true : (where = "string differs", false);
    case T::INT64: return int64_t(a) == int64_t(b) ? true : (where = "int differs", false);
    case T::UINT64: return uint64_t(a) == uint64_t(b) ? true : (where = "uint differs", false);
    case T::DOUBLE: return double(a) == double(b) ? true : (where = "double differs", false);
    case T::BOOL: return bool(a) == bool(b) ? true : (where = "bool differs", false);
    case T::NULL_VALUE: return true;
  }
  return false;
}

struct Expected {
  int64_t partition = 0, offset = 0, schema_id = 0, key_schema_id = 0;
  std::string expected;      // minified JSON
  std::string expected_key;  // key column text; empty with has_key false
  bool has_key = false;
};

class Registry : public EngineTest {
 protected:
  static std::string python() { return services_dir() + "/py/bin/python"; }
  static std::string ca() { return services_dir() + "/registry/tls/ca.pem"; }

  // Runs one scenario of tests/reference/produce.py into `topic`.
  // `options` go to produce.py before the scenario (e.g. --protobuf-schema descriptor).
  std::vector<Expected> produce(const std::string& scenario, const std::string& topic, const std::string& options = {}) {
    const std::string cmd = python() + " " + source_dir() + "/tests/reference/produce.py --bootstrap " + bootstrap_ +
                            " --registry " + registry_url() + " --ca " + ca() + " " + options + " " + scenario + " " +
                            topic;
    std::vector<Expected> out;
    FILE* f = popen(cmd.c_str(), "r");
    if (!f) throw std::runtime_error("cannot run " + cmd);
    std::string all;
    std::array<char, 65536> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) all.append(buf.data(), n);
    if (pclose(f) != 0) throw std::runtime_error("produce.py failed: " + cmd);
    std::istringstream lines(all);
    std::string line;
    simdjson::dom::parser parser;
    while (std::getline(lines, line)) {
      if (line.empty()) continue;
      simdjson::dom::element doc = parser.parse(line);
      Expected e;
      e.partition = int64_t(doc["partition"]);
      e.offset = int64_t(doc["offset"]);
      e.schema_id = int64_t(doc["schema_id"]);
      simdjson::dom::element ks;
      if (!doc["key_schema_id"].get(ks) && !ks.is_null()) e.key_schema_id = int64_t(ks);
      e.expected = simdjson::minify(doc["expected"]);
      simdjson::dom::element k;
      if (!doc["expected_key"].get(k) && !k.is_null()) {
        e.has_key = true;
        e.expected_key = std::string(std::string_view(k));
      } else if (!doc["key"].get(k) && !k.is_null()) {
        e.has_key = true;
        e.expected_key = std::string(std::string_view(k));
      }
      out.push_back(std::move(e));
    }
    delete_after_test(topic);
    return out;
  }

  std::string registry_yaml(const std::string& password = "registry-secret") {
    set_env("KROW_TEST_REGISTRY_SECRET", password);
    return "registry:\n  url: " + registry_url() + "\n  username: registry\n  password: ${KROW_TEST_REGISTRY_SECRET}\n"
           "  ca_file: " + ca() + "\n";
  }

  static std::vector<std::string> scenarios() {
    std::vector<std::string> out;
    FILE* f = popen((python() + " " + source_dir() + "/tests/reference/produce.py --list").c_str(), "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
      std::string s(line);
      out.push_back(s.substr(0, s.find_first_of("\t \n")));
    }
    if (f) pclose(f);
    return out;
  }


  // Checks every expected row against the table.
  void expect_rows(const std::string& topic, const std::vector<Expected>& want, const std::string& format) {
    simdjson::dom::parser pa, pb;
    const auto rows = probe().rows(table_of(topic));
    for (const auto& e : want) {
      const auto it = std::find_if(rows.begin(), rows.end(), [&](const StoredRow& r) {
        return r.partition == e.partition && r.offset == e.offset;
      });
      ASSERT_NE(it, rows.end()) << topic << " offset " << e.offset;
      const auto& row = *it;
      EXPECT_EQ(row.decode_error, Cell()) << topic << " offset " << e.offset << ": " << row.decode_error.value_or("");
      EXPECT_EQ(row.value_format, Cell(format)) << topic << " offset " << e.offset;
      EXPECT_EQ(row.value_schema_id, e.schema_id);
      ASSERT_TRUE(row.value.has_value()) << topic << " offset " << e.offset;
      // jsonb normalises JSON (keys, spaces, every number an exact decimal, which the test's
      // parser cannot always read back): such a value is compared by the engine's own JSON
      // equality; text kept as the decoder wrote it (DuckDB's JSON, keys) structurally here.
      auto same = [&](const std::string& got_text, const std::string& want_text, std::string& where,
                      bool by_engine) {
        if (by_engine) return probe().same_json(got_text, want_text);
        simdjson::dom::element got = pa.parse(got_text), exp = pb.parse(want_text);
        return json_equal(got, exp, where);
      };
      std::string where;
      EXPECT_TRUE(same(*row.value, e.expected, where, traits().json_compared_by_engine))
          << topic << " offset " << e.offset << " at " << where << "\n got: " << *row.value
          << "\nwant: " << e.expected;
      if (e.key_schema_id) {
        EXPECT_EQ(row.key_schema_id, e.key_schema_id);
        // The key column is text everywhere: the decoder's own JSON.
        EXPECT_TRUE(same(row.key.value_or("null"), e.expected_key, where, false)) << "key at " << where << ": "
                                                                           << row.key.value_or("NULL");
      } else if (e.has_key) {
        EXPECT_EQ(row.key, Cell(e.expected_key));
      }
    }
  }

};

std::string format_of(const std::string& scenario) {
  if (scenario.rfind("avro", 0) == 0 || scenario.rfind("keyed-avro", 0) == 0) return "avro";
  if (scenario.rfind("protobuf", 0) == 0 || scenario.rfind("keyed-protobuf", 0) == 0) return "protobuf";
  return "json_schema";
}

TEST_P(Registry, EveryReferenceScenarioDecodesToItsExpectation) {
  const auto names = scenarios();
  ASSERT_GE(names.size(), 4u);
  struct Produced {
    std::string scenario, topic;
    std::vector<Expected> expected;
  };
  std::vector<Produced> produced;
  std::vector<std::string> topics;
  for (const auto& s : names) {
    // U+0000 in a string: an engine whose JSON type refuses it (jsonb) keeps that value as its
    // JSON text with a note (Engines/PlainValues.JsonTheEngineCannotHoldIsKeptWithTheReason).
    if (s == "avro-nul" && traits().json.nul == JsonFit::refused) continue;
    // Integers beyond 64 bits, which this test's JSON parser cannot read back; typed columns
    // are what that scenario is for (Engines/TypedColumns.IntegersBeyond64BitsEmptyOnlyTheir
    // CellAndZonedTimesFit checks its rows, value JSON included).
    if (s == "json-schema-edges") continue;
    const auto topic = unique_name("ref-" + s);
    produced.push_back({s, topic, produce(s, topic)});
    topics.push_back(topic);
  }
  const auto manifest = write_manifest(topics, registry_yaml());
  sync_ok(manifest);
  for (const auto& p : produced) {
    SCOPED_TRACE(p.scenario);
    expect_rows(p.topic, p.expected, format_of(p.scenario));
  }
  // One registry request per schema ID (plus the schemas they reference), not one per message.
  std::set<int64_t> ids;
  size_t messages = 0;
  for (const auto& p : produced)
    for (const auto& e : p.expected) {
      ++messages;
      for (const auto id : {e.schema_id, e.key_schema_id})
        if (id != 0) ids.insert(id);
    }
  const auto runs = probe().run_records();
  ASSERT_EQ(runs.size(), 1u);
  simdjson::dom::parser parser;
  const auto requests = int64_t(parser.parse(runs[0])["registry_requests"]);
  // References: the refs, diamond and imports scenarios name at most a dozen schemas between them.
  EXPECT_LE(requests, static_cast<int64_t>(ids.size()) + 12)
      << "registry requests for " << ids.size() << " schema IDs in " << messages << " messages";
  EXPECT_LT(requests, static_cast<int64_t>(messages)) << "a request per message";
}

TEST_P(Registry, UnknownIdIsPlainBytesAndCorruptPayloadKeepsRawBytes) {
  const auto topic = make_topic("ref-bad");
  const auto avro_topic = unique_name("ref-avro");
  const auto good = produce("avro-basic", avro_topic);
  const auto id = good.front().schema_id;
  Producer p(bootstrap_);
  const std::string unknown("\x00\x00\x01\x86\x9f\x01\x02\x03", 8);  // schema ID 99999
  std::string corrupt("\x00\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff", 11);
  corrupt[1] = char((id >> 24) & 0xff), corrupt[2] = char((id >> 16) & 0xff), corrupt[3] = char((id >> 8) & 0xff),
  corrupt[4] = char(id & 0xff);
  p.send(topic, Record{std::nullopt, unknown});
  p.send(topic, Record{std::nullopt, corrupt});
  p.flush();
  sync_ok(write_manifest({topic}, registry_yaml()));
  const auto rows = probe().rows(table_of(topic));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].value_format, Cell("binary"));
  EXPECT_EQ(rows[0].value_base64, Cell("AAABhp8BAgM="));
  ASSERT_TRUE(rows[0].decode_error);
  EXPECT_NE(rows[0].decode_error->find("(schema ID 99999) but the schema registry does not know that ID"),
            std::string::npos)
      << *rows[0].decode_error;
  EXPECT_EQ(rows[1].value_format, Cell("schema_registry"));
  EXPECT_EQ(rows[1].value_schema_id, id);
  ASSERT_TRUE(rows[1].decode_error);
  EXPECT_NE(rows[1].decode_error->find("could not be decoded with schema ID " + std::to_string(id)), std::string::npos)
      << *rows[1].decode_error;
}

TEST_P(Registry, WrongPasswordThenFullResyncAfterFixingCredentials) {
  const auto topic = unique_name("ref-resync");
  const auto want = produce("avro-basic", topic);
  // First without a registry, then with a wrong password: raw rows with the reason.
  // How many rows of the table are of `format` with `error` in their decode_error.
  auto rows_with = [&](const std::string& format, const std::string& error) {
    size_t n = 0;
    for (const auto& r : probe().rows(table_of(topic)))
      n += (format.empty() || r.value_format == Cell(format)) &&
           (error.empty() ? !r.decode_error : r.decode_error && r.decode_error->find(error) != std::string::npos);
    return n;
  };
  sync_ok(write_manifest({topic}));
  EXPECT_EQ(rows_with("schema_registry", "no schema registry is configured"), want.size());
  Producer p(bootstrap_);
  const auto more = produce("avro-basic", topic);
  const auto manifest = write_manifest({topic}, registry_yaml("wrong-password"));
  sync_ok(manifest);
  size_t refused = 0;
  for (const auto& r : probe().rows(table_of(topic)))
    refused += r.decode_error && r.decode_error->find("refused") != std::string::npos &&
               r.decode_error->find("HTTP 401") != std::string::npos;
  EXPECT_EQ(refused, more.size());
  for (const auto& record : probe().run_records()) EXPECT_EQ(record.find("wrong-password"), std::string::npos);
  // Fixed credentials and a full resync: everything decoded, nothing duplicated or removed.
  set_env("KROW_TEST_REGISTRY_SECRET", "registry-secret");
  const auto r = krow({"resync", "--full", manifest});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto total = want.size() + more.size();
  EXPECT_EQ(probe().count(table_of(topic)), static_cast<int64_t>(total));
  EXPECT_EQ(probe().distinct_ids(table_of(topic)), static_cast<int64_t>(total));
  EXPECT_EQ(rows_with("avro", ""), total);
  auto all = want;
  all.insert(all.end(), more.begin(), more.end());
  expect_rows(topic, all, "avro");
}

TEST_P(Registry, ProtobufSchemasRegisteredAsBase64DescriptorsDecodeLikeText) {
  // Confluent's Python serializer registers each file as a base64 FileDescriptorProto, and
  // this registry (Apicurio) serves it back as stored.
  std::vector<std::pair<std::string, std::vector<Expected>>> produced;
  std::vector<std::string> topics;
  for (const std::string scenario : {"protobuf-basic", "protobuf-refs", "protobuf-imports", "protobuf-wkt"}) {
    const auto topic = unique_name("b64-" + scenario);
    produced.emplace_back(topic, produce(scenario, topic, "--protobuf-schema descriptor"));
    topics.push_back(topic);
  }
  sync_ok(write_manifest(topics, registry_yaml()));
  for (const auto& [topic, want] : produced) {
    SCOPED_TRACE(topic);
    for (const auto& r : probe().rows(table_of(topic))) EXPECT_EQ(r.decode_error, Cell());
    expect_rows(topic, want, "protobuf");
  }
}

TEST_P(Registry, RegistryStoppedDuringASyncIsRetriedWithoutErrorRows) {
  const auto topic = unique_name("ref-down");
  const auto want = produce("protobuf-basic", topic);
  // Stop the HTTPS front (the registry keeps its in-memory schemas) as an outage would.
  const auto script = "bash " + source_dir() + "/scripts/registry.sh ";
  const auto nginx_pid = services_dir() + "/registry/nginx/nginx.pid";
  ASSERT_EQ(std::system(("kill $(cat " + nginx_pid + ") && sleep 1").c_str()), 0);
  const pid_t pid = start_krow({"sync", write_manifest({topic}, registry_yaml())});
  std::this_thread::sleep_for(std::chrono::seconds(3));
  int status = 0;
  const bool waiting = waitpid(pid, &status, WNOHANG) == 0;
  const int started = std::system((script + "start >/dev/null 2>&1").c_str());
  if (waiting) waitpid(pid, &status, 0);
  ASSERT_EQ(started, 0);
  ASSERT_TRUE(waiting) << "the sync did not wait for the registry";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  for (const auto& r : probe().rows(table_of(topic))) EXPECT_EQ(r.decode_error, Cell());
  expect_rows(topic, want, "protobuf");
}

INSTANTIATE_TEST_SUITE_P(Engines, Registry, KROW_ALL_ENGINES);

}  // namespace
}  // namespace krow::testkit
