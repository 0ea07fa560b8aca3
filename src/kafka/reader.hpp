#pragma once
// Reads given partitions from given offsets into one queue. It uses librdkafka's simple
// (partition) consumer: no consumer group is ever involved, so nothing is joined,
// committed or looked up for a group while reading. Positions are krow's own and are
// stored in the warehouse with the rows they describe.
//
// Thread: one thread (the reading thread) for the object's whole life.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kafka/client.hpp"
#include "kafka/handles.hpp"
#include "kafka/message.hpp"
#include "util/ids.hpp"

namespace krow::kafka {

// Prefetch memory is one budget (16 MiB) shared by the partitions being fetched at once, at
// least one fetch (1 MiB, max.partition.fetch.bytes) each: the least that keeps a partition
// reading at full speed. So at most this many partitions are fetched at once; the others
// wait for one of them to finish.
size_t max_fetching_partitions();

// The prefetch memory (librdkafka's queued.max.messages.kbytes, which applies per partition)
// to give each of `partitions` partitions fetched at once: the budget shared by all of them.
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
