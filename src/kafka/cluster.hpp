#pragma once
// What the cluster says about topics: names the key can describe, topic IDs, partitions,
// and offsets. All calls block up to their timeout and serve the client's callbacks.
//
// describe() and offsets() ask again, with backoff, while an answer is one that a moment
// fixes (kafka::is_retriable: a leader being elected, a broker still loading, a request that
// timed out), for up to the retry budget; then they give what they have.

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kafka/client.hpp"
#include "kafka/handles.hpp"
#include "util/ids.hpp"

namespace krow::kafka {

struct TopicDescription {
  std::string name;
  TopicId topic_id;
  std::vector<Partition> partitions;
  bool internal = false;
  bool can_read = true;  // the key holds READ (from the broker's authorized operations)
  rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;  // e.g. authorization failed
};

struct PartitionOffsets {
  TopicPartition partition;
  Offset earliest;     // log start offset
  Offset last_stable;  // end of committed transactions (read_committed latest)
  rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;  // then the offsets are 0
};

class Cluster {
 public:
  explicit Cluster(Client& client, std::chrono::milliseconds timeout = std::chrono::seconds(30),
                   std::chrono::milliseconds retry_budget = std::chrono::seconds(30))
      : client_(client), timeout_(timeout), retry_budget_(retry_budget) {}

  // The cluster ID, or throws transient when the cluster does not answer.
  std::string cluster_id();

  // Names of every topic the key can describe (internal ones included; filter later).
  std::vector<std::string> topic_names();

  // Topic IDs and partitions. A topic the key may not describe, or that does not exist,
  // comes back with its error set rather than throwing.
  std::vector<TopicDescription> describe(const std::vector<std::string>& names);

  // Log start offsets and last stable offsets of the given partitions.
  std::vector<PartitionOffsets> offsets(const std::vector<TopicPartition>& partitions);

  // Kafka's offsets-for-times: for each partition, the first offset whose message timestamp
  // is at or after `time_ms` (read_committed, so never past the last stable offset), or none
  // when no message is that recent yet. A partition whose answer is an error comes back
  // with it set.
  struct TimeOffset {
    std::optional<Offset> offset;
    rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
  };
  std::vector<TimeOffset> offsets_for_time(const std::vector<TopicPartition>& partitions, int64_t time_ms);

 public:
  // The error of one partition's answer to a ListOffsets request for `spec` (a timestamp, or
  // RD_KAFKA_OFFSET_SPEC_EARLIEST / _LATEST): OFFSET_NOT_AVAILABLE (retriable: asked again)
  // for an answer that holds no offset yet says no error, or holds no known error code.
  static rd_kafka_resp_err_t answered_error(const rd_kafka_topic_partition_t& tp, int64_t spec);

 private:
  // Runs `ask` again while it throws a transient Error or `retriable(answer)` holds, with
  // backoff, within the retry budget.
  template <class Ask, class Retriable>
  auto settled(Ask ask, Retriable retriable);
  std::vector<TopicDescription> describe_once(const std::vector<std::string>& names);
  std::vector<PartitionOffsets> offsets_once(const std::vector<TopicPartition>& partitions);
  // Runs one admin request and waits for its result event.
  EventPtr await(rd_kafka_queue_t* queue, const char* what);
  // Raw answers: -1 where the broker has no offset for `spec` (a timestamp past every message).
  std::vector<int64_t> list_offsets(const std::vector<TopicPartition>& partitions, int64_t spec,
                                    std::vector<rd_kafka_resp_err_t>& errors);

  Client& client_;
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds retry_budget_;
};

}  // namespace krow::kafka
