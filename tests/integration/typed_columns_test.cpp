// Typed tables (`columns: from_schema`) on the real broker and registry, on every warehouse
// engine, with values written by Confluent's own serializers (tests/reference/produce.py):
// each typed column's stored value and type (Avro primitives and logical types, decimals
// wider than 38 digits as text, Protobuf 64-bit and unsigned integers, JSON Schema), flattened
// nested fields, a value that does not fit its column (NULL there, a note in decode_error, the
// row kept with its JSON), the table stopping when there is no schema, the strategies and
// publish modes that copy rows between tables, and schema evolution: three schema versions of
// an Avro, a Protobuf and a JSON Schema topic (fields added, int and float widened, then a breaking change
// refused naming the field and both types, or sent to its variant column).

#include <simdjson.h>

#include <array>
#include <cstdio>
#include <map>
#include <regex>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class TypedColumns : public EngineTest {
 protected:
  std::string ca() const { return services_dir() + "/registry/tls/ca.pem"; }

  // Produces a scenario of tests/reference/produce.py into `topic`.
  void produce(const std::string& scenario, const std::string& topic) {
    const std::string cmd = services_dir() + "/py/bin/python " + source_dir() +
                            "/tests/reference/produce.py --bootstrap " + bootstrap_ + " --registry " + registry_url() +
                            " --ca " + ca() + " " + scenario + " " + topic + " 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    ASSERT_NE(f, nullptr);
    std::string all;
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) all.append(buf.data(), n);
    ASSERT_EQ(pclose(f), 0) << all;
    delete_after_test(topic);
  }
  // Scenario avro-typed (three messages).
  void produce_typed(const std::string& topic) { produce("avro-typed", topic); }

  std::string registry_yaml() {
    set_env("KROW_TEST_REGISTRY_SECRET", "registry-secret");
    return "registry:\n  url: " + registry_url() +
           "\n  username: registry\n  password: ${KROW_TEST_REGISTRY_SECRET}\n  ca_file: " + ca() + "\n";
  }
  std::string typed_manifest(const std::string& topic, const std::string& settings = "columns: from_schema",
                             const std::string& file = "sync.yaml") {
    return write_manifest({topic}, registry_yaml() + "tables:\n  \"" + topic + "\": {" + settings + "}\n", file);
  }

  // SQL every engine reads the same way; what differs comes from the engine's traits.
  std::string target(const std::string& table) const { return "confluent.\"" + table + "\""; }
  std::string epoch_ms(const std::string& column) const { return traits().epoch_ms(column); }
  std::string epoch_us(const std::string& column) const { return traits().epoch_us(column); }
  std::string value_field(const std::string& name) const { return traits().value_field(name); }
  std::string decimal_text(const std::string& column, int scale) const {
    return traits().decimal_text(column, scale);
  }
  // The table's column names in its order, joined with commas.
  std::string column_order(const std::string& table) {
    std::string out;
    for (const auto& c : probe().column_names(table)) out += (out.empty() ? "" : ",") + c;
    return out;
  }
  Rows rows_of(const std::string& sql) { return probe().query(sql).rows; }
  // The engine's spelling of a type: as its catalog names it (probe().column_types), and as
  // krow writes it (DDL, plans, messages).
  using L = Logical;
  std::string catalog_type(L type, int precision = 0, int scale = 0) const {
    return traits().column_type(type, precision, scale);
  }
  std::string krow_type(L type, int precision = 0, int scale = 0) const {
    return traits().krow_type(type, precision, scale);
  }
  std::string column_type(const std::string& table, const std::string& column) {
    const auto types = probe().column_types(table);
    return types.count(column) ? types.at(column) : "(missing)";
  }

  // The typed columns' values of `table`, as text, by offset.
  Rows typed_rows(const std::string& table) {
    return rows_of(
        "SELECT CAST(value__id AS VARCHAR), CAST(count AS VARCHAR), CAST(score AS VARCHAR), "
        "CAST(paid AS VARCHAR), status, " +
        decimal_text("amount", 2) + ", CAST(" + epoch_ms("placed_at") +
        " AS VARCHAR), CAST(day AS VARCHAR), customer__name, CAST(customer__since AS VARCHAR), "
        "CAST(tags AS VARCHAR), note, decode_error, " +
        value_field("amount") + " FROM " + target(table) + " ORDER BY kafka_offset");
  }

  void expect_typed_values(const std::string& table) {
    const auto rows = typed_rows(table);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0], (std::vector<Cell>{"7", "9007199254740993", "2.5", "true", "shipped", "-1234.50",
                                          "1709210096789", "2024-02-29", "Zoë", "1970-01-01",
                                          stored_json(Cell(R"(["a","b"])")), "fragile", std::nullopt, "-1234.50"}));
    EXPECT_EQ(rows[1], (std::vector<Cell>{"-2147483648", "-1", "-0.125", "false", "", "0.05", "-1", "1969-12-31", "",
                                          "1969-12-31", "[]", std::nullopt, std::nullopt, "0.05"}));
    // 123456789012.00 has 12 integer digits: more than DECIMAL(12,2) holds. The column is
    // NULL, decode_error says why, and the value keeps the exact digits.
    EXPECT_EQ(rows[2][0], Cell("1"));
    EXPECT_EQ(rows[2][5], std::nullopt);
    EXPECT_EQ(rows[2][12], Cell("column amount (" + krow_type(L::decimal, 12, 2) +
                                R"(): got "123456789012.00")"));
    EXPECT_EQ(rows[2][13], Cell("123456789012.00"));
  }

  // Schema evolution with scenario <format>-evolve-v1..3 (see produce.py): `name_type` is the
  // type v3 gives `name` as the column planner says it ("INTEGER (int)").
  void evolve(const std::string& format, const std::string& name_type, const std::string& variant_42,
              const std::string& variant_minus_1, const Cell& note_of_4);
};

