// bench-produce: fills a topic quickly with N JSON messages of about 350 bytes, each with a
// key and a header, for benchmarks. Usage:
//   bench-produce BOOTSTRAP TOPIC MESSAGES [PARTITIONS]
// Creates the topic (PARTITIONS, default 6) if it does not exist.

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "kafka_testkit.hpp"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bench-produce BOOTSTRAP TOPIC MESSAGES [PARTITIONS]\n");
    return 2;
  }
  const std::string bootstrap = argv[1], topic = argv[2];
  const long n = std::stol(argv[3]);
  const int partitions = argc > 4 ? std::stoi(argv[4]) : 6;
  try {
    krow::testkit::Admin(bootstrap).create_topic(topic, partitions);
    krow::testkit::Producer p(bootstrap, {},
                              {{"linger.ms", "50"}, {"batch.size", "1000000"}, {"compression.type", "lz4"},
                               {"queue.buffering.max.kbytes", "1048576"}});
    const auto t0 = std::chrono::steady_clock::now();
    std::string value;
    for (long i = 0; i < n; ++i) {
      value = "{\"event_id\": " + std::to_string(i) +
              ", \"type\": \"order_created\", \"customer\": {\"id\": " + std::to_string(i % 10007) +
              ", \"name\": \"Customer " + std::to_string(i % 10007) +
              "\", \"tier\": \"gold\"}, \"items\": [{\"sku\": \"SKU-" + std::to_string(i % 997) +
              "\", \"qty\": 2, \"price\": 19.99}, {\"sku\": \"SKU-" + std::to_string((i * 7) % 997) +
              "\", \"qty\": 1, \"price\": 5.25}], \"total\": 45.23, \"currency\": \"EUR\", "
              "\"created_at\": \"2026-12-01T12:34:56.789Z\", \"source\": \"web\", \"note\": \"benchmark payload\"}";
      krow::testkit::Record r{"customer-" + std::to_string(i % 10007), value, {{"trace-id", "t-" + std::to_string(i)}}};
      p.send(topic, r);
    }
    p.flush();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("produced %ld messages (%zu-byte values) to %s in %.2f s\n", n, value.size(), topic.c_str(), secs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-produce: %s\n", e.what());
    return 1;
  }
  return 0;
}
