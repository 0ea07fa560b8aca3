#pragma once
// Reads the partitions of a sync, each from its start position up to (not including) its
// boundary, the last stable offset captured at plan time, and says which message belongs
// to which table. It owns the Kafka reading client and the reading state of every
// partition; it knows nothing of rows or warehouses.
//
// Thread: one thread (the reading thread) for the object's whole life.

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "kafka/client.hpp"
#include "kafka/message.hpp"
#include "kafka/reader.hpp"
#include "manifest/manifest.hpp"
#include "util/ids.hpp"

namespace krow {

// One partition to read: `start.next` is the first offset to read.
struct ReadStart {
  size_t topic = 0;      // the caller's index of the partition's topic (table)
  Position start;
  Offset boundary;
  bool read = true;      // false: nothing to read, but its position is reported (see moved)
  bool moved = false;    // report the start as a new position at the first take_moved()
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
    virtual void on_topic_stopped(size_t topic, const std::string& error) = 0;
  };

  // Starts reading every partition with `read` set. `retry_timeout` bounds how long the
  // cluster may stay silent (an outage) before poll() throws transient.
  PartitionReader(const SourceConfig& source, bool verbose, std::vector<ReadStart> partitions,
                  std::chrono::seconds retry_timeout);
  ~PartitionReader();

  // Partitions still being read.
  size_t active() const { return active_; }
  size_t active_in(size_t topic) const;

  // Reads what arrives within ~100 ms and hands it to `handler`. Throws fatal_run for an
  // error that ends the sync, transient when the cluster stayed silent too long.
  void poll(Handler& handler);

  // Positions moved since the last call: the next offset to read (the last processed offset
  // + 1, or the boundary once a partition is complete).
  std::vector<Position> take_moved();

  // The partition furthest from its boundary, as "topic[p] next/boundary"; empty when done.
  std::string furthest_behind() const;

 private:
  struct State {
    ReadStart where;
    Offset next;
    bool active = false;
    bool moved = false;
  };
  State* find(const kafka::Message& m);
  void finish(State& p);
  void stop_topic(size_t topic, const std::string& error, Handler& handler);
  void handle_error(kafka::Message& m, Handler& handler);

  const SourceConfig& source_;
  bool verbose_;
  std::chrono::seconds retry_timeout_;
  std::vector<State> partitions_;
  std::unordered_map<std::string, std::vector<size_t>> by_topic_;  // topic name → indexes, by partition
  std::vector<size_t> active_per_topic_;
  size_t active_ = 0;
  std::unique_ptr<kafka::Client> client_;  // only when something is read
  std::unique_ptr<kafka::Reader> reader_;
  std::vector<kafka::Message> messages_;
  std::chrono::steady_clock::time_point last_progress_;
};

}  // namespace krow