TEST_P(TypedColumns, AvroRecordIntoTypedColumns) {
  const auto topic = unique_name("typed-avro");
  produce_typed(topic);
  const auto manifest = typed_manifest(topic);
  const auto plan = krow({"plan", manifest, "--format", "json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find(R"x("name":"amount","type":")x" + krow_type(L::decimal, 12, 2) +
                          R"x(","column_type":"decimal")x"),
            std::string::npos)
      << plan.out;
  const auto text = krow({"plan", manifest});
  EXPECT_NE(text.out.find("customer__since " + krow_type(L::date) + "  (customer.since)"),
            std::string::npos)
      << text.out;

  sync_ok(manifest);
  const auto table = table_of(topic);
  const auto types = probe().column_types(table);
  const std::map<std::string, std::string> want = {
      {"value__id", catalog_type(L::int32)},     {"count", catalog_type(L::int64)},
      {"score", catalog_type(L::float64)},       {"paid", catalog_type(L::boolean)},
      {"status", catalog_type(L::text)},         {"amount", catalog_type(L::decimal, 12, 2)},
      {"placed_at", catalog_type(L::timestamp)}, {"day", catalog_type(L::date)},
      {"customer__name", catalog_type(L::text)}, {"customer__since", catalog_type(L::date)},
      {"tags", catalog_type(L::json)},           {"note", catalog_type(L::text)},
      {"value", catalog_type(L::json)},          {"decode_error", catalog_type(L::text)}};
  for (const auto& [name, t] : want) EXPECT_EQ(types.count(name) ? types.at(name) : "(missing)", t) << name;
  EXPECT_EQ(types.size(), 17u + 12u);
  // The metadata columns stay first, in their order; the typed ones follow in schema order.
  const auto order = column_order(table);
  EXPECT_NE(order.find("is_tombstone,decode_error,value__id,count,score"), std::string::npos)
      << order;
  expect_typed_values(table);
  // A second run with nothing new leaves the table as it is.
  sync_ok(manifest);
  EXPECT_EQ(typed_rows(table).size(), 3u);
}

TEST_P(TypedColumns, NestedAsJson) {
  const auto topic = unique_name("typed-nested");
  produce_typed(topic);
  sync_ok(typed_manifest(topic, "columns: from_schema, nested: json"));
  const auto rows =
      rows_of("SELECT CAST(customer AS VARCHAR) FROM " + target(table_of(topic)) + " ORDER BY kafka_offset");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][0], stored_json(Cell(R"({"name":"Zoë","since":"1970-01-01"})")));
  EXPECT_EQ(column_type(table_of(topic), "customer"), catalog_type(L::json));
}

TEST_P(TypedColumns, AvroLogicalTypesFloatsAndDecimals) {
  if (!traits().wide_decimal_gap.empty()) GTEST_SKIP() << traits().wide_decimal_gap;
  const auto topic = unique_name("typed-logical");
  produce("avro-logical", topic);
  sync_ok(typed_manifest(topic));
  const auto table = table_of(topic);
  EXPECT_EQ(column_type(table, "dec_wide"), catalog_type(L::decimal, 38, 10));
  EXPECT_EQ(column_type(table, "dec_int"), catalog_type(L::decimal, 20, 0));
  EXPECT_EQ(column_type(table, "t_micros"), catalog_type(L::time));
  EXPECT_EQ(column_type(table, "f_float"), catalog_type(L::float32));
  EXPECT_EQ(column_type(table, "f_double"), catalog_type(L::float64));
  const auto rows = rows_of(
      "SELECT CAST(dec_bytes AS VARCHAR), CAST(dec_wide AS VARCHAR), CAST(dec_int AS VARCHAR), "
      "CAST(dec_fixed AS VARCHAR), uuid, CAST(day AS VARCHAR), CAST(t_millis AS VARCHAR), CAST(t_micros AS VARCHAR), "
      "CAST(" + epoch_us("ts_millis") + " AS VARCHAR), CAST(" + epoch_us("ts_micros") + " AS VARCHAR), CAST(" +
      epoch_us("local_micros") + " AS VARCHAR), color, hash, CAST(f_float = CAST('NaN' AS FLOAT) AS VARCHAR), "
      "CAST(f_double = CAST('Infinity' AS DOUBLE PRECISION) AS VARCHAR), CAST(f_float = CAST('-Infinity' AS FLOAT) AS VARCHAR), "
      "decode_error FROM " + target(table) + " ORDER BY kafka_offset");
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<Cell>{"-1234.50", "1234567890123456789012345678.9012345678", "12345678901234567890",
                                        "9999999999999999999999999999999999.9999",
                                        "1b4e28ba-2fa1-11d2-883f-0016d3cca427", "2024-02-29", "12:34:56.789",
                                        "12:34:56.789012", "1709210096789000", "1709210096789012",
                                        "1709210096789012", "GREEN", "3q2+7w==", "true", "true", "false",
                                        std::nullopt}));
  EXPECT_EQ(rows[1], (std::vector<Cell>{"0.05", "-0.0000000001", "-1", "-9999999999999999999999999999999999.9999",
                                        "00000000-0000-0000-0000-000000000000", "1969-12-31", "00:00:00", "00:00:00",
                                        "-1000", "-1", "-1", "RED", "AAAAAA==", "false", "false", "true",
                                        std::nullopt}));
}

TEST_P(TypedColumns, DecimalsWiderThan38DigitsAreText) {
  const auto topic = unique_name("typed-wide");
  produce("avro-wide-decimal", topic);
  sync_ok(typed_manifest(topic));
  const auto table = table_of(topic);
  EXPECT_EQ(column_type(table, "big"), catalog_type(L::text));
  EXPECT_EQ(column_type(table, "small"), catalog_type(L::decimal, 4, 1));
  EXPECT_EQ(rows_of("SELECT big, " + decimal_text("small", 1) + ", decode_error FROM " +
                    target(table) + " ORDER BY kafka_offset"),
            (Rows{{"123456789012345678901234567890123456789012345.12345", "-999.9", std::nullopt},
                  {"-0.00001", "0.0", std::nullopt}}));
}

