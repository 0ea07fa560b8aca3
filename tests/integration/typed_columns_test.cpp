// Typed tables (`columns: from_schema`) on the real broker and registry, with values written
// by Confluent's own Avro serializer (tests/reference/produce.py, scenario avro-typed): each
// typed column's stored value and type, flattened nested fields, a value that does not fit
// its column (NULL there, a note in decode_error, the row kept with its JSON), the table
// stopping when there is no schema, columns added to an existing table, and the strategies
// and publish modes that copy rows between tables. DuckDB only so far.

#include <array>
#include <cstdio>

#include "duckdb_query.hpp"
#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class TypedColumns : public SyncTest {
 protected:
  std::string ca() const { return services_dir() + "/registry/tls/ca.pem"; }

  // Produces scenario avro-typed (three messages) into `topic`.
  void produce_typed(const std::string& topic) {
    const std::string cmd = services_dir() + "/py/bin/python " + source_dir() +
                            "/tests/reference/produce.py --bootstrap " + bootstrap_ + " --registry " + registry_url() +
                            " --ca " + ca() + " avro-typed " + topic + " 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    ASSERT_NE(f, nullptr);
    std::string all;
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) all.append(buf.data(), n);
    ASSERT_EQ(pclose(f), 0) << all;
    delete_after_test(topic);
  }

  std::string registry_yaml() {
    set_env("KROW_TEST_REGISTRY_SECRET", "registry-secret");
    return "registry:\n  url: " + registry_url() +
           "\n  username: registry\n  password: ${KROW_TEST_REGISTRY_SECRET}\n  ca_file: " + ca() + "\n";
  }

  // The typed columns' values of `table`, as text, by offset.
  Rows typed_rows(const std::string& table) {
    return query(db(), "SELECT value__id, count, score, paid, status, CAST(amount AS VARCHAR), epoch_ms(placed_at), "
                       "CAST(day AS VARCHAR), customer__name, CAST(customer__since AS VARCHAR), CAST(tags AS VARCHAR), "
                       "note, decode_error, value->>'$.amount' FROM confluent.\"" + table + "\" ORDER BY kafka_offset")
        .rows;
  }

  void expect_typed_values(const std::string& table) {
    const auto rows = typed_rows(table);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0], (std::vector<Cell>{"7", "9007199254740993", "2.5", "true", "shipped", "-1234.50",
                                          "1709210096789", "2024-02-29", "Zoë", "1970-01-01", R"(["a","b"])", "fragile",
                                          std::nullopt, "-1234.50"}));
    EXPECT_EQ(rows[1], (std::vector<Cell>{"-2147483648", "-1", "-0.125", "false", "", "0.05", "-1", "1969-12-31", "",
                                          "1969-12-31", "[]", std::nullopt, std::nullopt, "0.05"}));
    // 123456789012.00 has 12 integer digits: more than DECIMAL(12,2) holds. The column is
    // NULL, decode_error says why, and the value keeps the exact digits.
    EXPECT_EQ(rows[2][0], Cell("1"));
    EXPECT_EQ(rows[2][5], std::nullopt);
    EXPECT_EQ(rows[2][12], Cell(R"(column amount (DECIMAL(12,2)): got "123456789012.00")"));
    EXPECT_EQ(rows[2][13], Cell("123456789012.00"));
  }
};

