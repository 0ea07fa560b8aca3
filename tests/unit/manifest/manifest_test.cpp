// Manifest parsing: defaults, ${ENV} references, sizes, and errors that name the line.

#include "manifest/manifest.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "warehouse/duckdb/duckdb_settings.hpp"
#include "warehouse/postgres/postgres_settings.hpp"

namespace krow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

// The only environment the tests see.
const char* test_env(const char* name) {
  if (std::strcmp(name, "KAFKA_KEY") == 0) return "AKEY123";
  if (std::strcmp(name, "KAFKA_SECRET") == 0) return "s3cr$t";
  if (std::strcmp(name, "EMPTY") == 0) return "";
  if (std::strcmp(name, "PG_SECRET") == 0) return "pg-s3cret";
  return nullptr;
}

Manifest parse(const std::string& yaml, const fs::path& file = "/srv/krow/orders.yaml") {
  return parse_manifest(yaml, file, test_env);
}

// The message of the config error that parsing `yaml` raises ("" when none is raised).
std::string error_of(const std::string& yaml, const fs::path& file = "/srv/krow/orders.yaml") {
  try {
    parse(yaml, file);
  } catch (const Error& e) {
    EXPECT_EQ(e.error_class(), ErrorClass::config);
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a krow::Error: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << yaml;
  return "";
}

const std::string kMinimal =
    "source:\n"
    "  bootstrap_servers: localhost:9092\n"
    "warehouse:\n"
    "  path: data.duckdb\n";

TEST(Manifest, FullManifest) {
  const Manifest m = parse(R"(name: orders-sync
source:
  bootstrap_servers: pkc-abc12.us-east-1.aws.confluent.cloud:9092
  security_protocol: SASL_SSL
  sasl_mechanism: SCRAM-SHA-512
  username: ${KAFKA_KEY}
  password: ${KAFKA_SECRET}
  ca_file: /etc/ssl/ca.pem
  verify_certificates: false
topics:
  names: [orders, payments]
  prefixes:
    - "orders."
  globs: ["inv-*"]
  exclude: ["*.dlq"]
warehouse:
  type: duckdb
  path: /data/krow.duckdb
  schema: kafka_raw
batch:
  max_messages: 1000
  max_bytes: 4MiB
limits:
  max_value_bytes: 1MiB
)");
  EXPECT_EQ(m.name, "orders-sync");
  EXPECT_EQ(m.file, fs::path("/srv/krow/orders.yaml"));
  EXPECT_EQ(m.source.bootstrap_servers, "pkc-abc12.us-east-1.aws.confluent.cloud:9092");
  EXPECT_EQ(m.source.security_protocol, "SASL_SSL");
  EXPECT_EQ(m.source.sasl_mechanism, "SCRAM-SHA-512");
  EXPECT_EQ(m.source.username, "AKEY123");
  EXPECT_EQ(m.source.password.reveal(), "s3cr$t");  // a '$' inside a value is not re-read
  EXPECT_EQ(m.source.ca_file, "/etc/ssl/ca.pem");
  EXPECT_FALSE(m.source.verify_certificates);
  EXPECT_EQ(m.topics.names, (std::vector<std::string>{"orders", "payments"}));
  EXPECT_EQ(m.topics.prefixes, (std::vector<std::string>{"orders."}));
  EXPECT_EQ(m.topics.globs, (std::vector<std::string>{"inv-*"}));
  EXPECT_EQ(m.topics.exclude, (std::vector<std::string>{"*.dlq"}));
  EXPECT_FALSE(m.topics.selects_all());
  EXPECT_EQ(m.warehouse.type, "duckdb");
  EXPECT_EQ(m.warehouse.settings_as<DuckDBSettings>().path, fs::path("/data/krow.duckdb"));
  EXPECT_EQ(m.warehouse.schema, "kafka_raw");
  EXPECT_EQ(m.batch.max_messages, 1000);
  EXPECT_EQ(m.batch.max_bytes, 4 * 1024 * 1024);
  EXPECT_EQ(m.limits.max_value_bytes, 1024 * 1024);
}

TEST(Manifest, Defaults) {
  const Manifest m = parse(kMinimal);
  EXPECT_EQ(m.name, "orders");  // the file's stem
  EXPECT_EQ(m.source.security_protocol, "PLAINTEXT");
  EXPECT_TRUE(m.source.verify_certificates);
  EXPECT_TRUE(m.source.password.empty());
  EXPECT_TRUE(m.topics.selects_all());
  EXPECT_EQ(m.warehouse.type, "duckdb");
  EXPECT_EQ(m.warehouse.schema, "confluent");
  EXPECT_EQ(m.batch.max_messages, 40960);
  EXPECT_EQ(m.batch.max_bytes, 16 * 1024 * 1024);
  EXPECT_EQ(m.batch.max_wait_ms, 1000);
  EXPECT_EQ(m.limits.max_value_bytes, 8 * 1024 * 1024);
}

TEST(Manifest, BatchMaxWaitTakesDurations) {
  for (const auto& [text, ms] : std::vector<std::pair<std::string, int64_t>>{{"500ms", 500},
                                                                             {"2s", 2000},
                                                                             {"1m", 60'000},
                                                                             {"3", 3000},
                                                                             {"10ms", 10},
                                                                             {"1h", 3'600'000}})
    EXPECT_EQ(parse(kMinimal + "batch:\n  max_wait: " + text + "\n").batch.max_wait_ms, ms) << text;
  for (const std::string bad : {"5ms", "2h", "fast", "-1s", "1.5s", "0"}) {
    const auto e = error_of(kMinimal + "batch:\n  max_wait: " + bad + "\n");
    EXPECT_NE(e.find("max_wait must be a duration from 10ms to 1h"), std::string::npos)
        << bad << ": " << e;
    EXPECT_NE(e.find(":6:"), std::string::npos) << "names the line: " << e;
  }
}

TEST(Manifest, NameDefaultsToTheFileStem) {
  EXPECT_EQ(parse(kMinimal, "/x/payments.prod.yml").name, "payments.prod");
}

TEST(Manifest, RelativeWarehousePathIsResolvedAgainstTheManifestFolder) {
  auto path = [](const Manifest& m) { return m.warehouse.settings_as<DuckDBSettings>().path; };
  EXPECT_EQ(path(parse(kMinimal, "/srv/krow/sync.yaml")), fs::path("/srv/krow/data.duckdb"));
  const std::string nested = "source: {bootstrap_servers: k:9092}\nwarehouse: {path: db/w.duckdb}\n";
  EXPECT_EQ(path(parse(nested, "conf/sync.yaml")), fs::path("conf/db/w.duckdb"));
  const std::string absolute = "source: {bootstrap_servers: k:9092}\nwarehouse: {path: /abs/w.duckdb}\n";
  EXPECT_EQ(path(parse(absolute, "/srv/krow/sync.yaml")), fs::path("/abs/w.duckdb"));
}

TEST(Manifest, EnvironmentReferences) {
  const Manifest m = parse(
      "source:\n"
      "  bootstrap_servers: broker-${KAFKA_KEY}:9092\n"
      "  username: \"$${KAFKA_KEY} costs $$5, $x and $\"\n"
      "warehouse:\n"
      "  path: data.duckdb\n");
  EXPECT_EQ(m.source.bootstrap_servers, "broker-AKEY123:9092");
  EXPECT_EQ(m.source.username, "${KAFKA_KEY} costs $5, $x and $");
}

TEST(Manifest, MissingEnvironmentVariableNamesItAndTheLine) {
  const std::string err = error_of(
      "source:\n"
      "  bootstrap_servers: localhost:9092\n"
      "  security_protocol: SASL_SSL\n"
      "  username: ${KAFKA_KEY}\n"
      "  password: ${NOT_SET_ANYWHERE}\n"
      "warehouse:\n"
      "  path: data.duckdb\n");
  EXPECT_THAT(err, HasSubstr("orders.yaml:5:"));
  EXPECT_THAT(err, HasSubstr("NOT_SET_ANYWHERE"));
}

TEST(Manifest, MalformedReferences) {
  EXPECT_THAT(error_of("source:\n  bootstrap_servers: ${KAFKA_KEY\nwarehouse:\n  path: d\n"),
              HasSubstr(":2:"));
  EXPECT_THAT(error_of("source:\n  bootstrap_servers: ${1BAD}\nwarehouse:\n  path: d\n"),
              HasSubstr("1BAD"));
}

TEST(Manifest, UnknownKeySuggestsTheClosestOne) {
  const std::string err = error_of(
      "source:\n"
      "  security_protocol: PLAINTEXT\n"
      "  bootstrap_server: localhost:9092\n"
      "warehouse:\n"
      "  path: data.duckdb\n");
  EXPECT_THAT(err, HasSubstr("orders.yaml:3:"));
  EXPECT_THAT(err, HasSubstr("bootstrap_server'"));
  EXPECT_THAT(err, HasSubstr("did you mean 'bootstrap_servers'"));
}

TEST(Manifest, UnknownTopLevelKey) {
  const std::string err = error_of(kMinimal + "batchs:\n  max_messages: 10\n");
  EXPECT_THAT(err, HasSubstr(":5:"));
  EXPECT_THAT(err, HasSubstr("did you mean 'batch'"));
  // Far from every allowed key: no suggestion, but still rejected.
  EXPECT_THAT(error_of(kMinimal + "compression: zstd\n"), Not(HasSubstr("did you mean")));
}

TEST(Manifest, SecurityProtocol) {
  const auto with = [](const std::string& protocol) {
    return "source:\n  bootstrap_servers: k:9092\n  security_protocol: " + protocol +
           "\n  username: u\n  password: p\nwarehouse:\n  path: d\n";
  };
  EXPECT_EQ(parse(with("SSL")).source.security_protocol, "SSL");
  EXPECT_EQ(parse(with("sasl_plaintext")).source.security_protocol, "SASL_PLAINTEXT");
  const std::string err = error_of(with("SASL_TLS"));
  EXPECT_THAT(err, HasSubstr(":3:"));
  EXPECT_THAT(err, HasSubstr("security_protocol"));
  EXPECT_THAT(err, HasSubstr("SASL_TLS"));
}

TEST(Manifest, SaslNeedsUsernameAndPassword) {
  const std::string no_password =
      "source:\n  bootstrap_servers: k:9092\n  security_protocol: SASL_SSL\n  username: u\n"
      "warehouse:\n  path: d\n";
  EXPECT_THAT(error_of(no_password), HasSubstr("password"));
  const std::string empty_password =
      "source:\n  bootstrap_servers: k:9092\n  security_protocol: SASL_SSL\n  username: u\n"
      "  password: ${EMPTY}\nwarehouse:\n  path: d\n";
  EXPECT_THAT(error_of(empty_password), HasSubstr("password"));
}

TEST(Manifest, BadSaslMechanism) {
  EXPECT_THAT(error_of("source:\n  bootstrap_servers: k:9092\n  sasl_mechanism: GSSAPI\n"
                       "warehouse:\n  path: d\n"),
              HasSubstr("sasl_mechanism"));
}

TEST(Manifest, Sizes) {
  const auto bytes = [](const std::string& size) {
    return parse(kMinimal + "batch:\n  max_bytes: " + size + "\n").batch.max_bytes;
  };
  EXPECT_EQ(bytes("16MiB"), 16ll << 20);
  EXPECT_EQ(bytes("16 MiB"), 16ll << 20);
  EXPECT_EQ(bytes("64KiB"), 64ll << 10);
  EXPECT_EQ(bytes("1GiB"), 1ll << 30);
  EXPECT_EQ(bytes("16MB"), 16'000'000);
  EXPECT_EQ(bytes("2048"), 2048);
}

TEST(Manifest, BadSizes) {
  const std::string err = error_of(kMinimal + "batch:\n  max_bytes: 16 parsecs\n");
  EXPECT_THAT(err, HasSubstr(":6:"));
  EXPECT_THAT(err, HasSubstr("max_bytes"));
  EXPECT_THAT(err, HasSubstr("16 parsecs"));
  EXPECT_THAT(error_of(kMinimal + "batch:\n  max_bytes: 2GiB\n"), HasSubstr("max_bytes"));
  EXPECT_THAT(error_of(kMinimal + "batch:\n  max_bytes: -5\n"), HasSubstr("max_bytes"));
  EXPECT_THAT(error_of(kMinimal + "batch:\n  max_bytes: 99999999999999999999999\n"),
              HasSubstr("max_bytes"));
  EXPECT_THAT(error_of(kMinimal + "batch:\n  max_messages: 0\n"), HasSubstr("max_messages"));
  EXPECT_THAT(error_of(kMinimal + "batch:\n  max_messages: 1.5\n"), HasSubstr("max_messages"));
}

TEST(Manifest, RequiredParts) {
  EXPECT_THAT(error_of("warehouse:\n  path: d\n"), HasSubstr("source"));
  EXPECT_THAT(error_of("source:\n  bootstrap_servers: k:9092\n"), HasSubstr("warehouse"));
  EXPECT_THAT(error_of("source:\n  username: u\nwarehouse:\n  path: d\n"),
              HasSubstr("bootstrap_servers"));
  EXPECT_THAT(error_of("source:\n  bootstrap_servers: k:9092\nwarehouse:\n  schema: s\n"),
              HasSubstr("path"));
  EXPECT_THAT(error_of("just text\n"), HasSubstr("mapping"));
}

TEST(Manifest, BadNamesAndSchemas) {
  EXPECT_THAT(error_of("name: my sync!\n" + kMinimal), HasSubstr("name"));
  EXPECT_THAT(error_of(kMinimal + "  schema: bad-schema\n"), HasSubstr("schema"));
  EXPECT_THAT(error_of(kMinimal, "/x/bad name.yaml"), HasSubstr("bad name"));
}

TEST(Manifest, BadBoolean) {
  EXPECT_THAT(error_of("source:\n  bootstrap_servers: k:9092\n  verify_certificates: maybe\n"
                       "warehouse:\n  path: d\n"),
              HasSubstr(":3:"));
}

TEST(Manifest, InvalidYamlGivesTheLine) {
  const std::string err = error_of(
      "source:\n"
      "  bootstrap_servers: localhost:9092\n"
      "  username: a: b\n"
      "warehouse:\n"
      "  path: data.duckdb\n");
  EXPECT_THAT(err, HasSubstr("orders.yaml:3:"));
  EXPECT_THAT(err, HasSubstr("YAML"));
}

TEST(Manifest, NonScalarKeyIsAConfigError) {
  // A YAML mapping may have a list as a key; it is an unknown key like any other, and
  // parse_manifest promises krow::Error(config) for every problem.
  EXPECT_THAT(error_of("[a, b]: 1\n" + kMinimal), HasSubstr(":1:"));
}

const std::string kSource = "source:\n  bootstrap_servers: localhost:9092\n";

TEST(Manifest, PostgresWarehouse) {
  const Manifest m = parse(kSource +
                           "warehouse:\n  type: postgres\n  host: db.example.com\n  port: 6543\n  database: analytics\n"
                           "  user: krow\n  password: ${PG_SECRET}\n  sslmode: verify-full\n  sslrootcert: ca.pem\n"
                           "  schema: kafka\n  retry_timeout: 60\n");
  EXPECT_EQ(m.warehouse.type, "postgres");
  EXPECT_EQ(m.warehouse.schema, "kafka");
  EXPECT_EQ(m.warehouse.retry_timeout_s, 60);
  const auto& pg = m.warehouse.settings_as<PostgresSettings>();
  EXPECT_EQ(pg.host, "db.example.com");
  EXPECT_EQ(pg.port, "6543");
  EXPECT_EQ(pg.database, "analytics");
  EXPECT_EQ(pg.user, "krow");
  EXPECT_EQ(pg.password.reveal(), "pg-s3cret");
  EXPECT_EQ(pg.sslmode, "verify-full");
  EXPECT_EQ(pg.sslrootcert, "/srv/krow/ca.pem");  // relative to the manifest, like every file
  EXPECT_EQ(pg.describe(), "PostgreSQL database analytics at db.example.com:6543");
  EXPECT_THROW(m.warehouse.settings_as<DuckDBSettings>(), std::bad_cast);
}

TEST(Manifest, PostgresDsnWithoutPassword) {
  const Manifest m = parse(kSource + "warehouse:\n  type: postgres\n  dsn: \"host=h port=7 dbname=d user=u\"\n"
                                     "  password: ${PG_SECRET}\n");
  const auto& pg = m.warehouse.settings_as<PostgresSettings>();
  EXPECT_EQ(pg.dsn, "host=h port=7 dbname=d user=u");
  EXPECT_EQ(pg.describe(), "PostgreSQL database d at h:7");
  // A password inside the dsn would show wherever the dsn does: refused, and never echoed.
  const auto err = error_of(kSource + "warehouse:\n  type: postgres\n  dsn: \"host=h password=hunter2\"\n");
  EXPECT_THAT(err, HasSubstr("must not carry a password"));
  EXPECT_THAT(err, Not(HasSubstr("hunter2")));
  EXPECT_THAT(error_of(kSource + "warehouse:\n  type: postgres\n  dsn: postgresql://u:hunter2@h/d\n"),
              AllOf(HasSubstr("must not carry a password"), Not(HasSubstr("hunter2"))));
  EXPECT_THAT(error_of(kSource + "warehouse:\n  type: postgres\n  dsn: \"host=h\"\n  host: other\n"),
              HasSubstr("cannot be combined with warehouse.dsn"));
}

TEST(Manifest, PostgresKeysAreChecked) {
  const std::string base = kSource + "warehouse:\n  type: postgres\n  host: h\n  database: d\n  user: u\n";
  EXPECT_THAT(error_of(base + "  pasword: x\n"), HasSubstr("did you mean 'password'?"));
  EXPECT_THAT(error_of(base + "  path: x.duckdb\n"), HasSubstr("unknown key 'path'"));
  EXPECT_THAT(error_of(base + "  sslmode: sometimes\n"), HasSubstr("sslmode"));
  EXPECT_THAT(error_of(base + "  port: 70000\n"), HasSubstr("port"));
  EXPECT_THAT(error_of(kSource + "warehouse:\n  type: postgres\n  host: h\n  user: u\n"),
              HasSubstr("warehouse.database is required"));
  EXPECT_THAT(error_of(kSource + "warehouse:\n  type: oracle\n  path: x\n"),
              HasSubstr("duckdb, postgres, bigquery"));
  // DuckDB keeps its own keys.
  EXPECT_THAT(error_of(kMinimal + "  host: h\n"), HasSubstr("unknown key 'host' in warehouse"));
}

// What an engine cannot do is refused when the manifest loads, naming the line, the engines
// that can and the way out, so that plan, doctor and sync all refuse it before reading.
TEST(Manifest, EveryEngineTakesEveryTableOption) {
  for (const std::string& warehouse :
       {std::string("warehouse:\n  path: data.duckdb\n"),
        std::string("warehouse:\n  type: postgres\n  host: h\n  database: d\n  user: u\n"),
        std::string("warehouse:\n  type: bigquery\n  project: my-project\n")}) {
    const Manifest m = parse(
        kSource + warehouse +
        "tables:\n  a: {strategy: latest_by_key, columns: infer}\n  b: {strategy: full_refresh, "
        "columns: from_schema}\n  c: {columns: from_schema, on_breaking: variant}\n");
    EXPECT_EQ(m.tables.size(), 3u) << warehouse;
  }
}

TEST(Manifest, LoadManifestReportsAMissingFile) {
  try {
    load_manifest("/nonexistent/dir/krow-missing.yaml", test_env);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.error_class(), ErrorClass::config);
    EXPECT_THAT(std::string(e.what()), HasSubstr("krow-missing.yaml"));
  }
}


// A "billion laughs" of YAML aliases: nine levels, each nine references to the one below.
// Expanded it would be 9^9 nodes; krow must answer at once (a value of the wrong shape),
// not walk the expansion.
TEST(ManifestHostile, AliasBombIsRefusedQuickly) {
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    const auto prev = "*a" + std::to_string(i - 1);
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 9; ++k) yaml += ", " + prev;
    yaml += "]\n";
  }
  yaml += "name: bomb\nsource:\n  bootstrap_servers: b:9092\ntopics:\n  names: *a9\nwarehouse:\n  path: w.duckdb\n";
  const auto t0 = std::chrono::steady_clock::now();
  const auto error = error_of(yaml);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_FALSE(error.empty());
}