TEST_P(TypedColumns, AValueTheEngineRefusesLeavesItsColumnNullWithTheReason) {
  const auto topic = unique_name("typed-nul");
  produce("avro-nul", topic);
  sync_ok(typed_manifest(topic));
  const auto rows = rows_of("SELECT CAST(n AS VARCHAR), CAST(s IS NULL AS VARCHAR), decode_error FROM " + target(table_of(topic)) +
                            " ORDER BY kafka_offset");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], Cell("1"));
  EXPECT_EQ(rows[1], (std::vector<Cell>{"2", "false", std::nullopt}));
  if (traits().text_refuses_nul) {
    // text cannot hold U+0000: the column is NULL and the row says why (PostgreSQL: the value,
    // which jsonb cannot hold either, is kept as its JSON text).
    EXPECT_EQ(rows[0][1], Cell("true"));
    ASSERT_TRUE(rows[0][2]);
    EXPECT_NE(rows[0][2]->find("column s not stored: " + traits().display_name + " refused it"),
              std::string::npos)
        << *rows[0][2];
  } else {
    EXPECT_EQ(rows[0][1], Cell("false"));  // DuckDB's VARCHAR holds it
  }
}

TEST_P(TypedColumns, InferredFromPlainJsonWithMixedTypes) {
  const auto topic = make_topic("typed-infer");
  Producer p(bootstrap_);
  p.send(topic, Record{"k1", R"({"n": 1, "x": 1, "s": "a", "o": {"p": true}, "mixed": 1})"});
  p.send(topic, Record{"k2", R"({"n": 2, "x": 2.5, "s": "b", "o": {"p": false}, "mixed": "one"})"});
  p.send(topic, Record{"k3", "not json"});
  p.flush();
  // No registry: the columns come from the values this run reads.
  const auto manifest = write_manifest({topic}, "tables:\n  \"" + topic + "\": {columns: infer}\n");
  sync_ok(manifest);
  const auto table = table_of(topic);
  EXPECT_EQ(column_type(table, "n"), catalog_type(L::int64));
  EXPECT_EQ(column_type(table, "x"), catalog_type(L::float64));  // integers and reals
  EXPECT_EQ(column_type(table, "s"), catalog_type(L::text));
  EXPECT_EQ(column_type(table, "o__p"), catalog_type(L::boolean));
  EXPECT_EQ(column_type(table, "mixed"), catalog_type(L::json));  // a number here, a string there
  const auto values = [&] {
    return rows_of("SELECT CAST(n AS VARCHAR), CAST(CAST(x * 10 AS BIGINT) AS VARCHAR), s, CAST(o__p AS VARCHAR), "
                   "CAST(mixed AS VARCHAR), value_format, decode_error FROM " + target(table) + " ORDER BY kafka_offset");
  };
  auto rows = values();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<Cell>{"1", "10", "a", "true", "1", "json", std::nullopt}));
  EXPECT_EQ(rows[1], (std::vector<Cell>{"2", "25", "b", "false", stored_json(Cell(R"("one")")), "json", std::nullopt}));
  EXPECT_EQ(rows[2], (std::vector<Cell>{std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, "string",
                                        std::nullopt}));
  // A new field becomes a new column; columns the new sample does not show stay.
  p.send(topic, Record{"k4", R"({"n": 3, "extra": "e"})"});
  p.flush();
  sync_ok(manifest);
  EXPECT_EQ(column_type(table, "extra"), catalog_type(L::text));
  EXPECT_EQ(rows_of("SELECT CAST(n AS VARCHAR), extra, s FROM " + target(table) + " WHERE kafka_offset = 3"),
            (Rows{{"3", "e", std::nullopt}}));
  // A field that turns from a number into text is a breaking change, as with a schema.
  p.send(topic, Record{"k5", R"({"n": "three"})"});
  p.flush();
  const auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(
      (r.out + r.err)
          .find("field n: column n is " + krow_type(L::int64) + " in the table but " +
                krow_type(L::json) + " (inferred text) in the sampled values (a changed type)"),
      std::string::npos)
      << r.out << r.err;
}

TEST_P(TypedColumns, ProtobufAndJsonSchemaTopics) {
  const auto proto = unique_name("typed-proto");
  const auto json = unique_name("typed-json");
  produce("protobuf-typed", proto);
  produce("json-schema-basic", json);
  sync_ok(write_manifest({proto, json}, registry_yaml() + "tables:\n  \"" + proto + "\": {columns: from_schema}\n  \"" +
                                            json + "\": {columns: from_schema}\n"));
  // Protobuf: int64 as BIGINT, uint64 beyond it (UBIGINT, numeric(20,0)), enums as text,
  // bytes as base64 text, nested messages flattened, Timestamp as an instant.
  EXPECT_EQ(column_type(table_of(proto), "value__id"), catalog_type(L::int64));
  EXPECT_EQ(column_type(table_of(proto), "total"), catalog_type(L::uint64));
  EXPECT_EQ(column_type(table_of(proto), "weight"), catalog_type(L::float32));
  // uint64 as text: an engine whose decimal type has a fixed scale writes its zero fraction
  // (the emulator's NUMERIC: "1.000000000"), which says nothing about the value.
  auto proto_rows = rows_of(
      "SELECT CAST(value__id AS VARCHAR), CAST(total AS VARCHAR), kind, blob, part__sku, "
      "CAST(part__quantity AS VARCHAR), CAST(" +
      epoch_us("\"at\"") +
      " AS VARCHAR), CAST(ratio = 0.1 AS "
      "VARCHAR), CAST(weight AS VARCHAR), CAST(ok AS VARCHAR), decode_error FROM " +
      target(table_of(proto)) + " ORDER BY kafka_offset");
  for (auto& row : proto_rows)
    if (row[1]) row[1] = std::regex_replace(*row[1], std::regex(R"(\.0+$)"), "");
  EXPECT_EQ(proto_rows,
            (Rows{{"9223372036854775807", "18446744073709551615", "BIG", "AP8=", "A-1", "3",
                   "1709210096789012", "true", "1.5", "true", std::nullopt},
                  {"-9223372036854775808", "1", "KIND_UNSPECIFIED", "", std::nullopt, std::nullopt,
                   std::nullopt, "false", traits().whole_float_text(0), "false", std::nullopt}}));
  // JSON Schema: integer as BIGINT (beyond 2^53 kept exact), number as DOUBLE.
  EXPECT_EQ(column_type(table_of(json), "score"), catalog_type(L::float64));
  EXPECT_EQ(rows_of("SELECT CAST(value__id AS VARCHAR), name, CAST(score AS VARCHAR), CAST(active AS VARCHAR), "
                    "address__city, address__zip, CAST(tags AS VARCHAR), decode_error FROM " + target(table_of(json)) +
                    " ORDER BY kafka_offset"),
            (Rows{{"1", "Ada", "99.5", "true", "London", "N1", stored_json(Cell(R"(["a","b"])")), std::nullopt},
                  {"9007199254740993", "Grace é✓", "-0.001", "false", "Arlington", std::nullopt, "[]", std::nullopt},
                  {"-7", "", std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt}}));
}

