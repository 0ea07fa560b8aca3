#pragma once
// Reads the partitions of a sync, each from its start position up to (not including) its
// boundary, the last stable offset captured at plan time (a bounded sync), or on and on (no
// boundary: a continuous one), and says which message belongs to which table. Partitions can
// be added (assign) and taken away (revoke) while it reads. It owns the Kafka reading client
// and the reading state of every partition; it knows nothing of rows or warehouses.
//
// Prefetch memory is bounded whatever the partition and broker count: at most
// kafka::max_fetching_partitions() partitions are fetched at once (see kafka/reader.hpp), the
// others wait in plan order until one of them is done. Partitions read on (no boundary) never
// finish, so they are all fetched at once: a continuous sync has caught up after its first
// batches, and what it fetches then is what arrives (the queue bound still holds, and fetch
// responses stay within librdkafka's fetch.max.bytes per broker).
//
// The cluster can change under a running sync; each change is reported, never papered over:
// - records deleted below a partition's position (retention, a records deletion): a Gap,
//   and reading goes on at the new log start;
// - a log truncated below a partition's position: a Gap, and that partition stops where it
//   is (the next sync's plan moves it down to the log's end);
// - the topic deleted, or deleted and recreated under the same name: messages are matched by
//   topic name, so every position handed out is first checked against the topic ID the plan
//   saw (take_moved); a topic whose ID changed is stopped (on_topic_replaced).
//
// Thread: one thread (the reading thread) for the object's whole life.

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "kafka/message.hpp"
#include "kafka/reader.hpp"
#include "manifest/manifest.hpp"
#include "util/ids.hpp"

namespace krow {

// One partition to read: `start.next` is the first offset to read.
struct ReadStart {
  size_t topic = 0;      // the caller's index of the partition's topic (table)
  Position start;
  std::optional<Offset> boundary;  // read up to, not including, it; none: read on (continuous)
  bool read = true;      // false: nothing to read, but its position is reported (see moved)
  bool moved = false;    // report the start as a new position at the first take_moved()
};

// Offsets [from, to) of a partition that a run skipped or could not read, and why.
struct Gap {
  Partition partition;
  Offset from;
  Offset to;
  std::string reason;
};

class PartitionReader {
 public:
  // What the reader reports while polling.
  class Handler {
   public:
    virtual ~Handler() = default;
    // A message of `topic` within its partition's range, in offset order per partition.
    // The partition's position already counts it when this is called.
    virtual void on_message(size_t topic, const kafka::Message& m) = 0;
    // `topic` cannot be read any further (no READ, deleted): its partitions are stopped.
    // The messages handed over before this call are the topic's.
    virtual void on_topic_stopped(size_t topic, const std::string& error) = 0;
    // `topic` now has another topic ID than the plan's (deleted and recreated): its
    // partitions are stopped, and the messages handed over since the previous take_moved()
    // may belong to the new topic, so they must not be stored under the planned ID.
    virtual void on_topic_replaced(size_t topic, const std::string& error) = 0;
    // Offsets of `topic` that could not be read (see Gap).
    virtual void on_gap(size_t topic, const Gap& gap) = 0;
  };

  // Starts reading every partition of `partitions` with `read` set. `retry_timeout` bounds how
  // long the cluster may stay silent (an outage) while a partition with a boundary is still
  // short of it before poll() throws transient.
  PartitionReader(const SourceConfig& source, bool verbose, std::vector<ReadStart> partitions,
                  std::chrono::seconds retry_timeout);
  ~PartitionReader();

  // Adds partitions to read (or reads one again that was revoked, from its new start). The
  // Kafka client is made at the first partition to read, with prefetch memory for as many
  // partitions as are read then (bounded or not, at most kafka::max_fetching_partitions()):
  // later ones wait for a turn.
  void assign(std::vector<ReadStart> partitions);

  // Stops reading `partitions` where they are. With `report_moved`, their positions moved so
  // far are still reported by the next take_moved() (and no later one); without, never again.
  void revoke(const std::vector<TopicPartition>& partitions, bool report_moved);

  // The caller's index of the table `partition` is read for, when it was assigned.
  std::optional<size_t> table_of(const TopicPartition& partition);

  // Partitions still being read (with no boundary, until revoked).
  size_t active() const { return active_; }
  size_t active_in(size_t topic) const;

  // Reads what arrives within ~100 ms and hands it to `handler`. Throws fatal_run for an
  // error that ends the sync, transient when the cluster stayed silent too long.
  void poll(Handler& handler);

  // Positions moved since the last call: the next offset to read (the last processed offset
  // + 1, or the boundary once a partition is complete). First asks the cluster for the
  // topic IDs of their topics; a topic whose ID changed is stopped through
  // Handler::on_topic_replaced and its positions left out. Throws like poll() when the
  // cluster cannot answer.
  std::vector<Position> take_moved(Handler& handler);

  // A partition being read and its end (high watermark) as the last fetch said, if known.
  struct Reading {
    std::string topic;
    TopicId topic_id;
    Partition partition;
    std::optional<Offset> end;
  };
  std::vector<Reading> reading() const;

  // The partition furthest from its boundary, as "topic[p] next/boundary"; empty when done
  // (or when no partition has a boundary).
  std::string furthest_behind() const;

 private:
  struct State {
    ReadStart where;
    Offset next;
    bool active = false;    // still to be read (fetching, or waiting for its turn)
    bool fetching = false;  // being fetched now
    bool moved = false;
  };
  State* find(const kafka::Message& m);
  State* find(const TopicPartition& tp);
  // Whether `offset` is at or past the partition's boundary (never, without one).
  static bool past(const State& p, Offset offset) {
    return p.where.boundary && offset >= *p.where.boundary;
  }
  // Starts fetching waiting partitions while fewer than the limit are fetched.
  void fetch_more();
  // Ends reading a partition; `next` stays as it is.
  void deactivate(State& p);
  // Ends reading a partition at its boundary.
  void finish(State& p);
  void stop_topic(size_t topic, const std::string& error, Handler& handler);
  void handle_error(kafka::Message& m, Handler& handler);
  // Librdkafka found a partition's position out of range: finds out why, and goes on.
  void relocate(State& p, Handler& handler);
  // Why the topic of `p` is gone (`now` says it does not exist), or empty.
  std::string deleted(const State& p, const kafka::TopicDescription& now) const;
  // Why the topic of `p` is not the one the plan saw (`now` has another ID), or empty.
  std::string replaced(const State& p, const kafka::TopicDescription& now) const;
  void replace_topic(size_t topic, const std::string& why, Handler& handler);
  // Questions to the cluster on the reading client, retried within retry_timeout.
  kafka::Cluster cluster();

  const SourceConfig& source_;
  bool verbose_;
  std::chrono::seconds retry_timeout_;
  std::vector<State> partitions_;
  std::unordered_map<std::string, std::vector<size_t>> by_topic_;  // topic name → indexes, by partition
  std::vector<size_t> active_per_topic_;
  size_t active_ = 0;
  std::vector<size_t> waiting_;  // partitions not fetched yet, in plan order from waiting_next_
  size_t waiting_next_ = 0;
  size_t fetching_ = 0;
  size_t max_fetching_ = 0;
  std::unique_ptr<kafka::Client> client_;  // only when something is read
  std::unique_ptr<kafka::Reader> reader_;
  std::vector<kafka::Message> messages_;
  std::chrono::steady_clock::time_point last_progress_;
};

}  // namespace krow
