#include "kafka_testkit.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace krow::testkit {

namespace {

rd_kafka_conf_t* make_conf(const std::string& bootstrap, const std::map<std::string, std::string>& props) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  auto set = [&](const std::string& k, const std::string& v) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
      throw std::runtime_error("config " + k + ": " + err);
  };
  set("bootstrap.servers", bootstrap);
  for (const auto& [k, v] : props) set(k, v);
  return conf;
}

void check(rd_kafka_error_t* e, const char* what) {
  if (!e) return;
  std::string msg = std::string(what) + ": " + rd_kafka_error_string(e);
  rd_kafka_error_destroy(e);
  throw std::runtime_error(msg);
}

rd_kafka_event_t* await(rd_kafka_queue_t* q, const char* what) {
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 30000);
  if (!ev) throw std::runtime_error(std::string(what) + ": timed out");
  return ev;
}

}  // namespace

std::string test_bootstrap() {
  const char* b = std::getenv("KROW_TEST_BOOTSTRAP");
  return b && *b ? b : "127.0.0.1:9092";
}

std::string unique_name(const std::string& prefix) {
  static std::atomic<int> counter{0};
  return prefix + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000) + "-" +
         std::to_string(counter++);
}

Admin::Admin(const std::string& bootstrap) {
  char err[512];
  rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, make_conf(bootstrap, {}), err, sizeof err);
  if (!rk_) throw std::runtime_error(err);
}

Admin::~Admin() { rd_kafka_destroy(rk_); }

bool Admin::create_topic(const std::string& name, int partitions, const std::map<std::string, std::string>& configs) {
  char err[512];
  rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(name.c_str(), partitions, 1, err, sizeof err);
  if (!nt) throw std::runtime_error(err);
  for (const auto& [k, v] : configs) rd_kafka_NewTopic_set_config(nt, k.c_str(), v.c_str());
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk_);
  rd_kafka_CreateTopics(rk_, &nt, 1, nullptr, q);
  rd_kafka_event_t* ev = await(q, "create topic");
  size_t n = 0;
  const auto** res = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
  std::string failure;
  const bool existed = n == 1 && rd_kafka_topic_result_error(res[0]) == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS;
  if (rd_kafka_event_error(ev)) failure = rd_kafka_event_error_string(ev);
  else if (n == 1 && rd_kafka_topic_result_error(res[0]) &&
           rd_kafka_topic_result_error(res[0]) != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
    failure = rd_kafka_topic_result_error_string(res[0]);
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_NewTopic_destroy(nt);
  if (!failure.empty()) throw std::runtime_error("create topic " + name + ": " + failure);
  if (!existed) wait_for_topic(name, partitions);
  return !existed;
}

void Admin::delete_topic(const std::string& name) {
  rd_kafka_DeleteTopic_t* dt = rd_kafka_DeleteTopic_new(name.c_str());
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk_);
  rd_kafka_DeleteTopics(rk_, &dt, 1, nullptr, q);
  rd_kafka_event_t* ev = await(q, "delete topic");
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_DeleteTopic_destroy(dt);
  // Wait until the name is gone from metadata.
  for (int i = 0; i < 100; ++i) {
    rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk_, name.c_str(), nullptr);
    const rd_kafka_metadata_t* md = nullptr;
    const auto err = rd_kafka_metadata(rk_, 0, rkt, &md, 5000);
    const bool gone = err == RD_KAFKA_RESP_ERR_NO_ERROR && md->topic_cnt == 1 &&
                      md->topics[0].err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
    if (md) rd_kafka_metadata_destroy(md);
    rd_kafka_topic_destroy(rkt);
    if (gone) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void Admin::delete_records(const std::string& topic, int32_t partition, int64_t before) {
  rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(offsets, topic.c_str(), partition)->offset = before;
  rd_kafka_DeleteRecords_t* dr = rd_kafka_DeleteRecords_new(offsets);
  rd_kafka_topic_partition_list_destroy(offsets);
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk_);
  rd_kafka_DeleteRecords(rk_, &dr, 1, nullptr, q);
  rd_kafka_event_t* ev = await(q, "delete records");
  const rd_kafka_topic_partition_list_t* result =
      rd_kafka_DeleteRecords_result_offsets(rd_kafka_event_DeleteRecords_result(ev));
  const auto err = result && result->cnt == 1 ? result->elems[0].err : RD_KAFKA_RESP_ERR__FAIL;
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_DeleteRecords_destroy(dr);
  if (err) throw std::runtime_error(std::string("delete records: ") + rd_kafka_err2str(err));
}

