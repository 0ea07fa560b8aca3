#pragma once
// A worker's membership in the consumer group that shares a sync's partitions among workers
// (`krow-<sync id>.workers`, docs/workers.md): cooperative-sticky assignment and static
// membership (group.instance.id = the worker ID), so that a worker restarting within the
// session timeout gets its partitions back and the group moves nothing meanwhile.
//
// The member only learns which partitions are its own: it reads nothing. Partitions it is
// given are assigned to librdkafka at the offsets the handler returns (the positions stored in
// the warehouse) and paused at once, so its queue stays empty; the sync's own reader
// (kafka/reader) reads them. Kafka keeps no offsets for this group: enable.auto.commit and
// enable.auto.offset.store are off, and nothing is ever committed to it.
//
// Thread: one thread (the reading thread) for the object's whole life; the handler is called
// from poll() and close() on that thread.

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kafka/client.hpp"
#include "kafka/source_config.hpp"
#include "util/ids.hpp"

namespace krow::kafka {

// The session timeout of a worker (session.timeout.ms): how long a worker that stopped
// answering (kill -9, a machine gone, SIGSTOP) keeps its partitions before the group moves
// them, and how long a restart under the same worker ID has to get them back. 12 s: twelve
// heartbeats (kWorkerHeartbeatInterval), so that a few lost ones move nothing, and short enough
// for a stopped worker's partitions to move soon.
inline constexpr std::chrono::milliseconds kWorkerSessionTimeout{12000};
// How often a worker tells the coordinator it lives, and so how soon it hears of a rebalance
// (librdkafka's default is 3 s): the partitions of a worker that died move at most about this
// long after its session timed out.
inline constexpr std::chrono::milliseconds kWorkerHeartbeatInterval{1000};

// A worker ID: letters, digits and `-_.`, 1 to 64 characters. Returns why `id` is not one,
// or "" when it is.
std::string worker_id_refusal(const std::string& id);

// A worker's client.id: the prefix, then its worker ID. How describe_group tells a worker's
// ID (the group's coordinator says a member's client ID in every version of its answer).
inline constexpr std::string_view kWorkerClientIdPrefix = "krow-worker-";
std::string worker_client_id(const std::string& worker_id);

// A member of a consumer group as the group's coordinator describes it.
struct GroupMemberView {
  std::string member_id;
  std::string instance_id;  // the worker ID (from its client ID); "" for any other member
  std::string host;
  std::vector<TopicPartition> assigned;
};

// The members of consumer group `group_id` and what each is assigned, through `client`'s
// handle, waiting at most `timeout`. Empty for a group with no members (or none at all).
// Throws transient when the cluster does not answer, fatal_run on a refusal (no DESCRIBE on
// the group).
std::vector<GroupMemberView> describe_group(Client& client, const std::string& group_id,
                                            std::chrono::milliseconds timeout);

class GroupMember {
 public:
  // What the member is told by the group. Each call happens before the member acknowledges
  // the change to librdkafka; an exception thrown by a call is rethrown by poll() once the
  // change is acknowledged (a revoked partition is given back whatever happened).
  class Handler {
   public:
    virtual ~Handler() = default;
    // Partitions given to this worker; returns the offset to read each from (absent: the
    // partition's own default; the member never reads, so this only keeps librdkafka tidy).
    virtual std::map<TopicPartition, Offset> on_assigned(const std::vector<TopicPartition>& p) = 0;
    // Partitions taken away in an orderly way: commit what was read of them before returning.
    virtual void on_revoked(const std::vector<TopicPartition>& p) = 0;
    // Partitions lost (the session timed out, the member was fenced): another worker may be
    // writing them already, so commit nothing more of them.
    virtual void on_lost(const std::vector<TopicPartition>& p) = 0;
  };

  // Creates the consumer; joins nothing until subscribe(). Throws Error(config) when
  // librdkafka refuses a setting.
  GroupMember(const SourceConfig& source, std::string group_id, std::string instance_id,
              bool verbose);
  ~GroupMember();
  GroupMember(const GroupMember&) = delete;
  GroupMember& operator=(const GroupMember&) = delete;

  // Subscribes to `topics` (replacing an earlier subscription). Throws on a refusal.
  void subscribe(const std::vector<std::string>& topics);

  // Serves the group for up to `timeout_ms`: heartbeats, rebalances (the handler is called for
  // each change). Rethrows the handler's exception after acknowledging the change; throws
  // fatal_run when librdkafka reports a fatal error (the instance ID is used by another live
  // member: KIP-345 fencing).
  void poll(Handler& handler, int timeout_ms);

  // The partitions this worker owns now.
  const std::set<TopicPartition>& assignment() const { return owned_; }

  // Leaves the group's assignment: the handler hears of revoked partitions one last time.
  // A static member does not leave the group on close: its partitions move after the session
  // timeout unless it comes back under the same ID first. Idempotent.
  void close(Handler& handler);

  const std::string& group_id() const { return group_id_; }

 private:
  struct Change {
    rd_kafka_resp_err_t kind;  // RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS or __REVOKE_PARTITIONS
    bool lost = false;
    std::vector<TopicPartition> partitions;
  };
  void on_rebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* partitions);
  // Hands each pending change to `handler` and acknowledges it to librdkafka.
  void apply(Handler& handler);

  std::string group_id_;
  std::vector<Change> pending_;  // told by librdkafka in the current poll, not yet applied
  std::set<TopicPartition> owned_;
  bool closing_ = false;            // close() or the destructor: changes are acknowledged at once
  rd_kafka_t* rk_ = nullptr;        // client_'s handle, for the callbacks of its destruction
  std::unique_ptr<Client> client_;  // last: destroyed first, while the rest still stands
};

}  // namespace krow::kafka