TEST(ManifestHostile, AnchorsAndAliasesThatMakeSenseWork) {
  const auto m = parse("name: anchors\nsource: &src\n  bootstrap_servers: b:9092\ntopics:\n  names: &names [a, b]\n"
                       "warehouse:\n  path: w.duckdb\n");
  EXPECT_EQ(m.topics.names, (std::vector<std::string>{"a", "b"}));
}

TEST(ManifestHostile, HugeNumbersAreRefusedNamingTheKey) {
  const auto error = error_of("name: huge\nsource:\n  bootstrap_servers: b:9092\nwarehouse:\n  path: w.duckdb\n"
                              "batch:\n  max_messages: 99999999999999999999999999\n");
  EXPECT_NE(error.find("max_messages"), std::string::npos) << error;
}

TEST(ManifestBounds, DefaultsReadToTheLastStableOffsetFromTheLogStart) {
  const Manifest m = parse(kMinimal);
  EXPECT_FALSE(m.bounds.limits_reading());
  EXPECT_EQ(m.bounds.start_from.kind, StartFrom::Kind::earliest);
}

TEST(ManifestBounds, EveryKeyIsRead) {
  const Manifest m = parse(kMinimal + R"(bounds:
  max_messages: 1000
  max_messages_per_partition: 200
  until_offset: 5000
  until: 2026-03-01T14:00:00.250+02:00
  start_from: 2026-02-01
)");
  EXPECT_EQ(m.bounds.max_messages, 1000);
  EXPECT_EQ(m.bounds.max_messages_per_partition, 200);
  EXPECT_EQ(m.bounds.until_offset, Offset(5000));
  EXPECT_EQ(m.bounds.until_ms, 1772366400250);  // 2026-03-01T12:00:00.250Z
  EXPECT_EQ(m.bounds.until_text, "2026-03-01T14:00:00.250+02:00");
  EXPECT_EQ(m.bounds.start_from.kind, StartFrom::Kind::time);
  EXPECT_EQ(m.bounds.start_from.time_ms, 1769904000000);  // 2026-02-01T00:00:00Z
  EXPECT_EQ(parse(kMinimal + "bounds:\n  start_from: LATEST\n").bounds.start_from.kind, StartFrom::Kind::latest);
  EXPECT_EQ(parse(kMinimal + "bounds:\n  until_offset: 0\n").bounds.until_offset, Offset(0));
}

