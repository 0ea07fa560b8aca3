// Bounded runs on every warehouse engine, on topics of three partitions filled unevenly with
// explicit partitions: each bound (max_messages per run and per partition, until_offset,
// until, start_from latest and a time) stops or starts each partition where the plan says,
// and the next sync continues exactly there — checked against an independent consumer. A
// bound beyond the last stable offset is capped by it; bad flag values are refused.

#include <simdjson.h>

#include <ctime>
#include <functional>
#include <map>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Bounds : public EngineTest {
 protected:
  // `counts[p]` messages into partition p, {"p": p, "i": i}, stamped `stamp(p, i)` when given.
  void fill(const std::string& topic, const std::vector<int>& counts, int first = 0,
            const std::function<int64_t(int, int)>& stamp = nullptr) {
    Producer p(bootstrap_);
    for (int part = 0; part < static_cast<int>(counts.size()); ++part)
      for (int i = first; i < first + counts[part]; ++i) {
        Record r{"k" + std::to_string(i), "{\"p\": " + std::to_string(part) + ", \"i\": " + std::to_string(i) + "}"};
        r.partition = part;
        if (stamp) r.timestamp_ms = stamp(part, i);
        p.send(topic, r);
      }
    p.flush();
  }

  // Stored positions of `topic`, by partition.
  std::map<int32_t, int64_t> positions(const std::string& topic) {
    std::map<int32_t, int64_t> out;
    for (const auto& p : probe().positions())
      if (p.topic == topic) out[p.partition] = p.next_offset;
    return out;
  }

  // What an independent consumer reads of `topic` at offsets [from[p], to[p]) of each partition.
  std::vector<Consumed> oracle(const std::string& topic, const std::map<int32_t, int64_t>& to,
                               const std::map<int32_t, int64_t>& from = {}) {
    std::vector<Consumed> out;
    for (const auto& c : consume_all(bootstrap_, topic)) {
      const auto f = from.find(c.partition);
      if (c.offset < to.at(c.partition) && (f == from.end() || c.offset >= f->second)) out.push_back(c);
    }
    return out;
  }

  RunOutput sync(const std::string& manifest, std::vector<std::string> flags = {}) {
    flags.insert(flags.begin(), {"sync", manifest});
    auto r = krow(flags);
    EXPECT_EQ(r.exit_code, 0) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
    return r;
  }

  // Partition p's "boundary" and "bounded_by" in `krow plan --format json`.
  std::map<int32_t, std::pair<int64_t, std::string>> planned(const std::string& manifest,
                                                             std::vector<std::string> flags = {}) {
    flags.insert(flags.begin(), {"plan", manifest, "--format", "json"});
    const auto r = krow(flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<int32_t, std::pair<int64_t, std::string>> out;
    simdjson::dom::parser parser;
    simdjson::dom::element plan;
    if (parser.parse(r.out).get(plan)) {
      ADD_FAILURE() << "plan is not JSON: " << r.out;
      return out;
    }
    for (auto p : plan["topics"].at(0)["partitions"].get_array())
      out[static_cast<int32_t>(int64_t(p["partition"]))] = {int64_t(p["boundary"]),
                                                            std::string(std::string_view(p["bounded_by"]))};
    return out;
  }

  // `ms` as an ISO 8601 UTC time with milliseconds.
  static std::string iso(int64_t ms) {
    const std::time_t s = ms / 1000;
    std::tm tm{};
    gmtime_r(&s, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[48];
    std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms % 1000));
    return out;
  }

  // A whole second a day ago: inside what the broker accepts as a message timestamp.
  static int64_t a_day_ago() {
    return (static_cast<int64_t>(std::time(nullptr)) - 86400) * 1000;
  }
};

using Positions = std::map<int32_t, int64_t>;

