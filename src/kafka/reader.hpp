#pragma once
// Reads assigned partitions from given offsets through the client's consumer queue.
// It never joins or commits to a consumer group: positions are krow's own and are stored
// in the warehouse with the rows they describe.

#include <cstdint>
#include <string>
#include <vector>

#include "kafka/client.hpp"
#include "kafka/handles.hpp"
#include "kafka/message.hpp"

namespace krow::kafka {

struct Assignment {
  std::string topic;
  int32_t partition = 0;
  int64_t start_offset = 0;  // the next offset to read
};

class Reader {
 public:
  // Starts fetching every assignment. Throws on an assignment librdkafka refuses.
  Reader(Client& client, const std::vector<Assignment>& assignments);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Appends up to `max` messages (or error events, such as partition EOF) to `out`,
  // waiting at most `timeout_ms` for the first one.
  size_t poll(std::vector<Message>& out, size_t max, int timeout_ms);

  // Stops fetching a partition that has reached its boundary.
  void stop(const std::string& topic, int32_t partition);

 private:
  Client& client_;
  QueuePtr queue_;
  std::vector<rd_kafka_message_t*> scratch_;
};

}  // namespace krow::kafka