TEST_P(TypedColumns, NoSubjectOrNoRegistryStopsTheTableNamingTheFix) {
  const auto plain = make_topic("typed-plain");
  const auto other = make_topic("typed-other");
  Producer p(bootstrap_);
  p.send(plain, Record{std::nullopt, R"({"a": 1})"});
  p.send(other, Record{std::nullopt, R"({"b": 2})"});
  p.flush();
  const auto tables = "tables:\n  \"" + plain + "\": {columns: from_schema}\n";
  auto r = krow({"sync", write_manifest({plain, other}, registry_yaml() + tables)});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;  // partial: the other table went on
  EXPECT_NE((r.out + r.err).find("no schema for subject " + plain + "-value: register the topic's value schema"),
            std::string::npos)
      << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("or drop `columns: from_schema`"), std::string::npos);
  EXPECT_EQ(probe().count(table_of(other)), 1);
  EXPECT_FALSE(probe().has_table(table_of(plain)));
  r = krow({"sync", write_manifest({plain}, tables, "none.yaml")});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("the manifest configures none: set registry.url"), std::string::npos) << r.err;
}

TEST_P(TypedColumns, MissingColumnsAreAddedOtherDifferencesStop) {
  const auto topic = unique_name("typed-evolve");
  produce_typed(topic);
  const auto manifest = typed_manifest(topic);
  sync_ok(manifest);
  const auto table = target(table_of(topic));
  // As if the table had been created before `note` and `score` were in the schema, with rows
  // already there.
  probe().execute("ALTER TABLE " + table + " DROP COLUMN note");
  probe().execute("ALTER TABLE " + table + " DROP COLUMN score");
  probe().execute("DELETE FROM " + table + " WHERE kafka_offset = 2");
  probe().set_position(topic, 0, 2);
  const auto plan = krow({"plan", manifest});
  EXPECT_NE(
      plan.out.find(traits().add_column_ddl(table_of(topic), "score") + krow_type(L::float64)),
      std::string::npos)
      << plan.out;
  sync_ok(manifest);
  // `score` (in every message: not nullable) and `note` are back, now the table's last
  // columns; the row read again fills every column, older rows hold NULL there.
  auto rows = rows_of("SELECT kafka_offset, note, CAST(score AS VARCHAR), status, CAST(tags AS VARCHAR) FROM " + table +
                      " ORDER BY kafka_offset");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][1], std::nullopt);
  EXPECT_EQ(rows[0][2], std::nullopt);
  EXPECT_EQ(rows[2], (std::vector<Cell>{"2", std::nullopt, traits().whole_float_text(3), "misfit",
                                        stored_json(Cell(R"(["x"])"))}));
  const auto order = column_order(table_of(topic));
  EXPECT_NE(order.find(",tags,score,note"), std::string::npos) << order;
  // A column of another type stops the table, naming the field and both types.
  for (const auto& sql : traits().retype_column(table, "status", krow_type(L::int32)))
    probe().execute(sql);
  const auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(
      (r.out + r.err)
          .find("field status: column status is " + krow_type(L::int32) + " in the table but " +
                krow_type(L::text) + " (string) in the latest value schema (a changed type)"),
      std::string::npos)
      << r.out << r.err;
}

TEST_P(TypedColumns, StrategiesStagedPublishAndFullResyncKeepTypedColumns) {
  const auto latest = unique_name("typed-latest");
  const auto staged = unique_name("typed-staged");
  const auto refresh = unique_name("typed-refresh");
  produce_typed(latest);
  produce_typed(staged);
  produce_typed(refresh);
  const auto manifest = write_manifest(
      {latest, staged, refresh}, registry_yaml() + "tables:\n  \"" + latest +
                                     "\": {strategy: latest_by_key, columns: from_schema}\n  \"" + staged +
                                     "\": {columns: from_schema}\n  \"" + refresh +
                                     "\": {strategy: full_refresh, columns: from_schema}\nquality:\n  publish: staged\n");
  sync_ok(manifest);
  expect_typed_values(table_of(latest));
  expect_typed_values(table_of(staged));
  expect_typed_values(table_of(refresh));
  sync_ok(manifest);  // the full_refresh table is replaced by the same rows
  expect_typed_values(table_of(refresh));
  const auto r = krow({"resync", "--full", manifest});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_typed_values(table_of(latest));
  expect_typed_values(table_of(staged));
  expect_typed_values(table_of(refresh));
  // Without staging: a full resync merges through the per-table stage.
  const auto plain = write_manifest({staged}, registry_yaml() + "tables:\n  \"" + staged + "\": {columns: from_schema}\n",
                                    "plain.yaml");
  const auto again = krow({"resync", "--full", plain});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  expect_typed_values(table_of(staged));
}

