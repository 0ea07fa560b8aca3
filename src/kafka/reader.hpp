#pragma once
// Reads given partitions from given offsets into one queue. It uses librdkafka's simple
// (partition) consumer: no consumer group is ever involved, so nothing is joined,
// committed or looked up for a group while reading. Positions are krow's own and are
// stored in the warehouse with the rows they describe.
//
// Thread: one thread (the reading thread) for the object's whole life.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kafka/client.hpp"
#include "kafka/handles.hpp"
#include "kafka/message.hpp"
#include "util/ids.hpp"

namespace krow::kafka {

// Prefetch memory: messages queued for the reader, and fetch responses on their way.
// - The queue: librdkafka checks queued.max.messages.kbytes per partition, but measures a
//   partition that forwards into a shared queue (as every partition of a Reader does) by the
//   size of that shared queue, so the setting bounds the whole queue.
// - Fetch responses: each partition in a fetch may bring up to max.partition.fetch.bytes
//   (1 MiB). Left alone, librdkafka fetches every started partition at once, up to
//   fetch.max.bytes (50 MiB) per broker: memory that grows with the partition and broker
//   count. So at most max_fetching_partitions() partitions are started at once (16, one
//   16 MiB budget of fetches); the others wait for one of them to finish.
size_t max_fetching_partitions();

// The queue bound (queued.max.messages.kbytes) for a reader fetching `partitions` at once:
// the 16 MiB budget shared out, down to one fetch per partition, the least that keeps a
// partition reading at full speed.
int prefetch_kib_per_partition(size_t partitions);

class Reader {
 public:
  // Fetches nothing until start() is called.
  explicit Reader(Client& client);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Appends up to `max` messages (or error events, such as partition EOF) to `out`,
  // waiting at most `timeout_ms` for the first one.
  size_t poll(std::vector<Message>& out, size_t max, int timeout_ms);

  // Starts fetching a partition at its position (`next`). Throws on a partition librdkafka
  // refuses.
  void start(const Position& position);

  // Fetches a partition again from `next`, after librdkafka stopped it (an offset out of
  // range, which the reader reports instead of resetting: see Client).
  void restart(const TopicPartition& partition, Offset next);

  // Stops fetching a partition (it reached its boundary, or its table stopped).
  void stop(const TopicPartition& partition);

  // The end of a partition being fetched (its high watermark) as the last fetch answer said;
  // none before the first one. Asks nothing of the cluster.
  std::optional<Offset> end_of(const TopicPartition& partition) const;

 private:
  // Stops what is running and frees the handles; safe to call twice.
  void release() noexcept;

  Client& client_;
  QueuePtr queue_;
  std::map<std::string, rd_kafka_topic_t*> topics_;              // owned topic handles
  std::map<TopicPartition, bool> running_;                       // partitions being fetched
  std::vector<rd_kafka_message_t*> scratch_;
};

}  // namespace krow::kafka