void Admin::add_partitions(const std::string& topic, int total) {
  char err[512];
  rd_kafka_NewPartitions_t* np = rd_kafka_NewPartitions_new(topic.c_str(), static_cast<size_t>(total), err, sizeof err);
  if (!np) throw std::runtime_error(std::string("new partitions: ") + err);
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk_);
  rd_kafka_CreatePartitions(rk_, &np, 1, nullptr, q);
  rd_kafka_event_t* ev = await(q, "create partitions");
  size_t n = 0;
  const auto** res = rd_kafka_CreatePartitions_result_topics(rd_kafka_event_CreatePartitions_result(ev), &n);
  std::string failure = rd_kafka_event_error(ev) ? rd_kafka_event_error_string(ev) : "";
  if (failure.empty() && n == 1 && rd_kafka_topic_result_error(res[0]))
    failure = rd_kafka_topic_result_error_string(res[0]);
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_NewPartitions_destroy(np);
  if (!failure.empty()) throw std::runtime_error("create partitions of " + topic + ": " + failure);
  wait_for_topic(topic, total);
}

void Admin::grant(rd_kafka_ResourceType_t type, const std::string& name, bool prefixed, const std::string& principal,
                  rd_kafka_AclOperation_t operation) {
  char err[512];
  rd_kafka_AclBinding_t* acl = rd_kafka_AclBinding_new(
      type, name.c_str(), prefixed ? RD_KAFKA_RESOURCE_PATTERN_PREFIXED : RD_KAFKA_RESOURCE_PATTERN_LITERAL,
      principal.c_str(), "*", operation, RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW, err, sizeof err);
  if (!acl) throw std::runtime_error(std::string("acl: ") + err);
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk_);
  rd_kafka_CreateAcls(rk_, &acl, 1, nullptr, q);
  rd_kafka_event_t* ev = await(q, "create acl");
  std::string failure = rd_kafka_event_error(ev) ? rd_kafka_event_error_string(ev) : "";
  size_t n = 0;
  const auto** res = rd_kafka_CreateAcls_result_acls(rd_kafka_event_CreateAcls_result(ev), &n);
  for (size_t i = 0; i < n; ++i)
    if (const auto* e = rd_kafka_acl_result_error(res[i])) failure = rd_kafka_error_string(e);
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_AclBinding_destroy(acl);
  if (!failure.empty()) throw std::runtime_error("create acl: " + failure);
  // KRaft applies ACLs through the metadata log: give the broker a moment.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
}

void Admin::revoke(rd_kafka_ResourceType_t type, const std::string& name, bool prefixed, const std::string& principal,
                   rd_kafka_AclOperation_t operation) {
  char err[512];
  rd_kafka_AclBindingFilter_t* filter = rd_kafka_AclBindingFilter_new(
      type, name.c_str(), prefixed ? RD_KAFKA_RESOURCE_PATTERN_PREFIXED : RD_KAFKA_RESOURCE_PATTERN_LITERAL,
      principal.c_str(), nullptr, operation, RD_KAFKA_ACL_PERMISSION_TYPE_ANY, err, sizeof err);
  if (!filter) throw std::runtime_error(std::string("acl filter: ") + err);
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk_);
  rd_kafka_DeleteAcls(rk_, &filter, 1, nullptr, q);
  rd_kafka_event_t* ev = await(q, "delete acls");
  std::string failure = rd_kafka_event_error(ev) ? rd_kafka_event_error_string(ev) : "";
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_AclBinding_destroy(filter);
  if (!failure.empty()) throw std::runtime_error("delete acls: " + failure);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
}

std::map<int32_t, int64_t> Admin::group_offsets(const std::string& group, const std::string& topic, int partitions) {
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; ++p) rd_kafka_topic_partition_list_add(list, topic.c_str(), p);
  rd_kafka_ListConsumerGroupOffsets_t* req = rd_kafka_ListConsumerGroupOffsets_new(group.c_str(), list);
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk_);
  rd_kafka_ListConsumerGroupOffsets(rk_, &req, 1, nullptr, q);
  rd_kafka_event_t* ev = await(q, "list group offsets");
  std::map<int32_t, int64_t> out;
  std::string failure = rd_kafka_event_error(ev) ? rd_kafka_event_error_string(ev) : "";
  size_t n = 0;
  const auto** groups = rd_kafka_ListConsumerGroupOffsets_result_groups(rd_kafka_event_ListConsumerGroupOffsets_result(ev), &n);
  for (size_t i = 0; i < n; ++i) {
    const auto* parts = rd_kafka_group_result_partitions(groups[i]);
    for (int j = 0; parts && j < parts->cnt; ++j) out[parts->elems[j].partition] = parts->elems[j].offset;
  }
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_ListConsumerGroupOffsets_destroy(req);
  if (!failure.empty()) throw std::runtime_error("list group offsets: " + failure);
  return out;
}

void Admin::wait_for_topic(const std::string& name, int partitions) {
  for (int i = 0; i < 100; ++i) {
    rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk_, name.c_str(), nullptr);
    const rd_kafka_metadata_t* md = nullptr;
    const auto err = rd_kafka_metadata(rk_, 0, rkt, &md, 5000);
    bool ready = err == RD_KAFKA_RESP_ERR_NO_ERROR && md->topic_cnt == 1 && md->topics[0].err == 0 &&
                 md->topics[0].partition_cnt == partitions;
    if (ready)
      for (int p = 0; p < partitions; ++p) ready = ready && md->topics[0].partitions[p].leader >= 0;
    if (md) rd_kafka_metadata_destroy(md);
    rd_kafka_topic_destroy(rkt);
    if (ready) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw std::runtime_error("topic " + name + " did not become ready");
}