// A staged first run blocked by its gate creates neither its typed tables nor the schema; the
// run that passes creates them with the planned columns (and, latest_by_key, the key's
// index) in the transaction that publishes their rows.
TEST_P(TypedColumns, AStagedFirstRunBlockedByItsGateCreatesNoTypedTable) {
  const auto inferred = make_topic("typed-staged-infer");
  const auto latest = make_topic("typed-staged-latest");
  Producer p(bootstrap_);
  for (const auto& topic : {inferred, latest}) {
    p.send(topic, Record{"k1", R"({"n": 1, "s": "a"})"});
    p.send(topic, Record{"k2", R"({"n": 2, "s": "b"})"});
    p.send(topic, Record{"k1", R"({"n": 3, "s": "c"})"});
  }
  p.flush();
  const std::string rules = "tables:\n  \"" + inferred + "\": {columns: infer}\n  \"" + latest +
                            "\": {strategy: latest_by_key, columns: infer}\n";
  const auto blocked = write_manifest(
      {inferred, latest},
      rules +
          "quality:\n  publish: staged\n  gates:\n    - {id: huge, type: min_rows, min: 1000}\n",
      "blocked.yaml");
  const auto r = krow({"sync", blocked});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_FALSE(probe().has_table(table_of(inferred)));
  EXPECT_FALSE(probe().has_table(table_of(latest)));
  EXPECT_FALSE(probe().has_schema());
  EXPECT_TRUE(probe().positions().empty());

  const auto passing = write_manifest(
      {inferred, latest},
      rules + "quality:\n  publish: staged\n  gates:\n    - {id: some, type: min_rows, min: 3}\n",
      "passing.yaml");
  sync_ok(passing);
  for (const auto& topic : {inferred, latest}) {
    EXPECT_EQ(column_type(table_of(topic), "n"), catalog_type(L::int64)) << topic;
    EXPECT_EQ(column_type(table_of(topic), "s"), catalog_type(L::text)) << topic;
  }
  EXPECT_EQ(rows_of("SELECT CAST(n AS VARCHAR), s FROM " + target(table_of(inferred)) +
                    " ORDER BY kafka_offset"),
            (Rows{{"1", "a"}, {"2", "b"}, {"3", "c"}}));
  EXPECT_EQ(rows_of("SELECT CAST(n AS VARCHAR), s FROM " + target(table_of(latest)) +
                    " ORDER BY kafka_offset"),
            (Rows{{"2", "b"}, {"3", "c"}}));
  // The next batches go through the same typed columns.
  p.send(latest, Record{"k2", R"({"n": 4, "s": "d"})"});
  p.flush();
  sync_ok(write_manifest({inferred, latest}, rules + "quality:\n  publish: staged\n", "next.yaml"));
  EXPECT_EQ(rows_of("SELECT CAST(n AS VARCHAR), s FROM " + target(table_of(latest)) +
                    " ORDER BY kafka_offset"),
            (Rows{{"3", "c"}, {"4", "d"}}));
}

void TypedColumns::evolve(const std::string& format, const std::string& name_type, const std::string& variant_42,
                          const std::string& variant_minus_1, const Cell& note_of_4) {
  const auto topic = unique_name("typed-" + format + "-evolve");
  const auto table = table_of(topic);
  produce(format + "-evolve-v1", topic);
  const auto manifest = typed_manifest(topic);
  sync_ok(manifest);
  EXPECT_EQ(column_type(table, "value__id"), catalog_type(L::int32));
  EXPECT_EQ(column_type(table, "name"), catalog_type(L::text));
  EXPECT_EQ(column_type(table, "qty"), catalog_type(L::int32));
  EXPECT_EQ(column_type(table, "price"), catalog_type(L::float32));
  if (format == "avro") {
    EXPECT_EQ(column_type(table, "amount"), catalog_type(L::decimal, 6, 2));
  }

  // v2: fields added, int and float widened. The plan shows the DDL the sync then runs.
  produce(format + "-evolve-v2", topic);
  const auto plan = krow({"plan", manifest});
  const auto at = "\"" + table + "\" ";
  const auto json = krow({"plan", manifest, "--format", "json"});
  if (traits().one_type_per_kind) {
    // INT64, FLOAT64 and NUMERIC hold the wider values already: nothing to widen.
    EXPECT_EQ(plan.out.find("widen column"), std::string::npos) << plan.out;
  } else {
    EXPECT_NE(
        plan.out.find("widen column qty " + krow_type(L::int32) + " -> " + krow_type(L::int64)),
        std::string::npos)
        << plan.out;
    EXPECT_NE(plan.out.find(at + "ALTER COLUMN \"qty\" " + traits().alter_type(L::int64)),
              std::string::npos)
        << plan.out;
    EXPECT_NE(plan.out.find(at + "ALTER COLUMN \"price\" " + traits().alter_type(L::float64)),
              std::string::npos)
        << plan.out;
    EXPECT_NE(
        json.out.find(R"("kind":"widen","column":"qty","of":"qty","from":")" + krow_type(L::int32) +
                      R"(","to":")" + krow_type(L::int64) + R"(","ddl":true)"),
        std::string::npos)
        << json.out;
  }
  EXPECT_NE(plan.out.find(traits().add_column_ddl(table, "note") + krow_type(L::text)),
            std::string::npos)
      << plan.out;
  EXPECT_NE(json.out.find(R"("ddl":["ALTER TABLE )"), std::string::npos) << json.out;
  sync_ok(manifest);
  EXPECT_EQ(column_type(table, "qty"), catalog_type(L::int64));
  EXPECT_EQ(column_type(table, "price"), catalog_type(L::float64));
  EXPECT_EQ(column_type(table, "note"), catalog_type(L::text));
  if (format == "avro") {
    // DECIMAL precision up, same scale: widened too, every stored value kept.
    EXPECT_EQ(column_type(table, "amount"), catalog_type(L::decimal, 10, 2));
    EXPECT_EQ(rows_of("SELECT " + decimal_text("amount", 2) + " FROM " + target(table) +
                      " ORDER BY kafka_offset"),
              (Rows{{"1234.56"}, {"-0.01"}, {"12345678.90"}, {"0.00"}}));
  }
  const auto values = [&] {
    return rows_of("SELECT CAST(value__id AS VARCHAR), name, CAST(qty AS VARCHAR), CAST(CAST(price * 100 AS BIGINT) AS "
                   "VARCHAR), note, decode_error FROM " + target(table) + " ORDER BY kafka_offset");
  };
  const Rows v2 = {{"1", "a", "10", "150", std::nullopt, std::nullopt},
                   {"2", "b", "-3", "25", std::nullopt, std::nullopt},
                   {"3", "c", "9007199254740993", "10", "n", std::nullopt},
                   {"4", "d", "1", "200", note_of_4, std::nullopt}};
  EXPECT_EQ(values(), v2);

  // v3: `name` becomes a number. The table stops, naming the field and both types; nothing of
  // it is written.
  produce(format + "-evolve-v3", topic);
  const auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err)
                .find("field name: column name is " + krow_type(L::text) + " in the table but " +
                      name_type + " in the latest value schema (a changed type)"),
            std::string::npos)
      << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("on_breaking: variant"), std::string::npos);
  EXPECT_EQ(values(), v2);

  // With on_breaking: variant, the values of `name` go to __krow_nc__name (JSON); `name` stays,
  // NULL in the new rows. The run record says which column went where.
  const auto variant = typed_manifest(topic, "columns: from_schema, on_breaking: variant", "variant.yaml");
  const auto vplan = krow({"plan", variant});
  EXPECT_NE(vplan.out.find(traits().add_column_ddl(table, "__krow_nc__name") + krow_type(L::json)),
            std::string::npos)
      << vplan.out;
  sync_ok(variant);
  EXPECT_EQ(column_type(table, "__krow_nc__name"), catalog_type(L::json));
  EXPECT_EQ(rows_of("SELECT name, CAST(__krow_nc__name AS VARCHAR), decode_error FROM " + target(table) +
                    " ORDER BY kafka_offset"),
            (Rows{{"a", std::nullopt, std::nullopt},
                  {"b", std::nullopt, std::nullopt},
                  {"c", std::nullopt, std::nullopt},
                  {"d", std::nullopt, std::nullopt},
                  {std::nullopt, variant_42, std::nullopt},
                  {std::nullopt, variant_minus_1, std::nullopt}}));
  simdjson::dom::parser parser;
  const auto record = parser.parse(probe().run_records().at(0));
  simdjson::dom::element change = record["tables"].at(0)["column_changes"].at(0);
  EXPECT_EQ(std::string(change["kind"].get_string().value()), "variant");
  EXPECT_EQ(std::string(change["column"].get_string().value()), "__krow_nc__name");
  EXPECT_EQ(std::string(change["of"].get_string().value()), "name");
  EXPECT_EQ(std::string(change["from"].get_string().value()), krow_type(L::text));
  // The next run finds the variant column there and goes on with it.
  sync_ok(variant);
  EXPECT_EQ(probe().count(table), 6);
}

