// The fault-injection suite's fixture: topics of the three kinds (JSON, Avro through the
// registry, transactional with aborted transactions between), manifests for them, and the
// tally of a table against an independent consumer, message by message. Short form by
// default; KROW_CHAOS_LONG=1 (scripts/chaos.sh) gives the long form. Each scenario reports
// one line and appends it to $KROW_CHAOS_REPORT when set.
#pragma once

#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "sync_fixture.hpp"

namespace krow::testkit {

inline bool long_form() {
  const char* v = std::getenv("KROW_CHAOS_LONG");
  return v && *v && std::string(v) != "0";
}
inline int scaled(int short_value, int long_value) {
  return long_form() ? long_value : short_value;
}

// What a scenario found, against the independent consumer.
struct Tally {
  int64_t expected = 0, found = 0, duplicated = 0, lost = 0, differing = 0;
  Tally& operator+=(const Tally& o) {
    expected += o.expected, found += o.found, duplicated += o.duplicated, lost += o.lost,
        differing += o.differing;
    return *this;
  }
};

inline void report(const std::string& injected, int times, const Tally& t) {
  char line[512];
  std::snprintf(line, sizeof line, "%s\t%d\t%lld\t%lld\t%lld\t%lld\t%lld", injected.c_str(), times,
                static_cast<long long>(t.expected), static_cast<long long>(t.found),
                static_cast<long long>(t.duplicated), static_cast<long long>(t.lost),
                static_cast<long long>(t.differing));
  std::printf("[chaos] %s\n", line);
  if (const char* path = std::getenv("KROW_CHAOS_REPORT"); path && *path)
    std::ofstream(path, std::ios::app) << line << "\n";
}

// The event_id of a bench Avro order, read from the Confluent frame without krow's code:
// magic byte, 4-byte schema ID, then the first field, a zig-zag varint.
inline int64_t avro_event_id(const std::string& frame) {
  uint64_t z = 0;
  for (size_t i = 5, shift = 0; i < frame.size(); ++i, shift += 7) {
    z |= static_cast<uint64_t>(static_cast<unsigned char>(frame[i]) & 0x7f) << shift;
    if (!(static_cast<unsigned char>(frame[i]) & 0x80)) break;
  }
  return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
}

class Chaos : public SyncTest {
 protected:
  struct Topic {
    std::string name;
    bool avro = false;
  };

  // The three kinds of topic of one sync: JSON, Avro through the registry, transactional
  // JSON with aborted transactions between the committed ones.
  std::vector<Topic> make_topics(int json, int avro, int transactional) {
    std::vector<Topic> out;
    const auto j = make_topic("chaos-json", 4);
    Producer p(bootstrap_, {},
               {{"linger.ms", "50"},
                {"compression.type", "lz4"},
                {"queue.buffering.max.kbytes", "1048576"}});
    for (int i = 0; i < json; ++i)
      p.send(j, Record{"k" + std::to_string(i % 997), "{\"n\": " + std::to_string(i) +
                                                          ", \"pad\": \"" + std::string(150, 'c') +
                                                          "\"}"});
    p.flush();
    out.push_back({j, false});

    const auto a = unique_name("chaos-avro");
    std::ostringstream body;
    body << "{\"schema\": \"";
    std::ifstream avsc(source_dir() + "/bench/order.avsc");
    std::stringstream text;
    text << avsc.rdbuf();
    simdjson::dom::parser parser;
    for (char c : simdjson::minify(parser.parse(text.str()).value()))
      body << (c == '"' ? "\\\"" : std::string(1, c));
    body << "\"}";
    std::ofstream(dir() / "schema.json") << body.str();
    const std::string curl =
        "curl -sf -X POST -H 'Content-Type: application/vnd.schemaregistry.v1+json' --data-binary "
        "@" +
        (dir() / "schema.json").string() + " http://127.0.0.1:" + registry_http_port() +
        "/apis/ccompat/v7/subjects/" + a + "-value/versions";
    FILE* f = popen(curl.c_str(), "r");
    char answer[512] = {};
    const size_t n = f ? fread(answer, 1, sizeof answer - 1, f) : 0;
    if (!f || pclose(f) != 0 || n == 0)
      throw std::runtime_error("registering the Avro schema failed: " + curl);
    const int64_t schema_id = int64_t(parser.parse(std::string(answer, n))["id"]);
    const std::string produce = std::string(KROW_BENCH_PRODUCE) + " " + bootstrap_ + " " + a + " " +
                                std::to_string(avro) + " 2 --avro " + std::to_string(schema_id) +
                                " >/dev/null";
    if (std::system(produce.c_str()) != 0)
      throw std::runtime_error("producing Avro failed: " + produce);
    delete_after_test(a);
    out.push_back({a, true});

    const auto t = make_topic("chaos-tx", 2);
    Producer tx(bootstrap_, unique_name("chaos-txid"), {{"linger.ms", "20"}});
    for (int i = 0; i < transactional;) {
      tx.begin();
      for (int k = 0; k < 500 && i < transactional; ++k, ++i)
        tx.send(t, Record{"t" + std::to_string(i % 31), "{\"tx\": " + std::to_string(i) + "}"});
      tx.commit();
      tx.begin();  // an aborted one: its messages must never show up
      for (int k = 0; k < 50; ++k)
        tx.send(t, Record{std::nullopt, std::string("{\"aborted\": true}")});
      // Written to the log before the abort (otherwise they are only purged from the
      // producer, and a broker with transactions v2 may refuse to abort what it never saw).
      tx.flush();
      tx.abort();
    }
    out.push_back({t, false});
    return out;
  }

