// bench-ceiling: the consume-only ceiling. Reads every partition of a topic up to its last
// stable offset with krow's own Kafka client and reader (same settings as `krow sync`) and
// discards the messages. Prints messages, bytes, wall time and rates.
//   bench-ceiling BOOTSTRAP TOPIC

#include <chrono>
#include <cstdio>
#include <exception>
#include <map>

#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "kafka/reader.hpp"

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
    const auto offsets = cluster.offsets(tps);
    std::vector<krow::Position> assignments;
    std::map<krow::Partition, krow::Offset> boundary;
    size_t active = 0;
    for (const auto& o : offsets) {
      boundary[o.partition.partition] = o.last_stable;
      if (o.last_stable > o.earliest) {
        assignments.push_back({o.partition.topic, desc[0].topic_id, o.partition.partition, o.earliest});
        ++active;
      }
    }
    // As `krow sync`: planning on one client, reading on another sized for the partitions.
    krow::kafka::Client reading(source, {{}, krow::kafka::prefetch_kib_per_partition(assignments.size()), false});
    krow::kafka::Reader reader(reading, assignments);
    std::vector<krow::kafka::Message> batch;
    int64_t messages = 0, bytes = 0;
    std::map<krow::Partition, bool> done;
    while (done.size() < active) {
      batch.clear();
      reader.poll(batch, 1024, 100);
      for (auto& m : batch) {
        if (m.error()) {
          if (m.error() == RD_KAFKA_RESP_ERR__PARTITION_EOF && m.offset() >= boundary[m.partition()])
            done[m.partition()] = true;
          continue;
        }
        if (m.offset() >= boundary[m.partition()]) {
          done[m.partition()] = true;
          continue;
        }
        ++messages;
        bytes += static_cast<int64_t>(m.key_size() + m.value_size());
        if (m.offset().next() >= boundary[m.partition()]) done[m.partition()] = true;
      }
    }
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
