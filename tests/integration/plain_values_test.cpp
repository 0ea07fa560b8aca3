// Plain payloads on a real broker, on every warehouse engine: every column of docs/row-contract.md
// for JSON, text, binary and empty values, null and binary keys, UTF-8 and non-UTF-8
// headers, tombstones, the size limit, both timestamp types, and JSON that an engine's JSON
// type cannot hold.

#include <chrono>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class PlainValues : public EngineTest {};

TEST_P(PlainValues, EveryColumnMatchesTheContract) {
  const auto topic = make_topic("plain");
  Producer p(bootstrap_);
  // A producer's own timestamp, an hour ago with a millisecond part: a fixed date would fall
  // out of the broker's 7-day retention one week after it was written, and the records with it.
  const int64_t ts = (std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count() - 3600) * 1000 + 123;
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
  const auto rows = probe().rows(table_of(topic));
  ASSERT_EQ(rows.size(), 8u);
  const auto topic_id = rows[0].topic_id;
  ASSERT_EQ(topic_id.size(), 22u);
  EXPECT_EQ(topic_id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
            std::string::npos);
  EXPECT_NE(plan.out.find("\"topic_id\":\"" + topic_id + "\""), std::string::npos) << plan.out;

  const Cell N;
  struct Want {
    Cell key, key_format, value, value_format, value_base64;
    int64_t size;
    Cell headers;
    bool tombstone;
  };
  const std::vector<Want> want = {
      {"k-json", "string", " {\"a\": [1, 2.5, \"x\"], \"big\": 123456789012345678901234567890}\n", "json", N, 61, "[]",
       false},
      {N, N, "\"hello \\\"world\\\"\\tline\\n\"", "string", N, 19, "[]", false},
      {"AAH+", "binary", N, "binary", "AQL/", 3, "[]", false},
      {"k-empty", "string", "\"\"", "string", N, 0, "[]", false},
      {"k-long", "string", N, "binary", "AAAAAAAAACo=", 8, "[]", false},
      {"k-tomb", "string", N, N, N, 0, "[]", true},
      {"{\"id\": 7}", "json", "42", "json", N, 2,
       "[{\"key\":\"utf8\",\"value\":\"café\"},{\"key\":\"bin\",\"value_base64\":\"//4=\"},"
       "{\"key\":\"nul\",\"value\":null},{\"key\":\"utf8\",\"value\":\"again\"}]",
       false},
  };
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("offset " + std::to_string(i));
    const auto& r = rows[i];
    const auto& w = want[i];
    EXPECT_EQ(r.id, topic_id + ":0:" + std::to_string(i));
    EXPECT_EQ(r.topic_id, topic_id);
    EXPECT_EQ(r.partition, 0);
    EXPECT_EQ(r.offset, static_cast<int64_t>(i));
    EXPECT_EQ(r.timestamp_ms, ts);
    EXPECT_EQ(r.timestamp_type, Cell("create_time"));
    EXPECT_EQ(r.key, w.key);
    EXPECT_EQ(r.key_format, w.key_format);
    EXPECT_EQ(r.key_schema_id, std::nullopt);
    EXPECT_EQ(r.value, stored_json(w.value));
    EXPECT_EQ(r.value_format, w.value_format);
    EXPECT_EQ(r.value_schema_id, std::nullopt);
    EXPECT_EQ(r.value_base64, w.value_base64);
    EXPECT_EQ(r.value_size_bytes, w.size);
    EXPECT_EQ(r.headers, stored_json(w.headers));
    EXPECT_EQ(r.is_tombstone, w.tombstone);
    EXPECT_EQ(r.decode_error, N);
  }

  // A framed-looking value with no registry configured: kept raw for a later full resync.
  const auto& framed = rows[7];
  EXPECT_EQ(framed.value_format, Cell("schema_registry"));
  EXPECT_EQ(framed.value_schema_id, 7);
  EXPECT_EQ(framed.value_base64, Cell("AAAAAAdwYXlsb2Fk"));
  EXPECT_EQ(framed.value, N);
  ASSERT_TRUE(framed.decode_error.has_value());
  EXPECT_NE(framed.decode_error->find("no schema registry"), std::string::npos);

  // The columns have the engine's types for the contract's logical types: JSON columns are
  // real JSON to the engine.
  const auto types = probe().column_types(table_of(topic));
  const std::map<std::string, Logical> expected = {{"id", Logical::text},
                                                   {"kafka_partition", Logical::int32},
                                                   {"kafka_offset", Logical::int64},
                                                   {"kafka_timestamp", Logical::timestamp},
                                                   {"value", Logical::json},
                                                   {"headers", Logical::json},
                                                   {"is_tombstone", Logical::boolean},
                                                   {"value_schema_id", Logical::int32}};
  EXPECT_EQ(types.size(), 17u);
  for (const auto& [column, type] : expected)
    EXPECT_EQ(types.at(column), traits().column_type(type)) << column;
}