TEST_P(TypedColumns, AvroSchemaEvolutionAddsWidensAndRefusesOrIsolatesABreakingChange) {
  evolve("avro", krow_type(L::int32) + " (int)", "42", "-1", std::nullopt);
}

TEST_P(TypedColumns, ProtobufSchemaEvolutionAddsWidensAndRefusesOrIsolatesABreakingChange) {
  // Protobuf 64-bit integers are JSON strings in the value (docs/row-contract.md), and so in the variant
  // column; proto3 strings are never missing (the empty string is written).
  evolve("protobuf", krow_type(L::int64) + " (int64)", stored_json(Cell(R"("42")")).value(),
         stored_json(Cell(R"("-1")")).value(), Cell(""));
}

TEST_P(TypedColumns, JsonSchemaEvolutionAddsWidensAndRefusesOrIsolatesABreakingChange) {
  // A field a message leaves out is NULL (v2's message 4 has no note).
  evolve("json-schema", krow_type(L::int64) + " (integer)", "42", "-1", std::nullopt);
}

// Three schema versions whose new fields have the names of existing columns (scenario
// avro-collide-v1..3 of produce.py): a top-level `a__b` beside the flattened a.b, `name` beside
// `Name` (one name to DuckDB), then a.c and `A__B`. Each field keeps the column it was first
// given; each new one gets a column of its own, and every row's values are the ones the
// serializer was given. The same with on_breaking: variant, which must change nothing here.
TEST_P(TypedColumns, AFieldKeepsItsColumnWhenLaterVersionsAddCollidingNames) {
  for (const std::string breaking : {"fail", "variant"}) {
    SCOPED_TRACE("on_breaking: " + breaking);
    const auto topic = unique_name("typed-collide-" + breaking);
    const auto table = table_of(topic);
    const auto manifest =
        typed_manifest(topic, "columns: from_schema, on_breaking: " + breaking, breaking + ".yaml");
    produce("avro-collide-v1", topic);
    sync_ok(manifest);

    produce("avro-collide-v2", topic);
    const auto plan = krow({"plan", manifest});
    ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
    EXPECT_NE(plan.out.find("(field a__b; not a__b, which is another field's column"),
              std::string::npos)
        << plan.out;
    EXPECT_NE(plan.out.find("(field name; not name, which is another field's column"),
              std::string::npos)
        << plan.out;
    sync_ok(manifest);
    // The run record names the column each new field got, and the name it could not have.
    simdjson::dom::parser parser;
    const auto record = parser.parse(probe().run_records().at(0));
    std::map<std::string, std::string> wanted;  // column -> the name it wanted
    for (simdjson::dom::element change : record["tables"].at(0)["column_changes"].get_array()) {
      if (std::string_view(change["kind"].get_string().value()) != "add") continue;
      std::string_view w;
      if (change["wanted"].get(w) == simdjson::SUCCESS)
        wanted[std::string(change["column"].get_string().value())] = w;
    }
    EXPECT_EQ(wanted.size(), 2u);

    produce("avro-collide-v3", topic);
    sync_ok(manifest);

    // The new fields' columns, found in the table: one each, named after the field with a suffix.
    std::map<std::string, std::string> of;  // field -> column
    for (const auto& [name, type] : probe().column_types(table)) {
      for (const std::string field : {"a__b", "name", "A__B"})
        if (name.size() == field.size() + 9 && name.rfind(field + "_", 0) == 0) {
          EXPECT_EQ(of.count(field), 0u) << name;
          of[field] = name;
        }
    }
    ASSERT_EQ(of.size(), 3u);
    EXPECT_EQ(wanted.count(of["a__b"]), 1u);
    EXPECT_EQ(wanted.count(of["name"]), 1u);
    const auto types = probe().column_types(table);
    EXPECT_EQ(types.at("a__b"), catalog_type(L::text));
    EXPECT_EQ(types.at(of["A__B"]), catalog_type(L::int64));
    EXPECT_EQ(types.at("a__c"), catalog_type(L::int32));
    EXPECT_EQ(types.count("__krow_nc__a__b") + types.count("__krow_nc__Name"), 0u);
    const auto q = [](const std::string& c) { return "\"" + c + "\""; };
    EXPECT_EQ(
        rows_of("SELECT CAST(n AS VARCHAR), a__b, " + q("Name") + ", " + q(of["a__b"]) + ", " +
                q(of["name"]) + ", CAST(a__c AS VARCHAR), CAST(" + q(of["A__B"]) +
                " AS VARCHAR), decode_error FROM " + target(table) + " ORDER BY kafka_offset"),
        (Rows{
            {"1", "b1", "N1", std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt},
            {"2", "b2", "N2", std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt},
            {"3", "b3", "N3", "top3", "lower3", std::nullopt, std::nullopt, std::nullopt},
            {"4", "b4", "N4", std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt},
            {"5", "b5", "N5", "top5", "lower5", "55", "9007199254740993", std::nullopt},
            {"6", "b6", "N6", std::nullopt, std::nullopt, std::nullopt, std::nullopt,
             std::nullopt}}));
    // Nothing left to change: the next run plans no change at all.
    const auto again = krow({"plan", manifest, "--format", "json"});
    EXPECT_NE(again.out.find(R"("changes":[])"), std::string::npos) << again.out;
  }
}