  static std::string registry_http_port() {
    const char* p = std::getenv("KROW_REGISTRY_HTTP_PORT");
    return p && *p ? p : "18081";
  }

  std::string registry_yaml() {
    set_env("KROW_TEST_REGISTRY_SECRET", "registry-secret");
    const char* u = std::getenv("KROW_TEST_REGISTRY");
    return std::string("registry:\n  url: ") + (u && *u ? u : "https://127.0.0.1:8081") +
           "\n  username: registry\n  password: ${KROW_TEST_REGISTRY_SECRET}\n  ca_file: " +
           services_dir() + "/registry/tls/ca.pem\n";
  }

  std::string manifest_for(const std::vector<Topic>& topics, int batch) {
    std::vector<std::string> names;
    for (const auto& t : topics) names.push_back(t.name);
    return write_manifest(
        names, "batch:\n  max_messages: " + std::to_string(batch) + "\n" + registry_yaml());
  }

  // Rows of `topic` against an independent consumer: every (partition, offset) once, with
  // the key and the value the consumer read.
  Tally tally(const Topic& topic) {
    Tally t;
    const auto oracle = consume_all(bootstrap_, topic.name);
    const auto rows = probe().rows(table_of(topic.name));
    t.expected = static_cast<int64_t>(oracle.size());
    t.found = static_cast<int64_t>(rows.size());
    std::map<std::pair<int32_t, int64_t>, const StoredRow*> stored;
    for (const auto& r : rows)
      if (!stored.emplace(std::make_pair(r.partition, r.offset), &r).second) ++t.duplicated;
    std::vector<Cell> values;
    for (const auto& c : oracle) values.push_back(c.value);
    const auto canonical = topic.avro ? values : probe().canonical_json(values);
    simdjson::dom::parser parser;
    for (size_t i = 0; i < oracle.size(); ++i) {
      const auto it = stored.find({oracle[i].partition, oracle[i].offset});
      if (it == stored.end()) {
        ++t.lost;
        continue;
      }
      const StoredRow& r = *it->second;
      bool same = r.key == oracle[i].key && !r.decode_error;
      if (same && topic.avro) {
        int64_t id = -1;
        same = r.value && !parser.parse(*r.value)["event_id"].get(id) &&
               id == avro_event_id(*oracle[i].value);
      } else if (same) {
        same = r.value == canonical[i];
      }
      t.differing += !same;
    }
    // Rows the consumer does not know (aborted messages, offsets beyond the topic).
    t.differing += static_cast<int64_t>(stored.size()) - (t.expected - t.lost);
    return t;
  }