TEST_F(TypedColumns, AvroRecordIntoTypedColumns) {
  const auto topic = unique_name("typed-avro");
  produce_typed(topic);
  const auto manifest =
      write_manifest({topic}, registry_yaml() + "tables:\n  \"" + topic + "\": {columns: from_schema}\n");
  const auto plan = krow({"plan", manifest, "--format", "json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find(R"x("name":"amount","type":"DECIMAL(12,2)","column_type":"decimal")x"), std::string::npos)
      << plan.out;
  const auto text = krow({"plan", manifest});
  EXPECT_NE(text.out.find("customer__since DATE  (customer.since)"), std::string::npos) << text.out;

  const auto r = sync_ok(manifest);
  const auto table = table_of(topic);
  const auto types = probe().column_types(table);
  const std::map<std::string, std::string> want = {
      {"value__id", "INTEGER"},   {"count", "BIGINT"},     {"score", "DOUBLE"},
      {"paid", "BOOLEAN"},        {"status", "VARCHAR"},   {"amount", "DECIMAL(12,2)"},
      {"placed_at", "TIMESTAMP WITH TIME ZONE"},           {"day", "DATE"},
      {"customer__name", "VARCHAR"}, {"customer__since", "DATE"}, {"tags", "JSON"},
      {"note", "VARCHAR"},        {"value", "JSON"},       {"decode_error", "VARCHAR"}};
  for (const auto& [name, type] : want) EXPECT_EQ(types.count(name) ? types.at(name) : "(missing)", type) << name;
  EXPECT_EQ(types.size(), 17u + 12u);
  // The metadata columns stay first, in their order; the typed ones follow in schema order.
  const auto order = query(db(), "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM "
                                 "information_schema.columns WHERE table_name = '" + table + "'").rows;
  EXPECT_NE(order[0][0]->find("is_tombstone,decode_error,value__id,count,score"), std::string::npos) << *order[0][0];
  expect_typed_values(table);
  // A second run with nothing new leaves the table as it is.
  sync_ok(manifest);
  EXPECT_EQ(typed_rows(table).size(), 3u);
}

TEST_F(TypedColumns, NestedAsJson) {
  const auto topic = unique_name("typed-nested");
  produce_typed(topic);
  sync_ok(write_manifest({topic}, registry_yaml() + "tables:\n  \"" + topic +
                                      "\": {columns: from_schema, nested: json}\n"));
  const auto rows = query(db(), "SELECT CAST(customer AS VARCHAR), typeof(customer) FROM confluent.\"" +
                                    table_of(topic) + "\" ORDER BY kafka_offset").rows;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][0], Cell(R"({"name":"Zoë","since":"1970-01-01"})"));
  EXPECT_EQ(rows[0][1], Cell("JSON"));
}

TEST_F(TypedColumns, NoSubjectOrNoRegistryStopsTheTableNamingTheFix) {
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

TEST_F(TypedColumns, MissingNullableColumnsAreAddedOtherDifferencesStop) {
  const auto topic = unique_name("typed-evolve");
  produce_typed(topic);
  const auto manifest =
      write_manifest({topic}, registry_yaml() + "tables:\n  \"" + topic + "\": {columns: from_schema}\n");
  sync_ok(manifest);
  const auto table = "confluent.\"" + table_of(topic) + "\"";
  // As if the table had been created before `note` was in the schema, with rows already there.
  execute(db(), "ALTER TABLE " + table + " DROP COLUMN note");
  execute(db(), "DELETE FROM " + table + " WHERE kafka_offset = 2");
  execute(db(), "UPDATE _krow.positions SET next_offset = 2");
  sync_ok(manifest);
  // `note` is back, now the table's last column; the row read again fills every column.
  auto rows = query(db(), "SELECT kafka_offset, note, status, CAST(tags AS VARCHAR) FROM " + table +
                              " ORDER BY kafka_offset").rows;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][1], std::nullopt);  // rows stored before the column existed
  EXPECT_EQ(rows[2], (std::vector<Cell>{"2", std::nullopt, "misfit", R"(["x"])"}));
  // A column of another type stops the table, naming the column and both types.
  execute(db(), "ALTER TABLE " + table + " ALTER COLUMN score TYPE VARCHAR");
  const auto r = krow({"sync", manifest});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("column score is VARCHAR in the table but DOUBLE"), std::string::npos)
      << r.out << r.err;
  // A non-nullable column missing from an existing table stops it too.
  execute(db(), "ALTER TABLE " + table + " DROP COLUMN score");
  const auto s = krow({"sync", manifest});
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_NE((s.out + s.err).find("has no column score (DOUBLE)"), std::string::npos) << s.out << s.err;
}

TEST_F(TypedColumns, StrategiesStagedPublishAndFullResyncKeepTypedColumns) {
  const auto latest = unique_name("typed-latest");
  const auto staged = unique_name("typed-staged");
  produce_typed(latest);
  produce_typed(staged);
  const auto manifest = write_manifest(
      {latest, staged}, registry_yaml() + "tables:\n  \"" + latest +
                            "\": {strategy: latest_by_key, columns: from_schema}\n  \"" + staged +
                            "\": {columns: from_schema}\nquality:\n  publish: staged\n");
  sync_ok(manifest);
  expect_typed_values(table_of(latest));
  expect_typed_values(table_of(staged));
  const auto r = krow({"resync", "--full", manifest});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_typed_values(table_of(latest));
  expect_typed_values(table_of(staged));
  // Without staging: a full resync merges through the per-table stage.
  const auto plain = write_manifest({staged}, registry_yaml() + "tables:\n  \"" + staged + "\": {columns: from_schema}\n",
                                    "plain.yaml");
  const auto again = krow({"resync", "--full", plain});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  expect_typed_values(table_of(staged));
}

}  // namespace
}  // namespace krow::testkit