Producer::Producer(const std::string& bootstrap, const std::string& transactional_id,
                   const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> props{{"linger.ms", "5"}, {"enable.idempotence", "true"}};
  for (const auto& kv : extra) props[kv.first] = kv.second;
  if (!transactional_id.empty()) props["transactional.id"] = transactional_id;
  char err[512];
  rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, make_conf(bootstrap, props), err, sizeof err);
  if (!rk_) throw std::runtime_error(err);
  if (!transactional_id.empty()) check(rd_kafka_init_transactions(rk_, 30000), "init transactions");
}

Producer::~Producer() {
  rd_kafka_flush(rk_, 10000);
  rd_kafka_destroy(rk_);
}

void Producer::send(const std::string& topic, const Record& r) {
  rd_kafka_headers_t* hdrs = nullptr;
  if (!r.headers.empty()) {
    hdrs = rd_kafka_headers_new(r.headers.size());
    for (const auto& h : r.headers)
      rd_kafka_header_add(hdrs, h.key.data(), static_cast<ssize_t>(h.key.size()), h.value ? h.value->data() : nullptr,
                          h.value ? static_cast<ssize_t>(h.value->size()) : 0);
  }
  void* key = r.key ? const_cast<char*>(r.key->data()) : nullptr;
  const size_t key_len = r.key ? r.key->size() : 0;
  void* value = r.value ? const_cast<char*>(r.value->data()) : nullptr;
  const size_t value_len = r.value ? r.value->size() : 0;
  for (;;) {
    rd_kafka_resp_err_t err;
    if (hdrs) {
      err = rd_kafka_producev(rk_, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(r.partition),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_len),
                              RD_KAFKA_V_VALUE(value, value_len), RD_KAFKA_V_TIMESTAMP(r.timestamp_ms),
                              RD_KAFKA_V_HEADERS(hdrs), RD_KAFKA_V_END);
    } else {
      err = rd_kafka_producev(rk_, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(r.partition),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_len),
                              RD_KAFKA_V_VALUE(value, value_len), RD_KAFKA_V_TIMESTAMP(r.timestamp_ms),
                              RD_KAFKA_V_END);
    }
    if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_poll(rk_, 50);
      continue;
    }
    if (err) {
      if (hdrs) rd_kafka_headers_destroy(hdrs);
      throw std::runtime_error(std::string("produce: ") + rd_kafka_err2str(err));
    }
    return;  // headers are owned by the message now
  }
}

void Producer::flush() {
  if (rd_kafka_flush(rk_, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) throw std::runtime_error("flush timed out");
}

void Producer::begin() { check(rd_kafka_begin_transaction(rk_), "begin transaction"); }
void Producer::commit() { check(rd_kafka_commit_transaction(rk_, 60000), "commit transaction"); }
void Producer::abort() { check(rd_kafka_abort_transaction(rk_, 60000), "abort transaction"); }

std::vector<Consumed> consume_all(const std::string& bootstrap, const std::string& topic) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER,
                                make_conf(bootstrap, {{"group.id", "krow-test-oracle"},
                                                      {"isolation.level", "read_committed"},
                                                      {"enable.auto.commit", "false"},
                                                      {"enable.partition.eof", "true"},
                                                      {"auto.offset.reset", "earliest"}}),
                                err, sizeof err);
  if (!rk) throw std::runtime_error(err);
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  if (rd_kafka_metadata(rk, 0, rkt, &md, 10000) || md->topic_cnt != 1 || md->topics[0].err) {
    if (md) rd_kafka_metadata_destroy(md);
    rd_kafka_topic_destroy(rkt);
    rd_kafka_destroy(rk);
    throw std::runtime_error("oracle: no metadata for " + topic);
  }
  const int partitions = md->topics[0].partition_cnt;
  rd_kafka_metadata_destroy(md);
  rd_kafka_topic_destroy(rkt);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; ++p)
    rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(rk, list);
  rd_kafka_topic_partition_list_destroy(list);
  std::vector<Consumed> out;
  int eof = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (eof < partitions && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 200);
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      ++eof;
    } else if (!m->err) {
      Consumed c{m->partition, m->offset, std::nullopt, std::nullopt};
      if (m->key) c.key = std::string(static_cast<const char*>(m->key), m->key_len);
      if (m->payload) c.value = std::string(static_cast<const char*>(m->payload), m->len);
      out.push_back(std::move(c));
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  if (eof < partitions) throw std::runtime_error("oracle: timed out reading " + topic);
  std::sort(out.begin(), out.end(), [](const Consumed& a, const Consumed& b) {
    return a.partition != b.partition ? a.partition < b.partition : a.offset < b.offset;
  });
  return out;
}

}  // namespace krow::testkit
