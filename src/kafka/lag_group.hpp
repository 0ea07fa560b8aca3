#pragma once
// Lag visibility: records a sync's committed positions as the offsets of the consumer
// group krow-<sync id>, so that Kafka's own tools show the lag. It never joins the group
// (the group has no members): positions are written with the admin API's
// AlterConsumerGroupOffsets, a bounded request that involves no consumer-group machinery
// in the client.
//
// Optional by design: when the group refuses (no READ on it) or does not answer, lag
// reporting turns off for the rest of the run and reason() says why, once.
// Thread: commit() from one thread (the batch writer); reason() from any.

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "kafka/client.hpp"

namespace krow::kafka {

class LagGroup {
 public:
  struct Offset {
    std::string topic;
    int32_t partition = 0;
    int64_t next_offset = 0;
  };

  // Uses `client`'s handle (admin requests are thread-safe); the client must outlive this.
  LagGroup(Client& client, std::string group_id);

  // Writes `offsets` to the group and waits for the answer, at most `timeout`. Does
  // nothing once lag reporting is off.
  void commit(const std::vector<Offset>& offsets, std::chrono::milliseconds timeout = std::chrono::seconds(10));

  // Empty while lag reporting works; otherwise the sentence to say once.
  std::string reason() const;

 private:
  void turn_off(rd_kafka_resp_err_t err, const std::string& detail);

  Client& client_;
  std::string group_id_;
  mutable std::mutex mu_;
  std::string off_;
};

}  // namespace krow::kafka
