#include "kafka/access_probe.hpp"

#include <set>

#include "kafka/handles.hpp"
#include "kafka/message.hpp"
#include "kafka/reader.hpp"
#include "util/error.hpp"

namespace krow::kafka {

std::map<std::string, ReadAnswer> probe_read(Client& client, const std::vector<ReadProbe>& probes,
                                             std::chrono::milliseconds timeout) {
  std::map<std::string, ReadAnswer> out;
  if (probes.empty()) return out;
  // The reader that syncs use (legacy per-partition fetching, no group): what it is refused
  // is what a sync would be refused.
  Reader reader(client);
  std::set<std::string> waiting;
  for (const auto& p : probes) {
    try {
      reader.start(Position{p.partition.topic, {}, p.partition.partition, p.start});
      waiting.insert(p.partition.topic);
    } catch (const Error& e) {
      out[p.partition.topic] = {true, RD_KAFKA_RESP_ERR__FAIL, e.what(), {}};
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<Message> got;
  while (!waiting.empty() && std::chrono::steady_clock::now() < deadline) {
    got.clear();
    reader.poll(got, 64, 100);
    for (const auto& m : got) {
      const std::string topic = m.topic();
      if (!waiting.count(topic)) continue;  // a client-wide event, or a topic already answered
      auto& a = out[topic];
      switch (m.error()) {
        case RD_KAFKA_RESP_ERR_NO_ERROR:
          a.message_bytes = m.key_size() + m.value_size();
          break;
        case RD_KAFKA_RESP_ERR__PARTITION_EOF:      // an answer to a fetch: READ is granted
        case RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET:  // out of range is checked after authorization
          break;
        default:
          a.error = m.error();
          a.detail = m.error_text();
          break;
      }
      a.answered = true;
      waiting.erase(topic);
    }
  }
  for (const auto& t : waiting) {
    auto& a = out[t];
    a.error = RD_KAFKA_RESP_ERR__TIMED_OUT;
    a.detail = "no answer to a fetch within " + std::to_string(timeout.count() / 1000) + " s";
  }
  return out;
}

GroupAccess probe_group(Client& client, const std::string& group,
                        std::chrono::milliseconds timeout) {
  GroupAccess out;
  rd_kafka_t* rk = client.handle();
  AdminOptionsPtr opts(rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS));
  char err[256];
  rd_kafka_AdminOptions_set_request_timeout(opts.get(), static_cast<int>(timeout.count()), err,
                                            sizeof err);
  if (auto* e = rd_kafka_AdminOptions_set_include_authorized_operations(opts.get(), 1))
    rd_kafka_error_destroy(e);
  QueuePtr queue(rd_kafka_queue_new(rk));
  const char* groups[] = {group.c_str()};
  rd_kafka_DescribeConsumerGroups(rk, groups, 1, opts.get(), queue.get());
  const auto deadline = std::chrono::steady_clock::now() + timeout + std::chrono::seconds(2);
  EventPtr ev;
  while (!ev && std::chrono::steady_clock::now() < deadline) {
    ev.reset(rd_kafka_queue_poll(queue.get(), 200));
    client.serve_callbacks();
  }
  if (!ev) {
    out.error = RD_KAFKA_RESP_ERR__TIMED_OUT;
    out.detail = "no answer within " + std::to_string(timeout.count() / 1000) + " s";
    return out;
  }
  if (const auto e = rd_kafka_event_error(ev.get())) {
    out.error = e;
    out.detail = rd_kafka_event_error_string(ev.get());
    return out;
  }
  size_t n = 0;
  const auto** descs = rd_kafka_DescribeConsumerGroups_result_groups(
      rd_kafka_event_DescribeConsumerGroups_result(ev.get()), &n);
  for (size_t i = 0; i < n; ++i) {
    if (const auto* e = rd_kafka_ConsumerGroupDescription_error(descs[i])) {
      out.error = rd_kafka_error_code(e);
      out.detail = rd_kafka_error_string(e);
      return out;
    }
    size_t ops_n = 0;
    const auto* ops = rd_kafka_ConsumerGroupDescription_authorized_operations(descs[i], &ops_n);
    if (ops && ops_n > 0) {
      out.operations_known = true;
      for (size_t k = 0; k < ops_n; ++k)
        out.can_read |=
            ops[k] == RD_KAFKA_ACL_OPERATION_READ || ops[k] == RD_KAFKA_ACL_OPERATION_ALL;
    }
  }
  return out;
}

}  // namespace krow::kafka
