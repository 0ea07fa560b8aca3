// bench-ceiling: the consume-only ceiling. Reads every partition of a topic up to its last
// stable offset with krow's own Kafka client and partition reader (as `krow sync` reads) and
// discards the messages. Prints messages, bytes, wall time and rates.
//   bench-ceiling BOOTSTRAP TOPIC

#include <chrono>
#include <cstdio>
#include <exception>

#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "sync/partition_reader.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench-ceiling BOOTSTRAP TOPIC\n");
    return 2;
  }
  try {
    const auto t0 = std::chrono::steady_clock::now();
    krow::SourceConfig source;
    source.bootstrap_servers = argv[1];
    krow::kafka::Client client(source, {});
    krow::kafka::Cluster cluster(client);
    const auto desc = cluster.describe({argv[2]});
    if (desc.empty() || desc[0].error) throw std::runtime_error("cannot describe the topic");
    std::vector<krow::TopicPartition> tps;
    for (const krow::Partition p : desc[0].partitions) tps.push_back({argv[2], p});
    std::vector<krow::ReadStart> starts;
    for (const auto& o : cluster.offsets(tps)) {
      krow::ReadStart r;
      r.start = {o.partition.topic, desc[0].topic_id, o.partition.partition, o.earliest};
      r.boundary = o.last_stable;
      r.read = o.last_stable > o.earliest;
      starts.push_back(std::move(r));
    }
    // As `krow sync`: planning on one client, reading on another through the same reader
    // (prefetch budget, partitions fetched at once, checks of the topic ID).
    struct Discard : krow::PartitionReader::Handler {
      int64_t messages = 0, bytes = 0;
      void on_message(size_t, const krow::kafka::Message& m) override {
        ++messages;
        bytes += static_cast<int64_t>(m.key_size() + m.value_size());
      }
      void on_topic_stopped(size_t, const std::string& error) override { throw std::runtime_error(error); }
      void on_topic_replaced(size_t, const std::string& error) override { throw std::runtime_error(error); }
      void on_gap(size_t, const krow::Gap&) override {}
    } counted;
    krow::PartitionReader reader(source, false, std::move(starts), std::chrono::seconds(300));
    while (reader.active() > 0) reader.poll(counted);
    reader.take_moved(counted);
    const int64_t messages = counted.messages, bytes = counted.bytes;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("ceiling: %lld messages, %.1f MB in %.2f s: %.0f messages/s, %.1f MB/s\n",
                static_cast<long long>(messages), static_cast<double>(bytes) / 1e6, secs,
                static_cast<double>(messages) / secs, static_cast<double>(bytes) / secs / 1e6);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-ceiling: %s\n", e.what());
    return 1;
  }
  return 0;
}
