#include "kafka/reader.hpp"

#include "kafka/errors.hpp"

namespace krow::kafka {

Reader::Reader(Client& client, const std::vector<Assignment>& assignments) : client_(client) {
  PartitionListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(assignments.size())));
  for (const auto& a : assignments)
    rd_kafka_topic_partition_list_add(list.get(), a.topic.c_str(), a.partition)->offset = a.start_offset;
  if (const auto err = rd_kafka_assign(client_.handle(), list.get()))
    throw make_error(err, "assigning partitions to read");
  queue_.reset(rd_kafka_queue_get_consumer(client_.handle()));
}

Reader::~Reader() {
  queue_.reset();
  rd_kafka_assign(client_.handle(), nullptr);
}

size_t Reader::poll(std::vector<Message>& out, size_t max, int timeout_ms) {
  scratch_.resize(max);
  const auto n = rd_kafka_consume_batch_queue(queue_.get(), timeout_ms, scratch_.data(), max);
  client_.serve_callbacks();
  if (n <= 0) return 0;
  for (ssize_t i = 0; i < n; ++i) out.emplace_back(scratch_[i]);
  return static_cast<size_t>(n);
}

void Reader::stop(const std::string& topic, int32_t partition) {
  PartitionListPtr list(rd_kafka_topic_partition_list_new(1));
  rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition);
  rd_kafka_pause_partitions(client_.handle(), list.get());
}

}  // namespace krow::kafka
