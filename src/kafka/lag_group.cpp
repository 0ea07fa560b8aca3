#include "kafka/lag_group.hpp"

#include <algorithm>
#include <thread>

#include "kafka/errors.hpp"

namespace krow::kafka {

LagGroup::LagGroup(Client& client, std::string group_id, std::chrono::milliseconds request_timeout)
    : client_(client), group_id_(std::move(group_id)), request_timeout_(request_timeout) {}

void LagGroup::turn_off(rd_kafka_resp_err_t err, const std::string& detail) {
  std::lock_guard lock(mu_);
  if (!off_.empty()) return;
  off_ = "lag reporting is off: the consumer group " + group_id_ + " refused the positions (" +
         (detail.empty() ? std::string(rd_kafka_err2str(err)) : detail) + ")";
  if (err == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED) {
    const auto& user = client_.principal();
    off_ += ". To see lag in Kafka's tools, grant " + (user.empty() ? std::string("krow's principal") : "User:" + user) +
            " READ on consumer groups with the prefix krow- (optional; syncs run the same without it)";
  }
}

std::string LagGroup::reason() const {
  std::lock_guard lock(mu_);
  return off_;
}

void LagGroup::commit(const std::vector<Position>& positions) {
  if (!reason().empty()) return;
  for (const auto& p : positions) unsent_[{p.topic, p.partition}] = p.next;
  if (in_flight_ && !collect(std::chrono::milliseconds(0))) return;  // sent with the next one
  send();
}

void LagGroup::finish(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto left = [&] {
    return std::max(std::chrono::milliseconds(0), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                      deadline - std::chrono::steady_clock::now()));
  };
  while (reason().empty() && (in_flight_ || !unsent_.empty())) {
    if (in_flight_) {
      if (!collect(left())) break;
      continue;
    }
    if (resend_at_ >= deadline) break;
    std::this_thread::sleep_until(resend_at_);
    send();
  }
  if (reason().empty() && (in_flight_ || !unsent_.empty()))
    turn_off(RD_KAFKA_RESP_ERR__TIMED_OUT,
             last_refusal_.empty() ? "no answer" : "still refused when the sync ended: " + last_refusal_);
}

void LagGroup::send() {
  if (unsent_.empty() || !reason().empty() || in_flight_ || std::chrono::steady_clock::now() < resend_at_) return;
  PartitionListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(unsent_.size())));
  for (const auto& [tp, offset] : unsent_)
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition.value())->offset = offset.value();
  sending_ = std::move(unsent_);
  unsent_.clear();
  rd_kafka_AlterConsumerGroupOffsets_t* request = rd_kafka_AlterConsumerGroupOffsets_new(group_id_.c_str(), list.get());
  AdminOptionsPtr opts(rd_kafka_AdminOptions_new(client_.handle(), RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS));
  char err[256];
  rd_kafka_AdminOptions_set_request_timeout(opts.get(), static_cast<int>(request_timeout_.count()), err, sizeof err);
  in_flight_.reset(rd_kafka_queue_new(client_.handle()));
  rd_kafka_AlterConsumerGroupOffsets(client_.handle(), &request, 1, opts.get(), in_flight_.get());
  rd_kafka_AlterConsumerGroupOffsets_destroy(request);
}

bool LagGroup::collect(std::chrono::milliseconds wait) {
  EventPtr ev(rd_kafka_queue_poll(in_flight_.get(), static_cast<int>(wait.count())));
  if (!ev) return false;
  in_flight_.reset();
  auto sent = std::move(sending_);
  sending_.clear();
  if (const auto e = rd_kafka_event_error(ev.get())) {
    refused(e, rd_kafka_event_error_string(ev.get()), std::move(sent));
    return true;
  }
  size_t n = 0;
  const auto** groups =
      rd_kafka_AlterConsumerGroupOffsets_result_groups(rd_kafka_event_AlterConsumerGroupOffsets_result(ev.get()), &n);
  for (size_t i = 0; i < n; ++i) {
    if (const auto* e = rd_kafka_group_result_error(groups[i])) {
      refused(rd_kafka_error_code(e), rd_kafka_error_string(e), std::move(sent));
      return true;
    }
    std::map<TopicPartition, Offset> again;
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
    if (const auto* parts = rd_kafka_group_result_partitions(groups[i]))
      for (int j = 0; j < parts->cnt; ++j)
        if (parts->elems[j].err) {
          err = parts->elems[j].err;
          const TopicPartition tp{parts->elems[j].topic, Partition(parts->elems[j].partition)};
          if (const auto it = sent.find(tp); it != sent.end()) again.insert(*it);
        }
    if (err) {
      refused(err, "", std::move(again));
      return true;
    }
  }
  refusals_ = 0;
  last_refusal_.clear();
  return true;
}

void LagGroup::refused(rd_kafka_resp_err_t err, const std::string& detail, std::map<TopicPartition, Offset> refused) {
  if (is_final_group_refusal(err)) return turn_off(err, detail);
  // Positions committed since are newer: keep those, put back only what they do not cover.
  for (auto& [tp, offset] : refused) unsent_.try_emplace(tp, offset);
  last_refusal_ = detail.empty() ? std::string(rd_kafka_err2str(err)) : detail;
  const auto backoff = std::chrono::milliseconds(100 << std::min(refusals_++, 6));  // 0.1 s .. 6.4 s
  resend_at_ = std::chrono::steady_clock::now() + backoff;
}

}  // namespace krow::kafka
