#include "kafka/cluster.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <thread>

#include "kafka/errors.hpp"
#include "util/error.hpp"

namespace krow::kafka {

namespace {

// Kafka writes topic IDs as URL-safe base64 without padding (22 characters);
// librdkafka gives the standard alphabet.
std::string topic_id_text(const rd_kafka_Uuid_t* id) {
  std::string s = rd_kafka_Uuid_base64str(id);
  for (auto& c : s) c = c == '+' ? '-' : c == '/' ? '_' : c;
  while (!s.empty() && s.back() == '=') s.pop_back();
  return s;
}

}  // namespace

std::string Cluster::cluster_id() {
  char* id = rd_kafka_clusterid(client_.handle(), static_cast<int>(timeout_.count()));
  if (!id) throw Error(ErrorClass::transient, "the Kafka cluster did not report its cluster ID");
  std::string out(id);
  rd_kafka_mem_free(client_.handle(), id);
  return out;
}

std::vector<std::string> Cluster::topic_names() {
  const rd_kafka_metadata_t* md = nullptr;
  const auto err = rd_kafka_metadata(client_.handle(), 1, nullptr, &md, static_cast<int>(timeout_.count()));
  MetadataPtr owned(md);
  client_.serve_callbacks();
  if (err) throw make_error(err, "listing topics");
  std::vector<std::string> names;
  for (int i = 0; i < md->topic_cnt; ++i) {
    const auto& t = md->topics[i];
    if (is_topic_authorization(t.err)) continue;  // not describable: not ours to list
    names.emplace_back(t.topic);
  }
  std::sort(names.begin(), names.end());
  return names;
}

EventPtr Cluster::await(rd_kafka_queue_t* queue, const char* what) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_ + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    EventPtr ev(rd_kafka_queue_poll(queue, 200));
    client_.serve_callbacks();
    if (ev) {
      if (const auto err = rd_kafka_event_error(ev.get()))
        throw make_error(err, std::string(what) + " failed (" + rd_kafka_event_error_string(ev.get()) + ")");
      return ev;
    }
    std::string reason;
    if (const auto fatal = client_.fatal_error(&reason))
      throw make_error(fatal, std::string(what) + " failed (" + reason + ")")
          .as(ErrorClass::fatal_run);
  }
  throw Error(ErrorClass::transient, std::string(what) + " timed out");
}

template <class Ask, class Retriable>
auto Cluster::settled(Ask ask, Retriable retriable) {
  const auto deadline = std::chrono::steady_clock::now() + retry_budget_;
  for (auto backoff = std::chrono::milliseconds(100);; backoff = std::min(backoff * 2, std::chrono::milliseconds(3200))) {
    const bool last = std::chrono::steady_clock::now() + backoff > deadline;
    try {
      auto answer = ask();
      if (last || !retriable(answer)) return answer;
    } catch (const Error& e) {
      if (last || e.error_class() != ErrorClass::transient) throw;
    }
    std::this_thread::sleep_for(backoff);
  }
}

std::vector<TopicDescription> Cluster::describe(const std::vector<std::string>& names) {
  return settled([&] { return describe_once(names); }, [](const std::vector<TopicDescription>& answer) {
    return std::any_of(answer.begin(), answer.end(), [](const TopicDescription& d) { return is_retriable(d.error); });
  });
}

std::vector<PartitionOffsets> Cluster::offsets(const std::vector<TopicPartition>& partitions) {
  return settled([&] { return offsets_once(partitions); }, [](const std::vector<PartitionOffsets>& answer) {
    return std::any_of(answer.begin(), answer.end(), [](const PartitionOffsets& o) { return is_retriable(o.error); });
  });
}

