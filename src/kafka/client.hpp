#pragma once
// One librdkafka consumer handle, configured from the manifest's source, used both for
// cluster metadata (admin calls) and for reading. Owns the handle; not copyable.
//
// Thread: create, use and destroy from one thread. librdkafka's own threads only call the
// error and log callbacks, which only touch the atomic/locked fields below.

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "manifest/manifest.hpp"

namespace krow::kafka {

struct ClientOptions {
  std::string group_id;             // used only for the lag group; krow never joins it
  int queued_max_kbytes = 32768;    // prefetch memory bound for the consumer queue
  bool verbose = false;             // forward librdkafka's warnings to stderr
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

  // Lag visibility: records `offsets` (topic, partition, next offset) as the committed
  // offsets of the lag group, without joining it. Asynchronous; results arrive through
  // serve_callbacks(). After the group refuses once (no READ on it), later calls do nothing.
  // Thread: any.
  struct GroupOffset {
    std::string topic;
    int32_t partition = 0;
    int64_t offset = 0;
  };
  void commit_group_offsets(const std::vector<GroupOffset>& offsets);
  // Waits (serving callbacks) until every commit issued so far has answered, or `timeout`.
  void await_group_commits(std::chrono::milliseconds timeout);
  // Empty while lag reporting works; otherwise why it is off (said once by the caller).
  std::string lag_reporting_off() const;

  const std::string& group_id() const { return group_id_; }

  // The SASL user name, for messages that must say which principal needs an ACL.
  const std::string& principal() const { return principal_; }

 private:
  static void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  static void on_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf);
  static void on_commit(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* offsets,
                        void* opaque);

  rd_kafka_t* rk_ = nullptr;
  std::string principal_;
  bool verbose_ = false;
  mutable std::mutex mu_;
  rd_kafka_resp_err_t fatal_ = RD_KAFKA_RESP_ERR_NO_ERROR;
  std::string fatal_reason_;
  std::string group_id_;
  int pending_commits_ = 0;        // guarded by mu_
  std::string lag_off_;            // guarded by mu_
};

}  // namespace krow::kafka
