#pragma once
// Lag visibility: records a sync's committed positions as the offsets of the consumer
// group krow-<sync id>, so that Kafka's own tools show the lag. It never joins the group
// (the group has no members): positions are written with the admin API's
// AlterConsumerGroupOffsets, a bounded request that involves no consumer-group machinery
// in the client.
//
// Off the critical path: commit() never waits for the broker. At most one request is in
// flight; positions committed meanwhile are merged and sent with the next one, and finish()
// sends the last positions and waits (bounded) for the answer.
//
// Optional by design: when the group refuses for good (no READ on it, a group that others
// use) lag reporting turns off for the rest of the run and reason() says why, once. A
// retriable answer (coordinator loading or moving, a timeout, a broker going away) keeps the
// positions and sends them again after a backoff; if they are still refused or unanswered
// when finish() runs out of time, reporting is off with the last answer named.
// Thread: commit() and finish() from one thread at a time; reason() from any.

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "kafka/client.hpp"
#include "kafka/handles.hpp"
#include "util/ids.hpp"

namespace krow::kafka {

class LagGroup {
 public:
  // Uses `client`'s handle (admin requests are thread-safe); the client must outlive this.
  // A request may wait up to `request_timeout` for the group's coordinator: make it as long
  // as the sync waits for the cluster, because librdkafka 2.12 can abort the process when a
  // coordinator request times out while the broker is coming back (an assertion on the
  // request's reference count, seen here in the broker-outage test).
  LagGroup(Client& client, std::string group_id, std::chrono::milliseconds request_timeout);

  // Records positions that were just committed to the warehouse; sends them now or with
  // the next request. Never blocks on the broker. Does nothing once lag reporting is off.
  void commit(const std::vector<Position>& positions);

  // Sends what is still unsent and waits for the answers, at most `timeout` in all.
  void finish(std::chrono::milliseconds timeout = std::chrono::seconds(10));

  // Empty while lag reporting works; otherwise the sentence to say once.
  std::string reason() const;

 private:
  void send();
  // Takes the answer of the request in flight, waiting at most `wait`; false if none came.
  bool collect(std::chrono::milliseconds wait);
  // A refusal: definitive ones turn reporting off, retriable ones resend `refused` later.
  void refused(rd_kafka_resp_err_t err, const std::string& detail, std::map<TopicPartition, Offset> refused);
  void turn_off(rd_kafka_resp_err_t err, const std::string& detail);

  Client& client_;
  std::string group_id_;
  std::chrono::milliseconds request_timeout_;
  std::map<TopicPartition, Offset> unsent_;
  std::map<TopicPartition, Offset> sending_;  // what the request in flight carries
  QueuePtr in_flight_;  // the queue of the request awaiting its answer, if any
  int refusals_ = 0;    // retriable refusals in a row: the backoff grows with them
  std::chrono::steady_clock::time_point resend_at_{};
  std::string last_refusal_;
  mutable std::mutex mu_;
  std::string off_;
};

}  // namespace krow::kafka
