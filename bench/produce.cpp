// bench-produce: fills a topic quickly with N order messages, each with a key and a header,
// for benchmarks: JSON text of about 350 bytes, or with --avro SCHEMA_ID the same orders
// in Avro (bench/order.avsc, registered beforehand) framed for the schema registry. With
// --pad BYTES, JSON orders carry a "pad" string of that many characters (large messages
// that fill many partitions quickly). With --rate PER_SECOND it produces at that steady rate
// instead (in 10 ms steps, lingering at most 5 ms) until MESSAGES are sent: the source of the
// freshness benchmark (bench/continuous.py), whose message timestamps are their produce times.
//   bench-produce BOOTSTRAP TOPIC MESSAGES [PARTITIONS] [--avro SCHEMA_ID] [--pad BYTES] [--rate
//   PER_SECOND]
// Creates the topic (PARTITIONS, default 6) if it does not exist.

#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <thread>

#include "kafka_testkit.hpp"

namespace {

struct Order {
  long id;
  long customer;
  long sku1, sku2;
};

std::string json_order(const Order& o) {
  return "{\"event_id\": " + std::to_string(o.id) + ", \"type\": \"order_created\", \"customer\": {\"id\": " +
         std::to_string(o.customer) + ", \"name\": \"Customer " + std::to_string(o.customer) +
         "\", \"tier\": \"gold\"}, \"items\": [{\"sku\": \"SKU-" + std::to_string(o.sku1) +
         "\", \"qty\": 2, \"price\": 19.99}, {\"sku\": \"SKU-" + std::to_string(o.sku2) +
         "\", \"qty\": 1, \"price\": 5.25}], \"total\": 45.23, \"currency\": \"EUR\", "
         "\"created_at\": \"2026-12-01T12:34:56.789Z\", \"source\": \"web\", \"note\": \"benchmark payload\"}";
}

// Avro binary encoding (zig-zag varints, length-prefixed strings, little-endian doubles).
class AvroWriter {
 public:
  explicit AvroWriter(std::string& out) : out_(out) {}
  void write_long(int64_t v) {
    auto z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    while (z >= 0x80) {
      out_.push_back(static_cast<char>((z & 0x7f) | 0x80));
      z >>= 7;
    }
    out_.push_back(static_cast<char>(z));
  }
  void write_string(std::string_view s) {
    write_long(static_cast<int64_t>(s.size()));
    out_.append(s);
  }
  void write_double(double d) {
    const auto bits = std::bit_cast<uint64_t>(d);
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>(bits >> (8 * i)));
  }

 private:
  std::string& out_;
};

// Confluent framing: magic byte 0, the schema ID big-endian, then the Avro body.
std::string avro_order(const Order& o, int32_t schema_id) {
  std::string out;
  out.push_back('\0');
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(schema_id >> shift));
  AvroWriter w(out);
  w.write_long(o.id);
  w.write_string("order_created");
  w.write_long(o.customer);
  w.write_string("Customer " + std::to_string(o.customer));
  w.write_string("gold");
  w.write_long(2);  // one block of two items, then the end of the array
  w.write_string("SKU-" + std::to_string(o.sku1));
  w.write_long(2);
  w.write_double(19.99);
  w.write_string("SKU-" + std::to_string(o.sku2));
  w.write_long(1);
  w.write_double(5.25);
  w.write_long(0);
  w.write_double(45.23);
  w.write_string("EUR");
  w.write_long(1796128496789);  // 2026-12-01T12:34:56.789Z
  w.write_string("web");
  w.write_string("benchmark payload");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: bench-produce BOOTSTRAP TOPIC MESSAGES [PARTITIONS] [--avro SCHEMA_ID] "
                 "[--pad BYTES] [--rate PER_SECOND]\n");
    return 2;
  }
  const std::string bootstrap = argv[1], topic = argv[2];
  const long n = std::stol(argv[3]);
  int partitions = 6;
  int32_t avro_schema_id = -1;
  std::string pad;
  double rate = 0;
  for (int i = 4; i < argc; ++i) {
    if (std::strcmp(argv[i], "--avro") == 0 && i + 1 < argc) avro_schema_id = std::stoi(argv[++i]);
    else if (std::strcmp(argv[i], "--pad") == 0 && i + 1 < argc) pad.assign(std::stoul(argv[++i]), 'p');
    else if (std::strcmp(argv[i], "--rate") == 0 && i + 1 < argc)
      rate = std::stod(argv[++i]);
    else partitions = std::stoi(argv[i]);
  }
  try {
    krow::testkit::Admin(bootstrap).create_topic(topic, partitions);
    krow::testkit::Producer p(bootstrap, {},
                              {{"linger.ms", rate > 0 ? "5" : "50"},
                               {"batch.size", "1000000"},
                               {"compression.type", "lz4"},
                               {"queue.buffering.max.kbytes", "1048576"}});
    const auto t0 = std::chrono::steady_clock::now();
    size_t value_bytes = 0;
    for (long i = 0; i < n; ++i) {
      // Paced: wait for the next 10 ms step once the messages due so far are sent.
      while (rate > 0 &&
             static_cast<double>(i) >=
                 rate *
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count())
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      const Order o{i, i % 10007, i % 997, (i * 7) % 997};
      std::string value = avro_schema_id < 0 ? json_order(o) : avro_order(o, avro_schema_id);
      if (!pad.empty() && avro_schema_id < 0) value.insert(value.size() - 1, ", \"pad\": \"" + pad + "\"");
      krow::testkit::Record r{"customer-" + std::to_string(o.customer), std::move(value),
                              {{"trace-id", "t-" + std::to_string(i)}}};
      value_bytes += r.value->size();
      p.send(topic, r);
    }
    p.flush();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("produced %ld %s messages (%.0f-byte values on average) to %s in %.2f s\n", n,
                avro_schema_id < 0 ? "JSON" : "Avro", n ? static_cast<double>(value_bytes) / n : 0.0, topic.c_str(),
                secs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-produce: %s\n", e.what());
    return 1;
  }
  return 0;
}