TEST_P(Bounds, MaxMessagesPerRunIsSharedOutAndTheNextSyncContinuesExactly) {
  const auto topic = make_topic("bound-run", 3);
  fill(topic, {30, 20, 10});
  const auto manifest = write_manifest({topic}, "bounds:\n  max_messages: 25\n");
  const auto table = table_of(topic);

  // 25 over {30, 20, 10}: 8 each, the remaining one to partition 0.
  EXPECT_EQ(planned(manifest), (std::map<int32_t, std::pair<int64_t, std::string>>{
                                   {0, {9, "max_messages"}}, {1, {8, "max_messages"}}, {2, {8, "max_messages"}}}));
  const auto first = sync(manifest);
  EXPECT_NE(first.out.find(" 25 messages"), std::string::npos) << first.out;
  EXPECT_EQ(positions(topic), (Positions{{0, 9}, {1, 8}, {2, 8}}));
  EXPECT_EQ(differences(probe().rows(table), oracle(topic, positions(topic))), 0u);

  // 25 over what is left, {21, 12, 2}: partition 2 takes its 2, the others share 23.
  sync(manifest);
  EXPECT_EQ(positions(topic), (Positions{{0, 21}, {1, 19}, {2, 10}}));
  EXPECT_EQ(differences(probe().rows(table), oracle(topic, positions(topic))), 0u);

  // The last 10 fit in one run: the whole topic, each message once.
  sync(manifest);
  EXPECT_EQ(positions(topic), (Positions{{0, 30}, {1, 20}, {2, 10}}));
  const auto all = consume_all(bootstrap_, topic);
  ASSERT_EQ(all.size(), 60u);
  EXPECT_EQ(probe().count(table), 60);
  EXPECT_EQ(probe().distinct_ids(table), 60);
  EXPECT_EQ(differences(probe().rows(table), all), 0u);

  // The run record says which bounds applied and what each one set.
  simdjson::dom::parser parser;
  const auto records = probe().run_records();
  ASSERT_EQ(records.size(), 3u);
  simdjson::dom::element first_run = parser.parse(records.at(2));
  EXPECT_EQ(int64_t(first_run["bounds"]["max_messages"]), 25) << records.at(2);
  EXPECT_EQ(std::string_view(first_run["tables"].at(0)["partitions"].at(0)["bounded_by"]), "max_messages");
}

TEST_P(Bounds, MaxMessagesPerPartitionFlagOverridesTheManifest) {
  const auto topic = make_topic("bound-part", 3);
  fill(topic, {30, 20, 5});
  const auto manifest = write_manifest({topic}, "bounds:\n  max_messages_per_partition: 100\n");
  const auto table = table_of(topic);

  sync(manifest, {"--max-messages-per-partition", "7"});
  EXPECT_EQ(positions(topic), (Positions{{0, 7}, {1, 7}, {2, 5}}));
  EXPECT_EQ(differences(probe().rows(table), oracle(topic, positions(topic))), 0u);
  sync(manifest, {"--max-messages-per-partition", "7"});
  EXPECT_EQ(positions(topic), (Positions{{0, 14}, {1, 14}, {2, 5}}));
  // The manifest's 100 per partition reads the rest.
  sync(manifest);
  EXPECT_EQ(positions(topic), (Positions{{0, 30}, {1, 20}, {2, 5}}));
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);
}

TEST_P(Bounds, UntilOffsetStopsEveryPartitionThereAndTheLastStableOffsetCapsIt) {
  const auto topic = make_topic("bound-offset", 3);
  fill(topic, {30, 20, 10});
  const auto manifest = write_manifest({topic}, "bounds:\n  until_offset: 12\n");
  const auto table = table_of(topic);

  EXPECT_EQ(planned(manifest), (std::map<int32_t, std::pair<int64_t, std::string>>{
                                   {0, {12, "until_offset"}}, {1, {12, "until_offset"}}, {2, {10, "last_stable_offset"}}}));
  const auto text = krow({"plan", manifest});
  EXPECT_NE(text.out.find("partition 0: position new, boundary 12 (until_offset), last stable offset 30, to read 12"),
            std::string::npos)
      << text.out;
  sync(manifest);
  EXPECT_EQ(positions(topic), (Positions{{0, 12}, {1, 12}, {2, 10}}));
  EXPECT_EQ(differences(probe().rows(table), oracle(topic, positions(topic))), 0u);
  // Already there: nothing more to read under the same bound.
  const auto again = sync(manifest);
  EXPECT_NE(again.out.find(" 0 messages"), std::string::npos) << again.out;

  // Far beyond the log: the last stable offset caps it.
  EXPECT_EQ(planned(manifest, {"--until-offset", "1000000"}),
            (std::map<int32_t, std::pair<int64_t, std::string>>{
                {0, {30, "last_stable_offset"}}, {1, {20, "last_stable_offset"}}, {2, {10, "last_stable_offset"}}}));
  sync(manifest, {"--until-offset", "1000000"});
  EXPECT_EQ(positions(topic), (Positions{{0, 30}, {1, 20}, {2, 10}}));
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);
}

