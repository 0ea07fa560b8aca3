// Plain payloads on a real broker: every column of SPEC.md §3 for JSON, text, binary and
// empty values, null and binary keys, UTF-8 and non-UTF-8 headers, tombstones, the size
// limit, and both timestamp types.

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

using Row = std::vector<Cell>;

class PlainValues : public SyncTest {};

TEST_F(PlainValues, EveryColumnMatchesTheContract) {
  const auto topic = make_topic("plain");
  Producer p(bootstrap_);
  const int64_t ts = 1767225600123;  // 2026-01-01T00:00:00.123Z
  auto send = [&](std::optional<std::string> key, std::optional<std::string> value, std::vector<Header> h = {}) {
    Record r{std::move(key), std::move(value), std::move(h), 0, ts};
    p.send(topic, r);
  };
  send("k-json", std::string(" {\"a\": [1, 2.5, \"x\"], \"big\": 123456789012345678901234567890}\n"));
  send(std::nullopt, std::string("hello \"world\"\tline\n"));
  send(std::string("\x00\x01\xfe", 3), std::string("\x01\x02\xff", 3));
  send("k-empty", std::string());
  send("k-long", std::string("\x00\x00\x00\x00\x00\x00\x00\x2a", 8));
  send("k-tomb", std::nullopt);
  send("{\"id\": 7}", std::string("42"),
       {{"utf8", std::string("caf\xc3\xa9")}, {"bin", std::string("\xff\xfe", 2)}, {"nul", std::nullopt},
        {"utf8", std::string("again")}});
  send("k-framed", std::string("\x00\x00\x00\x00\x07payload", 12));
  p.flush();

  const auto manifest = write_manifest({topic});
  sync_ok(manifest);

  const auto plan = krow({"plan", manifest, "--format", "json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const auto topic_id = sql1("SELECT DISTINCT kafka_topic_id FROM " + table_of(topic));
  ASSERT_EQ(topic_id.size(), 22u);
  EXPECT_EQ(topic_id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
            std::string::npos);
  EXPECT_NE(plan.out.find("\"topic_id\":\"" + topic_id + "\""), std::string::npos) << plan.out;

  const auto r = sql(
      "SELECT id, kafka_partition::VARCHAR, kafka_offset::VARCHAR, epoch_ms(kafka_timestamp)::VARCHAR, "
      "kafka_timestamp_type, key, key_format, key_schema_id, value, value_format, value_schema_id, value_base64, "
      "value_size_bytes, headers, is_tombstone::VARCHAR, decode_error FROM " + table_of(topic) + " ORDER BY kafka_offset");
  ASSERT_EQ(r.rows.size(), 8u);
  const std::string ts_s = std::to_string(ts);
  auto id = [&](int off) { return topic_id + ":0:" + std::to_string(off); };
  const Cell N;
  const std::vector<Row> want = {
      {id(0), "0", "0", ts_s, "create_time", "k-json", "string", N,
       " {\"a\": [1, 2.5, \"x\"], \"big\": 123456789012345678901234567890}\n", "json", N, N, "61", "[]", "false", N},
      {id(1), "0", "1", ts_s, "create_time", N, N, N, "\"hello \\\"world\\\"\\tline\\n\"", "string", N, N, "19", "[]",
       "false", N},
      {id(2), "0", "2", ts_s, "create_time", "AAH+", "binary", N, N, "binary", N, "AQL/", "3", "[]", "false", N},
      {id(3), "0", "3", ts_s, "create_time", "k-empty", "string", N, "\"\"", "string", N, N, "0", "[]", "false", N},
      {id(4), "0", "4", ts_s, "create_time", "k-long", "string", N, N, "binary", N, "AAAAAAAAACo=", "8", "[]", "false",
       N},
      {id(5), "0", "5", ts_s, "create_time", "k-tomb", "string", N, N, N, N, N, "0", "[]", "true", N},
      {id(6), "0", "6", ts_s, "create_time", "{\"id\": 7}", "json", N, "42", "json", N, N, "2",
       "[{\"key\":\"utf8\",\"value\":\"café\"},{\"key\":\"bin\",\"value_base64\":\"//4=\"},"
       "{\"key\":\"nul\",\"value\":null},{\"key\":\"utf8\",\"value\":\"again\"}]",
       "false", N},
  };
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r.rows[i], want[i]) << "row " << i;

  // A framed-looking value with no registry configured: kept raw for a later full resync.
  const auto& framed = r.rows[7];
  EXPECT_EQ(framed[9], Cell("schema_registry"));
  EXPECT_EQ(framed[10], Cell("7"));
  EXPECT_EQ(framed[11], Cell("AAAAAAdwYXlsb2Fk"));
  EXPECT_EQ(framed[8], N);
  ASSERT_TRUE(framed[15].has_value());
  EXPECT_NE(framed[15]->find("no schema registry"), std::string::npos);

  // The JSON columns are real JSON to DuckDB.
  EXPECT_EQ(sql1("SELECT value->>'$.a[2]' FROM " + table_of(topic) + " WHERE kafka_offset = 0"), "x");
  EXPECT_EQ(sql1("SELECT headers->>'$[1].value_base64' FROM " + table_of(topic) + " WHERE kafka_offset = 6"), "//4=");
  EXPECT_EQ(sql1("SELECT typeof(value) || ',' || typeof(headers) FROM " + table_of(topic) + " LIMIT 1"), "JSON,JSON");
}

TEST_F(PlainValues, OversizedValueIsNotStoredButCounted) {
  const auto topic = make_topic("big");
  Producer p(bootstrap_);
  p.send(topic, Record{std::string("small"), std::string(100, 'a')});
  p.send(topic, Record{std::string("large"), std::string(5000, 'b')});
  p.flush();
  sync_ok(write_manifest({topic}, "limits:\n  max_value_bytes: 1KiB\n"));
  const auto r = sql("SELECT key, value_format, value IS NULL, value_base64 IS NULL, value_size_bytes, decode_error FROM " +
                     table_of(topic) + " ORDER BY kafka_offset");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0][1], Cell("string"));
  EXPECT_EQ(r.rows[1][1], Cell());
  EXPECT_EQ(r.rows[1][2], Cell("true"));
  EXPECT_EQ(r.rows[1][3], Cell("true"));
  EXPECT_EQ(r.rows[1][4], Cell("5000"));
  ASSERT_TRUE(r.rows[1][5]);
  EXPECT_NE(r.rows[1][5]->find("size limit of 1024 bytes"), std::string::npos) << *r.rows[1][5];
}

TEST_F(PlainValues, LogAppendTimeIsTheBrokersTimestamp) {
  const auto topic = make_topic("logtime", 1, {{"message.timestamp.type", "LogAppendTime"}});
  Producer p(bootstrap_);
  p.send(topic, Record{std::nullopt, std::string("{}"), {}, 0, 1000});  // producer time ignored by the broker
  p.flush();
  sync_ok(write_manifest({topic}));
  const auto r = sql("SELECT kafka_timestamp_type, epoch_ms(kafka_timestamp) > 1000000000000 FROM " + table_of(topic));
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][0], Cell("log_append_time"));
  EXPECT_EQ(r.rows[0][1], Cell("true"));
}

}  // namespace
}  // namespace krow::testkit