// JSON Schema values with integers beyond 64 bits and RFC 3339 times with zones (scenario
// json-schema-edges): only the integer that does not fit is NULL, with the reason; the rest of
// the row is filled; a JSON column keeps such a number exactly; zoned times are stored as
// their UTC time of day.
TEST_P(TypedColumns, IntegersBeyond64BitsEmptyOnlyTheirCellAndZonedTimesFit) {
  const auto topic = unique_name("typed-edges");
  produce("json-schema-edges", topic);
  sync_ok(typed_manifest(topic));
  const auto table = table_of(topic);
  EXPECT_EQ(column_type(table, "value__id"), catalog_type(L::int64));
  EXPECT_EQ(column_type(table, "at"), catalog_type(L::time));
  const auto rows = rows_of(
      "SELECT CAST(value__id AS VARCHAR), name, CAST(\"at\" AS VARCHAR), decode_error FROM " +
      target(table) + " ORDER BY kafka_offset");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0][0], std::nullopt);
  EXPECT_EQ(rows[0][1], Cell("x"));
  EXPECT_EQ(rows[0][2], Cell("13:45:00"));
  ASSERT_TRUE(rows[0][3]);
  EXPECT_EQ(*rows[0][3],
            "column value__id (" + krow_type(L::int64) + "): got 1180591620717411303424");
  EXPECT_EQ(rows[1][0], std::nullopt);
  EXPECT_EQ(rows[1][1], Cell("y"));
  EXPECT_EQ(rows[1][2], Cell("11:45:00"));
  ASSERT_TRUE(rows[1][3]);
  EXPECT_EQ(*rows[1][3],
            "column value__id (" + krow_type(L::int64) + "): got -18446744073709551616");
  EXPECT_EQ(rows[2], (std::vector<Cell>{"7", "z", "06:45:30.25", std::nullopt}));
  EXPECT_EQ(rows[3], (std::vector<Cell>{"9223372036854775807", "w", "23:59:59", std::nullopt}));
  // The JSON column and the value keep the big numbers exactly.
  EXPECT_EQ(
      rows_of("SELECT CAST(doc AS VARCHAR) FROM " + target(table) + " WHERE kafka_offset = 0"),
      (Rows{{stored_json(Cell(R"({"big":-18446744073709551616,"n":1})"))}}));
  EXPECT_EQ(
      rows_of("SELECT " + value_field("id") + " FROM " + target(table) + " WHERE kafka_offset = 0"),
      (Rows{{"1180591620717411303424"}}));
}

TEST_P(TypedColumns, InferenceReadsIntegersBeyond64BitsIntoAJsonColumn) {
  const auto topic = make_topic("typed-infer-big");
  Producer p(bootstrap_);
  p.send(topic, Record{"k1", R"({"a": 4, "big": 1180591620717411303424})"});
  p.send(topic, Record{"k2", R"({"a": 5, "big": 1})"});
  p.flush();
  sync_ok(write_manifest({topic}, "tables:\n  \"" + topic + "\": {columns: infer}\n"));
  const auto table = table_of(topic);
  EXPECT_EQ(column_type(table, "a"), catalog_type(L::int64));
  EXPECT_EQ(column_type(table, "big"), catalog_type(L::json));
  EXPECT_EQ(rows_of("SELECT CAST(a AS VARCHAR), CAST(big AS VARCHAR), decode_error FROM " +
                    target(table) + " ORDER BY kafka_offset"),
            (Rows{{"4", "1180591620717411303424", std::nullopt}, {"5", "1", std::nullopt}}));
}