TEST_P(PlainValues, OversizedValueIsNotStoredButCounted) {
  const auto topic = make_topic("big");
  Producer p(bootstrap_);
  p.send(topic, Record{std::string("small"), std::string(100, 'a')});
  p.send(topic, Record{std::string("large"), std::string(5000, 'b')});
  p.flush();
  sync_ok(write_manifest({topic}, "limits:\n  max_value_bytes: 1KiB\n"));
  const auto rows = probe().rows(table_of(topic));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].value_format, Cell("string"));
  EXPECT_EQ(rows[1].value_format, Cell());
  EXPECT_EQ(rows[1].value, Cell());
  EXPECT_EQ(rows[1].value_base64, Cell());
  EXPECT_EQ(rows[1].value_size_bytes, 5000);
  ASSERT_TRUE(rows[1].decode_error);
  EXPECT_NE(rows[1].decode_error->find("size limit of 1024 bytes"), std::string::npos) << *rows[1].decode_error;
}

TEST_P(PlainValues, LogAppendTimeIsTheBrokersTimestamp) {
  const auto topic = make_topic("logtime", 1, {{"message.timestamp.type", "LogAppendTime"}});
  Producer p(bootstrap_);
  p.send(topic, Record{std::nullopt, std::string("{}"), {}, 0, 1000});  // producer time ignored by the broker
  p.flush();
  sync_ok(write_manifest({topic}));
  const auto rows = probe().rows(table_of(topic));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].timestamp_type, Cell("log_append_time"));
  EXPECT_GT(rows[0].timestamp_ms.value_or(0), 1000000000000);
}

// Valid JSON that PostgreSQL's jsonb cannot hold is still stored, as its JSON text in a JSON
// string with the reason; DuckDB's JSON type keeps it as it is. Nothing is lost either way.
TEST_P(PlainValues, JsonTheEngineCannotHoldIsKeptWithTheReason) {
  const auto topic = make_topic("jsonb-limits");
  Producer p(bootstrap_);
  const std::vector<std::string> values = {
      R"({"name":"a\u0000b"})",      // U+0000
      R"({"half":"\ud83d"})",        // an unpaired surrogate
      R"({"huge":1e999999})",        // beyond numeric's range
      R"({"fine":"\ud83d\ude00"})",  // a pair: one character, fine everywhere
  };
  for (const auto& v : values) p.send(topic, Record{std::nullopt, v});
  p.send(topic, Record{std::nullopt, std::string("{}"), {{"h", std::string("x\0y", 3)}}});  // NUL in a header
  p.flush();
  sync_ok(write_manifest({topic}));
  const auto rows = probe().rows(table_of(topic));
  ASSERT_EQ(rows.size(), 5u);
  // The text a JSON string holds of `json`: the message, exactly.
  auto as_string = [](const std::string& json) {
    std::string quoted = "\"";
    for (char c : json) {
      if (c == '"' || c == '\\') quoted.push_back('\\');
      quoted.push_back(c);
    }
    return quoted + "\"";
  };
  // What the engine's JSON type does with each of the first three (JsonFit::either: the local
  // emulator keeps what the real service refuses): a value it refuses is a JSON string holding
  // the message whole, with the reason; one it keeps is stored as the engine stores JSON.
  const auto& json = traits().json;
  const JsonFit fits[] = {json.nul, json.unpaired_surrogate, json.huge_number};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(values[i]);
    if (fits[i] == JsonFit::refused) {
      EXPECT_EQ(rows[i].value_format, Cell("string"));
    }
    const bool refused = fits[i] == JsonFit::refused ||
                         (fits[i] == JsonFit::either && rows[i].value_format == Cell("string"));
    if (refused) {
      // The text is all there: the JSON string holds exactly the message.
      EXPECT_EQ(rows[i].value, Cell(as_string(values[i])));
      ASSERT_TRUE(rows[i].decode_error);
      EXPECT_NE(rows[i].decode_error->find(json.refusal_note), std::string::npos)
          << *rows[i].decode_error;
    } else {
      EXPECT_EQ(rows[i].value, stored_json(values[i]));
      if (fits[i] == JsonFit::kept) {
        EXPECT_EQ(rows[i].value_format, Cell("json"));
      }
      EXPECT_EQ(rows[i].decode_error, Cell());
    }
  }
  EXPECT_EQ(rows[3].value, stored_json(values[3]));
  EXPECT_EQ(rows[3].value_format, Cell("json"));
  EXPECT_EQ(rows[3].decode_error, Cell());
  // U+0000 in a header: a JSON type that refuses it gets the headers as their JSON text in a
  // JSON string, with a note; the value is stored as it is.
  const std::string headers = R"([{"key":"h","value":"x\u0000y"}])";
  if (json.nul == JsonFit::refused) {
    EXPECT_EQ(rows[4].value, Cell("{}"));
    ASSERT_TRUE(rows[4].decode_error);
    EXPECT_NE(rows[4].decode_error->find("headers stored as their JSON text"), std::string::npos);
    EXPECT_EQ(rows[4].headers, Cell(as_string(headers)));
  } else {
    EXPECT_EQ(rows[4].headers, stored_json(headers));
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, PlainValues, KROW_ALL_ENGINES);

}  // namespace
}  // namespace krow::testkit