TEST_P(Bounds, ABoundBeyondAnOpenTransactionStopsAtTheLastStableOffset) {
  const auto topic = make_topic("bound-lso", 3);
  fill(topic, {10, 10, 10});
  Producer tx(bootstrap_, unique_name("bound-lso-tx"));
  tx.begin();
  for (int i = 0; i < 5; ++i) {
    Record r{std::nullopt, "{\"open\": " + std::to_string(i) + "}"};
    r.partition = 1;
    tx.send(topic, r);
  }
  tx.flush();
  const auto manifest = write_manifest({topic});
  const auto table = table_of(topic);

  // Partition 1 holds 15 offsets, but its last stable offset is 10 while the transaction is open.
  sync(manifest, {"--until-offset", "14", "--max-messages-per-partition", "100"});
  EXPECT_EQ(positions(topic), (Positions{{0, 10}, {1, 10}, {2, 10}}));
  EXPECT_EQ(probe().count(table), 30);

  tx.commit();
  sync(manifest);
  const auto all = consume_all(bootstrap_, topic);
  ASSERT_EQ(all.size(), 35u);
  EXPECT_EQ(differences(probe().rows(table), all), 0u);
}

TEST_P(Bounds, UntilATimeStopsAtTheFirstMessageStampedAtOrAfterIt) {
  const auto topic = make_topic("bound-until", 3);
  const int64_t base = a_day_ago();
  // Partition p's message i is stamped base + (i + p) s, so `until` base + 5 s falls at
  // offset 5 - p: the bound lands on a different offset in each partition.
  fill(topic, {10, 10, 10}, 0, [&](int p, int i) { return base + (i + p) * 1000; });
  const auto until = iso(base + 5000);
  const auto manifest = write_manifest({topic}, "bounds:\n  until: " + until + "\n");
  const auto table = table_of(topic);

  EXPECT_EQ(planned(manifest), (std::map<int32_t, std::pair<int64_t, std::string>>{
                                   {0, {5, "until"}}, {1, {4, "until"}}, {2, {3, "until"}}}));
  sync(manifest);
  EXPECT_EQ(positions(topic), (Positions{{0, 5}, {1, 4}, {2, 3}}));
  const auto rows = probe().rows(table);
  EXPECT_EQ(differences(rows, oracle(topic, positions(topic))), 0u);
  for (const auto& r : rows) EXPECT_LT(r.timestamp_ms.value_or(0), base + 5000) << r.partition << "/" << r.offset;

  // Past every message stamped so far: the last stable offset.
  sync(manifest, {"--until", iso(base + 3600 * 1000)});
  EXPECT_EQ(positions(topic), (Positions{{0, 10}, {1, 10}, {2, 10}}));
  EXPECT_EQ(differences(probe().rows(table), consume_all(bootstrap_, topic)), 0u);
}

