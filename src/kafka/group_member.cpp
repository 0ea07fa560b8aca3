#include "kafka/group_member.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>

#include "kafka/errors.hpp"
#include "kafka/handles.hpp"
#include "util/error.hpp"

namespace krow::kafka {

std::string worker_id_refusal(const std::string& id) {
  if (id.empty() || id.size() > 64)
    return "a worker ID has 1 to 64 characters; '" + id + "' has " + std::to_string(id.size());
  for (const char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok)
      return "a worker ID is made of letters, digits, '-', '_' and '.'; '" + id +
             "' is not (use a stable name such as the host's or the systemd instance's, %i)";
  }
  return {};
}

namespace {

std::vector<TopicPartition> to_vector(const rd_kafka_topic_partition_list_t* list) {
  std::vector<TopicPartition> out;
  for (int i = 0; list && i < list->cnt; ++i)
    out.push_back({list->elems[i].topic, Partition(list->elems[i].partition)});
  return out;
}

PartitionListPtr to_list(const std::vector<TopicPartition>& partitions,
                         const std::map<TopicPartition, Offset>* offsets = nullptr) {
  PartitionListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (const auto& tp : partitions) {
    auto* e = rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition.value());
    if (offsets)
      if (const auto it = offsets->find(tp); it != offsets->end()) e->offset = it->second.value();
  }
  return list;
}

void check(rd_kafka_error_t* raw, const std::string& what) {
  if (!raw) return;
  const std::string text = rd_kafka_error_string(raw);
  const auto code = rd_kafka_error_code(raw);
  rd_kafka_error_destroy(raw);
  throw make_error(code, what + " failed: " + text);
}

}  // namespace

std::string worker_client_id(const std::string& worker_id) {
  return std::string(kWorkerClientIdPrefix) + worker_id;
}

namespace {

// The partitions of a consumer-protocol assignment (ConsumerProtocolAssignment: version,
// [topic, [partition]], user data). Throws fatal_run when the bytes are not one.
std::vector<TopicPartition> parse_assignment(const void* data, int size,
                                             const std::string& group_id) {
  const auto* p = static_cast<const unsigned char*>(data);
  const auto* const end = p + std::max(size, 0);
  auto need = [&](std::ptrdiff_t n) {
    if (n < 0 || end - p < n)
      throw Error(ErrorClass::fatal_run,
                  "consumer group " + group_id +
                      " holds an assignment krow cannot read (not the consumer protocol's)");
  };
  auto read_int = [&](int bytes) {
    need(bytes);
    int64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | *p++;
    return bytes == 2 ? static_cast<int16_t>(v) : static_cast<int32_t>(v);
  };
  std::vector<TopicPartition> out;
  if (size <= 0) return out;  // a member not yet given anything
  read_int(2);                // version: every version starts with the same fields
  for (int32_t topics = read_int(4); topics > 0; --topics) {
    const int32_t length = read_int(2);
    need(length);
    std::string topic(reinterpret_cast<const char*>(p), static_cast<size_t>(length));
    p += length;
    for (int32_t partitions = read_int(4); partitions > 0; --partitions)
      out.push_back({topic, Partition(read_int(4))});
  }
  return out;
}

using GroupListPtr =
    std::unique_ptr<const rd_kafka_group_list, Deleter<rd_kafka_group_list_destroy>>;

}  // namespace

std::vector<GroupMemberView> describe_group(Client& client, const std::string& group_id,
                                            std::chrono::milliseconds timeout) {
  // Not rd_kafka_DescribeConsumerGroups: when the coordinator's connection drops while the
  // request is being sent (a broker restart), librdkafka 2.x frees the request twice and
  // aborts the process (librdkafka issue #4605). This call asks each broker directly.
  const rd_kafka_group_list* raw = nullptr;
  const auto err = rd_kafka_list_groups(client.handle(), group_id.c_str(), &raw,
                                        static_cast<int>(timeout.count()));
  GroupListPtr list(raw);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    // __PARTIAL: some broker did not answer; the group's coordinator may be among them.
    throw make_error(err == RD_KAFKA_RESP_ERR__PARTIAL ? RD_KAFKA_RESP_ERR__TIMED_OUT : err,
                     "describing consumer group " + group_id, client.principal());
  }
  std::vector<GroupMemberView> out;
  for (int g = 0; list && g < list->group_cnt; ++g) {
    const auto& group = list->groups[g];
    if (group_id != group.group) continue;
    if (group.err != RD_KAFKA_RESP_ERR_NO_ERROR)
      throw make_error(group.err, "describing consumer group " + group_id, client.principal());
    for (int i = 0; i < group.member_cnt; ++i) {
      const auto& m = group.members[i];
      GroupMemberView v;
      v.member_id = m.member_id ? m.member_id : "";
      const std::string client_id = m.client_id ? m.client_id : "";
      if (client_id.rfind(kWorkerClientIdPrefix, 0) == 0)
        v.instance_id = client_id.substr(kWorkerClientIdPrefix.size());
      v.host = m.client_host ? m.client_host : "";
      v.assigned = parse_assignment(m.member_assignment, m.member_assignment_size, group_id);
      out.push_back(std::move(v));
    }
  }
  return out;
}