std::vector<TopicDescription> Cluster::describe_once(const std::vector<std::string>& names) {
  std::vector<TopicDescription> out;
  if (names.empty()) return out;
  std::vector<const char*> c_names;
  for (const auto& n : names) c_names.push_back(n.c_str());
  TopicCollectionPtr topics(rd_kafka_TopicCollection_of_topic_names(c_names.data(), c_names.size()));
  AdminOptionsPtr opts(rd_kafka_AdminOptions_new(client_.handle(), RD_KAFKA_ADMIN_OP_DESCRIBETOPICS));
  char err[256];
  rd_kafka_AdminOptions_set_request_timeout(opts.get(), static_cast<int>(timeout_.count()), err, sizeof err);
  // The broker says which operations the key may perform: a cheap check for READ before
  // any fetch is attempted.
  if (auto* e = rd_kafka_AdminOptions_set_include_authorized_operations(opts.get(), 1)) rd_kafka_error_destroy(e);
  QueuePtr queue(rd_kafka_queue_new(client_.handle()));
  rd_kafka_DescribeTopics(client_.handle(), topics.get(), opts.get(), queue.get());
  auto ev = await(queue.get(), "describing topics");
  const auto* result = rd_kafka_event_DescribeTopics_result(ev.get());
  size_t n = 0;
  const auto** descs = rd_kafka_DescribeTopics_result_topics(result, &n);
  for (size_t i = 0; i < n; ++i) {
    TopicDescription d;
    d.name = rd_kafka_TopicDescription_name(descs[i]);
    const auto* e = rd_kafka_TopicDescription_error(descs[i]);
    d.error = e ? rd_kafka_error_code(e) : RD_KAFKA_RESP_ERR_NO_ERROR;
    if (!d.error) {
      d.topic_id = TopicId(topic_id_text(rd_kafka_TopicDescription_topic_id(descs[i])));
      d.internal = rd_kafka_TopicDescription_is_internal(descs[i]);
      size_t ops_n = 0;
      const auto* ops = rd_kafka_TopicDescription_authorized_operations(descs[i], &ops_n);
      if (ops && ops_n > 0) {  // brokers that do not report operations are not second-guessed
        d.can_read = false;
        for (size_t k = 0; k < ops_n; ++k)
          d.can_read |= ops[k] == RD_KAFKA_ACL_OPERATION_READ || ops[k] == RD_KAFKA_ACL_OPERATION_ALL;
      }
      size_t pn = 0;
      const auto** parts = rd_kafka_TopicDescription_partitions(descs[i], &pn);
      for (size_t p = 0; p < pn; ++p) d.partitions.push_back(Partition(rd_kafka_TopicPartitionInfo_partition(parts[p])));
      std::sort(d.partitions.begin(), d.partitions.end());
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<int64_t> Cluster::list_offsets(const std::vector<TopicPartition>& partitions,
                                           int64_t spec, std::vector<rd_kafka_resp_err_t>& errors) {
  PartitionListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (const auto& tp : partitions)
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition.value())->offset = spec;
  AdminOptionsPtr opts(rd_kafka_AdminOptions_new(client_.handle(), RD_KAFKA_ADMIN_OP_LISTOFFSETS));
  char err[256];
  rd_kafka_AdminOptions_set_request_timeout(opts.get(), static_cast<int>(timeout_.count()), err, sizeof err);
  // The last stable offset is the latest offset as a read_committed reader sees it.
  if (auto* e = rd_kafka_AdminOptions_set_isolation_level(opts.get(), RD_KAFKA_ISOLATION_LEVEL_READ_COMMITTED))
    rd_kafka_error_destroy(e);
  QueuePtr queue(rd_kafka_queue_new(client_.handle()));
  rd_kafka_ListOffsets(client_.handle(), list.get(), opts.get(), queue.get());
  auto ev = await(queue.get(), "listing partition offsets");
  const auto* result = rd_kafka_event_ListOffsets_result(ev.get());
  size_t n = 0;
  const auto** infos = rd_kafka_ListOffsets_result_infos(result, &n);
  std::vector<int64_t> out(partitions.size(), -1);
  errors.assign(partitions.size(), RD_KAFKA_RESP_ERR_NO_ERROR);
  for (size_t i = 0; i < n; ++i) {
    const auto* tp = rd_kafka_ListOffsetsResultInfo_topic_partition(infos[i]);
    for (size_t j = 0; j < partitions.size(); ++j) {
      if (partitions[j].partition.value() == tp->partition && partitions[j].topic == tp->topic) {
        out[j] = tp->offset;
        errors[j] = answered_error(*tp, spec);
        break;
      }
    }
  }
  return out;
}

rd_kafka_resp_err_t Cluster::answered_error(const rd_kafka_topic_partition_t& tp, int64_t spec) {
  // An answer that says no error yet holds no earliest or latest offset, or whose error is
  // no code librdkafka knows, is asked again: taken as it is, a missing latest offset would
  // plan the partition as empty.
  static const std::set<int> known = [] {
    const rd_kafka_err_desc* descs = nullptr;
    size_t count = 0;
    rd_kafka_get_err_descs(&descs, &count);
    std::set<int> codes;
    for (size_t i = 0; i < count; ++i)
      if (descs[i].name) codes.insert(static_cast<int>(descs[i].code));
    return codes;
  }();
  int code = 0;
  std::memcpy(&code, &tp.err, sizeof code);  // not read as the enum: it may hold no enumerator
  if (!known.count(code)) return RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE;
  const auto err = static_cast<rd_kafka_resp_err_t>(code);
  // The earliest and the latest offset always exist; only a time may have none (-1).
  const bool needs_offset =
      spec == RD_KAFKA_OFFSET_SPEC_EARLIEST || spec == RD_KAFKA_OFFSET_SPEC_LATEST;
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR && needs_offset && tp.offset < 0)
    return RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE;
  return err;
}

std::vector<PartitionOffsets> Cluster::offsets_once(const std::vector<TopicPartition>& partitions) {
  std::vector<PartitionOffsets> out;
  if (partitions.empty()) return out;
  std::vector<rd_kafka_resp_err_t> e1, e2;
  const auto earliest = list_offsets(partitions, RD_KAFKA_OFFSET_SPEC_EARLIEST, e1);
  const auto latest = list_offsets(partitions, RD_KAFKA_OFFSET_SPEC_LATEST, e2);
  for (size_t i = 0; i < partitions.size(); ++i) {
    out.push_back(PartitionOffsets{partitions[i], Offset(std::max<int64_t>(earliest[i], 0)),
                                   Offset(std::max<int64_t>(latest[i], 0)), e1[i] ? e1[i] : e2[i]});
  }
  return out;
}

std::vector<Cluster::TimeOffset> Cluster::offsets_for_time(const std::vector<TopicPartition>& partitions,
                                                           int64_t time_ms) {
  auto once = [&] {
    std::vector<TimeOffset> out;
    if (partitions.empty()) return out;
    std::vector<rd_kafka_resp_err_t> errors;
    // A non-negative spec is a timestamp: the broker answers with the earliest offset whose
    // timestamp is >= it, or -1 when there is none (yet).
    const auto offsets = list_offsets(partitions, std::max<int64_t>(time_ms, 0), errors);
    for (size_t i = 0; i < partitions.size(); ++i) {
      TimeOffset t;
      t.error = errors[i];
      if (!t.error && offsets[i] >= 0) t.offset = Offset(offsets[i]);
      out.push_back(t);
    }
    return out;
  };
  return settled(once, [](const std::vector<TimeOffset>& answer) {
    return std::any_of(answer.begin(), answer.end(), [](const TimeOffset& o) { return is_retriable(o.error); });
  });
}

}  // namespace krow::kafka