TEST_P(Bounds, StartFromLatestSkipsWhatIsThereAndTheNextSyncGoesOnFromIt) {
  const auto topic = make_topic("bound-latest", 3);
  fill(topic, {10, 6, 3});
  const auto manifest = write_manifest({topic}, "bounds:\n  start_from: latest\n");
  const auto table = table_of(topic);

  const auto first = sync(manifest);
  EXPECT_NE(first.out.find(" 0 messages"), std::string::npos) << first.out;
  EXPECT_EQ(probe().count(table), 0);
  EXPECT_EQ(positions(topic), (Positions{{0, 10}, {1, 6}, {2, 3}}));

  fill(topic, {2, 3, 4}, 100);
  // start_from only applies to partitions with no stored position: `earliest` changes nothing now.
  sync(manifest, {"--start-from", "earliest"});
  EXPECT_EQ(positions(topic), (Positions{{0, 12}, {1, 9}, {2, 7}}));
  EXPECT_EQ(differences(probe().rows(table), oracle(topic, positions(topic), {{0, 10}, {1, 6}, {2, 3}})), 0u);

  // A partition added to the topic later is new to the sync as a whole: read from its start
  // even under `latest`, or its first messages would be lost.
  admin_.add_partitions(topic, 4);
  fill(topic, {0, 0, 0, 5}, 200);
  sync(manifest);
  EXPECT_EQ(positions(topic), (Positions{{0, 12}, {1, 9}, {2, 7}, {3, 5}}));
  EXPECT_EQ(differences(probe().rows(table),
                        oracle(topic, positions(topic), {{0, 10}, {1, 6}, {2, 3}, {3, 0}})),
            0u);
}

TEST_P(Bounds, StartFromATimeStartsAtTheFirstMessageStampedAtOrAfterIt) {
  const auto topic = make_topic("bound-start", 3);
  const int64_t base = a_day_ago();
  fill(topic, {10, 10, 10}, 0, [&](int p, int i) { return base + (i + p) * 1000; });
  // A time between two stamps: the first at or after it is base + 6 s, offset 6 - p.
  const auto manifest = write_manifest({topic}, "bounds:\n  start_from: " + iso(base + 5500) + "\n");
  const auto table = table_of(topic);

  // Later than every stamp: each partition starts at its end, with nothing to read.
  const auto late = krow({"plan", manifest, "--format", "json", "--start-from", iso(base + 3600 * 1000)});
  EXPECT_NE(late.out.find("\"start_offset\":10,\"started_by\":\"start_from_time\""), std::string::npos) << late.out;
  EXPECT_NE(late.out.find("\"messages_to_read\":0"), std::string::npos) << late.out;

  const auto text = krow({"plan", manifest});
  EXPECT_NE(text.out.find("partition 2: position new, start 4 (start_from " + iso(base + 5500) + ")"),
            std::string::npos)
      << text.out;
  sync(manifest);
  const Positions starts{{0, 6}, {1, 5}, {2, 4}};
  EXPECT_EQ(positions(topic), (Positions{{0, 10}, {1, 10}, {2, 10}}));
  EXPECT_EQ(differences(probe().rows(table), oracle(topic, positions(topic), starts)), 0u);
  EXPECT_EQ(probe().count(table), 15);

}

TEST_P(Bounds, BadFlagValuesAreRefusedNamingTheFlagAndTheFix) {
  const auto topic = make_topic("bound-bad", 3);
  const auto manifest = write_manifest({topic});
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases{
      {{"--max-messages=-3"}, "--max-messages: 'max_messages' must be a whole number of at least 1"},
      {{"--max-messages-per-partition", "ten"}, "--max-messages-per-partition: 'max_messages_per_partition' must be"},
      {{"--until-offset=-1"}, "--until-offset: 'until_offset' must be a whole number of at least 0"},
      {{"--until", "tomorrow"}, "e.g. 2026-03-01T12:00:00Z"},
      {{"--start-from", "beginning"}, "must be earliest, latest or an ISO 8601 time"},
  };
  for (const auto& c : cases) {
    for (const char* command : {"sync", "plan"}) {
      std::vector<std::string> args{command, manifest};
      args.insert(args.end(), c.args.begin(), c.args.end());
      const auto r = krow(args);
      EXPECT_EQ(r.exit_code, 3) << command << " " << c.args[0] << ": " << r.err;
      EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    }
  }
  EXPECT_FALSE(probe().has_table(table_of(topic)));
}

INSTANTIATE_TEST_SUITE_P(Engines, Bounds, KROW_ALL_ENGINES);

}  // namespace
}  // namespace krow::testkit