GroupMember::GroupMember(const SourceConfig& source, std::string group_id, std::string instance_id,
                         bool verbose)
    : group_id_(std::move(group_id)) {
  ClientOptions options;
  options.group_id = group_id_;
  options.client_id = worker_client_id(instance_id);
  options.group_instance_id = std::move(instance_id);
  options.session_timeout_ms = static_cast<int>(kWorkerSessionTimeout.count());
  options.heartbeat_interval_ms = static_cast<int>(kWorkerHeartbeatInterval.count());
  // The member never reads: whatever librdkafka fetches before a partition is paused is
  // dropped, so its queue needs little room.
  options.queued_max_kbytes = 1024;
  options.verbose = verbose;
  options.rebalance = [this](rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* list) {
    on_rebalance(err, list);
  };
  client_ = std::make_unique<Client>(source, options);
  rk_ = client_->handle();
  // The client's callbacks (errors, logs) are served by the consumer poll too.
  rd_kafka_poll_set_consumer(client_->handle());
}

GroupMember::~GroupMember() {
  closing_ = true;
  client_.reset();  // rd_kafka_consumer_close: the last changes are acknowledged at once
}

void GroupMember::subscribe(const std::vector<std::string>& topics) {
  PartitionListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(topics.size())));
  for (const auto& t : topics)
    rd_kafka_topic_partition_list_add(list.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
  const auto err = rd_kafka_subscribe(client_->handle(), list.get());
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
    throw make_error(err, "joining consumer group " + group_id_);
}

void GroupMember::on_rebalance(rd_kafka_resp_err_t err,
                               rd_kafka_topic_partition_list_t* partitions) {
  // Not client_->handle(): while the client is being destroyed (close()), client_ is null.
  rd_kafka_t* rk = rk_;
  if (closing_) {
    // Closing: the session has committed what it will; give everything back now.
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      check(rd_kafka_incremental_assign(rk, partitions), "acknowledging an assignment");
    } else {
      if (auto* e = rd_kafka_incremental_unassign(rk, partitions)) rd_kafka_error_destroy(e);
      for (const auto& tp : to_vector(partitions)) owned_.erase(tp);
    }
    return;
  }
  Change c;
  c.kind = err;
  c.lost = err != RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS && rd_kafka_assignment_lost(rk);
  c.partitions = to_vector(partitions);
  pending_.push_back(std::move(c));
}

void GroupMember::poll(Handler& handler, int timeout_ms) {
  if (closing_) return;
  MessagePtr m(rd_kafka_consumer_poll(client_->handle(), timeout_ms));
  // A message fetched before its partition was paused is dropped: the sync's reader reads it.
  if (m && m->err != RD_KAFKA_RESP_ERR_NO_ERROR && m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
    char reason[512];
    const auto fatal = rd_kafka_fatal_error(client_->handle(), reason, sizeof reason);
    if (fatal != RD_KAFKA_RESP_ERR_NO_ERROR)
      throw make_error(fatal, "consumer group " + group_id_ + " refused this worker (" + reason +
                                  "): another live worker may use the same worker ID")
          .as(ErrorClass::fatal_run);
  }
  apply(handler);
}

void GroupMember::apply(Handler& handler) {
  std::exception_ptr error;
  rd_kafka_t* rk = client_->handle();
  auto changes = std::move(pending_);
  pending_.clear();
  for (auto& c : changes) {
    if (c.kind == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      std::map<TopicPartition, Offset> offsets;
      try {
        if (!error) offsets = handler.on_assigned(c.partitions);
      } catch (...) {
        error = std::current_exception();
      }
      // Acknowledged whatever happened (a partition this worker could not take is read by
      // nobody until the next rebalance; the error ends the stretch and it is taken again).
      auto list = to_list(c.partitions, &offsets);
      check(rd_kafka_incremental_assign(rk, list.get()), "acknowledging an assignment");
      // Paused at once: the member never reads (see the header).
      rd_kafka_pause_partitions(rk, list.get());
      for (const auto& tp : c.partitions) owned_.insert(tp);
    } else {
      try {
        if (!error) {
          if (c.lost)
            handler.on_lost(c.partitions);
          else
            handler.on_revoked(c.partitions);
        }
      } catch (...) {
        error = std::current_exception();
      }
      auto list = to_list(c.partitions);
      check(rd_kafka_incremental_unassign(rk, list.get()), "giving partitions back");
      for (const auto& tp : c.partitions) owned_.erase(tp);
    }
  }
  if (error) std::rethrow_exception(error);
}

void GroupMember::close(Handler& handler) {
  if (closing_) return;
  // Every partition is given back: what was read of them is committed first.
  std::vector<TopicPartition> all(owned_.begin(), owned_.end());
  if (!all.empty()) handler.on_revoked(all);
  closing_ = true;
  client_.reset();
}

}  // namespace krow::kafka