// Column contracts (`contract:`) on plain JSON: the declared columns and types in the catalog,
// values that fit stored, misfits (strict) NULL with a note and counted by a decode-error
// gate; with `enforce: coerce` the lossless ones converted, and `empty_strings: null`.
TEST_P(TypedColumns, AColumnContractTypesPlainJsonStrictlyOrCoercing) {
  const auto topic = make_topic("contract");
  {
    Producer p(bootstrap_);
    p.send(topic, Record{std::nullopt, std::string(R"({"id": 1, "amount": "12.50", "at": "2026-03-01T10:00:00Z", "note": "a"})")});
    p.send(topic, Record{std::nullopt, std::string(R"({"id": "x", "amount": 7.25, "at": "2026-03-01", "note": 5})")});
    p.send(topic, Record{std::nullopt, std::string(R"({"id": "3", "amount": "7", "note": ""})")});
    p.flush();
  }
  const std::string contract = "    contract:\n      columns:\n        order_id: {type: bigint, from: id}\n        amount: decimal(12,2)\n"
                               "        placed_at: {type: timestamp, from: at}\n        note: text\n";
  const auto strict = write_manifest(
      {topic}, "tables:\n  \"" + topic + "\":\n" + contract +
                   "quality:\n  gates:\n    - {id: contract, type: max_decode_errors, max: 0, severity: error}\n");
  const auto plan = krow({"plan", strict});
  EXPECT_NE(plan.out.find("columns from the contract; contract: enforce strict, empty strings kept"), std::string::npos)
      << plan.out;
  EXPECT_NE(plan.out.find("amount " + krow_type(L::decimal, 12, 2) + "  (amount; contract decimal(12,2))"),
            std::string::npos)
      << plan.out;
  // The gate counts the misfits: the run is committed (per batch) and exits 4.
  auto r = krow({"sync", strict});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  const auto table = table_of(topic);
  const auto types = probe().column_types(table);
  EXPECT_EQ(types.at("order_id"), catalog_type(L::int64));
  EXPECT_EQ(types.at("amount"), catalog_type(L::decimal, 12, 2));
  EXPECT_EQ(types.at("placed_at"), catalog_type(L::timestamp));
  EXPECT_EQ(types.at("note"), catalog_type(L::text));
  const auto rows = rows_of("SELECT CAST(order_id AS BIGINT), " + decimal_text("amount", 2) + ", " + epoch_ms("placed_at") +
                            ", note, decode_error FROM " + target(table) + " ORDER BY kafka_offset");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<Cell>{"1", "12.50", "1772359200000", "a", std::nullopt}));
  // Strict: none of the second message's values is its column's type as it is.
  EXPECT_EQ(rows[1][0], std::nullopt);
  EXPECT_EQ(rows[1][1], std::nullopt);
  EXPECT_EQ(rows[1][2], std::nullopt);
  EXPECT_EQ(rows[1][3], std::nullopt);
  ASSERT_TRUE(rows[1][4]);
  for (const auto* column : {"column order_id", "column amount", "column placed_at", "column note"})
    EXPECT_NE(rows[1][4]->find(column), std::string::npos) << *rows[1][4];
  // "3" is how decoders write 64-bit integers: strict takes it; "" stays "" in text.
  EXPECT_EQ(rows[2], (std::vector<Cell>{"3", "7.00", std::nullopt, "", std::nullopt}));

  // The same messages through a coercing contract that reads "" as NULL.
  const auto coerce = write_manifest(
      {topic}, "tables:\n  \"" + topic + "\":\n" + contract + "      enforce: coerce\n      empty_strings: null\n",
      "coerce.yaml");
  r = krow({"plan", coerce});
  EXPECT_NE(r.out.find("contract: enforce coerce, empty strings NULL"), std::string::npos) << r.out;
  probe().execute("DROP TABLE " + target(table));
  probe().set_position(topic, 0, 0);
  r = krow({"sync", coerce});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto coerced = rows_of("SELECT CAST(order_id AS BIGINT), " + decimal_text("amount", 2) + ", " + epoch_ms("placed_at") +
                               ", note, decode_error FROM " + target(table) + " ORDER BY kafka_offset");
  ASSERT_EQ(coerced.size(), 3u);
  // "x" is no number whatever the mode; 7.25, the date alone and 5 convert losslessly.
  EXPECT_EQ(coerced[1][0], std::nullopt);
  EXPECT_EQ(coerced[1][1], Cell("7.25"));
  EXPECT_EQ(coerced[1][2], Cell("1772323200000"));
  EXPECT_EQ(coerced[1][3], Cell("5"));
  ASSERT_TRUE(coerced[1][4]);
  EXPECT_NE(coerced[1][4]->find("column order_id"), std::string::npos) << *coerced[1][4];
  EXPECT_EQ(coerced[1][4]->find("column amount"), std::string::npos) << *coerced[1][4];
  EXPECT_EQ(coerced[2][3], std::nullopt);  // empty_strings: null
}

// A contract over a schema's columns: the declared type replaces the schema's mapping (a
// string field as a timestamp), and plan shows both.
TEST_P(TypedColumns, AContractOverridesWhatTheSchemaWouldGive) {
  const auto topic = make_topic("contract-schema");
  {
    Producer p(bootstrap_);
    p.send(topic, Record{std::nullopt, std::string(R"({"id": 1, "seen": "2026-03-01T10:00:00Z"})")});
    p.send(topic, Record{std::nullopt, std::string(R"({"id": 2, "seen": "soon"})")});
    p.flush();
  }
  const auto manifest = write_manifest(
      {topic}, "tables:\n  \"" + topic + "\":\n    columns: infer\n    contract: {columns: {seen: timestamp}}\n");
  const auto plan = krow({"plan", manifest});
  EXPECT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  EXPECT_NE(plan.out.find("(seen; contract timestamp; inferred: text"), std::string::npos) << plan.out;
  sync_ok(manifest);
  const auto table = table_of(topic);
  const auto types = probe().column_types(table);
  EXPECT_EQ(types.at("seen"), catalog_type(L::timestamp));
  EXPECT_EQ(types.at("value__id"), catalog_type(L::int64));
  const auto rows = rows_of("SELECT " + epoch_ms("seen") + ", decode_error FROM " + target(table) + " ORDER BY kafka_offset");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], Cell("1772359200000"));
  EXPECT_EQ(rows[1][0], std::nullopt);
  ASSERT_TRUE(rows[1][1]);
  EXPECT_NE(rows[1][1]->find("column seen"), std::string::npos) << *rows[1][1];
}

INSTANTIATE_TEST_SUITE_P(Engines, TypedColumns, KROW_ENGINES);

}  // namespace
}  // namespace krow::testkit