  Tally tally(const std::vector<Topic>& topics) {
    Tally all;
    for (const auto& t : topics) all += tally(t);
    return all;
  }

  // krow audit, run as a user would after the chaos, proves every table: each retained message
  // once, and a sample of them decoded again equal to their rows.
  void expect_audit_proves(const std::string& manifest) {
    const auto r = krow({"audit", manifest, "--sample", "2000", "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("\"clean\":true"), std::string::npos) << r.out;
  }

  void expect_exact(const Tally& t) {
    EXPECT_GT(t.expected, 0);
    EXPECT_EQ(t.found, t.expected);
    EXPECT_EQ(t.duplicated, 0);
    EXPECT_EQ(t.lost, 0);
    EXPECT_EQ(t.differing, 0);
  }

  // Kills `args` with SIGKILL after a random delay, `times` times; true for kills that
  // landed while it ran. Checks after each kill that no table holds an id twice.
  int kill_repeatedly(const std::vector<std::string>& args, const std::vector<Topic>& topics,
                      int times, int max_delay_ms) {
    std::mt19937 rng(static_cast<unsigned>(std::random_device{}()));
    std::uniform_int_distribution<int> delay(30, max_delay_ms);
    int landed = 0;
    for (int i = 0; i < times; ++i) {
      const pid_t pid = start_krow(args);
      std::this_thread::sleep_for(std::chrono::milliseconds(delay(rng)));
      int status = 0;
      landed += waitpid(pid, &status, WNOHANG) == 0;
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      for (const auto& t : topics) {
        const auto table = table_of(t.name);
        if (probe().has_table(table)) {
          EXPECT_EQ(probe().distinct_ids(table), probe().count(table)) << "after kill " << i;
        }
      }
    }
    return landed;
  }
};

// A producer thread writing all along, until stop() or destruction: `per_round` JSON messages
// to `json` every `pause` (keys k0 … k<per_round - 1>), and when `tx` is not empty a transaction
// of 20 messages to it each round, with an aborted one every fifth round. A failure (say, the
// broker down longer than a flush waits) ends the thread and is kept for what().
class SteadyProducer {
 public:
  SteadyProducer(const std::string& bootstrap, const std::string& json, const std::string& tx,
                 int per_round, std::chrono::milliseconds pause)
      : thread_([=, this] {
          try {
            Producer p(bootstrap, {}, {{"linger.ms", "5"}});
            std::unique_ptr<Producer> t;
            if (!tx.empty())
              t = std::make_unique<Producer>(
                  bootstrap, unique_name("chaos-steady-txid"),
                  std::map<std::string, std::string>{{"linger.ms", "5"}});
            for (int64_t i = 0; producing_.load(); ++i) {
              for (int k = 0; k < per_round; ++k)
                p.send(json, Record{"k" + std::to_string(k),
                                    "{\"n\": " + std::to_string(i * per_round + k) + "}"});
              p.flush();
              if (t) {
                t->begin();
                for (int k = 0; k < 20; ++k)
                  t->send(tx, Record{std::nullopt, "{\"tx\": " + std::to_string(i * 20 + k) + "}"});
                t->commit();
                if (i % 5 == 0) {
                  t->begin();
                  t->send(tx, Record{std::nullopt, std::string("{\"aborted\": true}")});
                  t->flush();
                  t->abort();
                }
              }
              std::this_thread::sleep_for(pause);
            }
          } catch (const std::exception& e) {
            failure_ = e.what();
          }
        }) {}
  SteadyProducer(const SteadyProducer&) = delete;
  SteadyProducer& operator=(const SteadyProducer&) = delete;
  ~SteadyProducer() { stop(); }

  // Stops producing; what was sent is flushed. Empty, or why production ended early.
  const std::string& stop() {
    producing_.store(false);
    if (thread_.joinable()) thread_.join();
    return failure_;
  }

 private:
  std::atomic<bool> producing_{true};
  std::string failure_;
  std::thread thread_;
};

}  // namespace krow::testkit