TEST(ManifestBounds, BadValuesAreRefusedNamingTheKeyAndTheFix) {
  struct Case {
    std::string yaml, key, fix;
  };
  const std::vector<Case> cases{
      {"  max_messages: -5\n", "max_messages", "whole number of at least 1"},
      {"  max_messages: 0\n", "max_messages", "whole number of at least 1"},
      {"  max_messages: lots\n", "max_messages", "e.g. 1000"},
      {"  max_messages_per_partition: 1.5\n", "max_messages_per_partition", "whole number of at least 1"},
      {"  until_offset: -1\n", "until_offset", "whole number of at least 0"},
      {"  until: yesterday\n", "until", "e.g. 2026-03-01T12:00:00Z"},
      {"  until: 2026-03-01T12:00:00\n", "until", "with a time zone"},  // local time is ambiguous
      {"  until: 2026-02-30T12:00:00Z\n", "until", "ISO 8601"},
      {"  until: 2026-03-01T25:00:00Z\n", "until", "ISO 8601"},
      {"  start_from: beginning\n", "start_from", "must be earliest, latest or an ISO 8601 time"},
      {"  start_from: [earliest]\n", "start_from", "single value"},
  };
  for (const auto& c : cases) {
    const auto error = error_of(kMinimal + "bounds:\n" + c.yaml);
    EXPECT_THAT(error, AllOf(HasSubstr("orders.yaml:6"), HasSubstr(c.key), HasSubstr(c.fix))) << c.yaml;
  }
  EXPECT_THAT(error_of(kMinimal + "bounds:\n  max_message: 10\n"),
              AllOf(HasSubstr("unknown key 'max_message' in bounds"), HasSubstr("did you mean 'max_messages'")));
  EXPECT_THAT(error_of(kMinimal + "bounds: 100\n"), HasSubstr("bounds must be a mapping"));
}

}  // namespace
}  // namespace krow
