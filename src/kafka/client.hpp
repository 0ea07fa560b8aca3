#pragma once
// One librdkafka consumer handle, configured from the manifest's source, used both for
// cluster metadata (admin calls) and for reading. Owns the handle; not copyable.
//
// Thread: create, read and destroy from one thread; admin requests (the lag group's) may
// come from another. librdkafka's own threads only call the error and log callbacks, which
// only touch the locked fields below.

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "kafka/source_config.hpp"

namespace krow::kafka {

struct ClientOptions {
  std::string group_id;             // empty for reading: krow reads with assign() and no group
  int queued_max_kbytes = 32768;    // prefetch memory bound for the consumer queue
  bool verbose = false;             // forward librdkafka's warnings to stderr
  // A group member (kafka/group_member): static membership under this ID, cooperative-sticky
  // assignment, and librdkafka's rebalance events handed to `rebalance` (called from within
  // rd_kafka_consumer_poll, on the polling thread). Empty for every other client.
  std::string group_instance_id;
  int session_timeout_ms = 0;  // 0: librdkafka's default
  int heartbeat_interval_ms = 0;  // 0: librdkafka's default (3 s)
  std::function<void(rd_kafka_resp_err_t, rd_kafka_topic_partition_list_t*)> rebalance;
  std::string client_id = "krow";  // client.id: what brokers' logs and quotas know krow by
};

class Client {
 public:
  // Throws Error(config) when librdkafka rejects a setting. Does not contact the cluster.
  Client(const SourceConfig& source, const ClientOptions& options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  rd_kafka_t* handle() const { return rk_; }

  // Waits until the cluster answers a metadata request. Throws fatal_run for bad
  // credentials or TLS trouble, transient when no broker can be reached within `timeout`.
  void check_connection(std::chrono::milliseconds timeout);

  // Serves librdkafka's callbacks (errors, logs). Cheap; call it regularly.
  void serve_callbacks() { rd_kafka_poll(rk_, 0); }

  // The last error librdkafka reported through its error callback that ends a run
  // (authentication, TLS), or RD_KAFKA_RESP_ERR_NO_ERROR.
  rd_kafka_resp_err_t fatal_error(std::string* reason = nullptr) const;

  // The SASL user name, for messages that must say which principal needs an ACL.
  const std::string& principal() const { return principal_; }

 private:
  static void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  static void on_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf);
  static void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                           rd_kafka_topic_partition_list_t* partitions, void* opaque);

  rd_kafka_t* rk_ = nullptr;
  std::string principal_;
  bool verbose_ = false;
  std::function<void(rd_kafka_resp_err_t, rd_kafka_topic_partition_list_t*)> rebalance_;
  mutable std::mutex mu_;
  rd_kafka_resp_err_t fatal_ = RD_KAFKA_RESP_ERR_NO_ERROR;
  std::string fatal_reason_;
};

}  // namespace krow::kafka
