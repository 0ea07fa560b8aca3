#include "kafka/client.hpp"

#include <cstdio>
#include <thread>

#include "kafka/errors.hpp"
#include "kafka/handles.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace krow::kafka {

namespace {

void set(rd_kafka_conf_t* conf, const char* name, const std::string& value, bool secret = false) {
  char err[512];
  if (rd_kafka_conf_set(conf, name, value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
    throw Error(ErrorClass::config, std::string("Kafka setting ") + name +
                                        (secret ? "" : " = '" + value + "'") + " was refused: " + err);
  }
}

}  // namespace

Client::Client(const SourceConfig& source, const ClientOptions& options)
    : principal_(source.username), verbose_(options.verbose), rebalance_(options.rebalance) {
  ConfPtr conf(rd_kafka_conf_new());
  set(conf.get(), "bootstrap.servers", source.bootstrap_servers);
  set(conf.get(), "client.id", options.client_id);
  set(conf.get(), "security.protocol", lower_ascii(source.security_protocol));
  if (source.security_protocol.rfind("SASL_", 0) == 0) {
    set(conf.get(), "sasl.mechanisms", source.sasl_mechanism);
    set(conf.get(), "sasl.username", source.username);
    set(conf.get(), "sasl.password", source.password.reveal(), /*secret=*/true);
  }
  if (!source.ca_file.empty()) {
    require_readable_file(source.ca_file, "source.ca_file", "the PEM CA bundle that signed the cluster's certificates");
    set(conf.get(), "ssl.ca.location", source.ca_file);
  }
  set(conf.get(), "enable.ssl.certificate.verification", source.verify_certificates ? "true" : "false");
  set(conf.get(), "ssl.endpoint.identification.algorithm", source.verify_certificates ? "https" : "none");

  // Reading uses the partition consumer with explicit offsets and no consumer group:
  // nothing is joined or committed (the lag group's positions go through the admin API).
  if (!options.group_id.empty()) {
    set(conf.get(), "group.id", options.group_id);
    // Only workers join a group (kafka/group_member.hpp): every member, static or not, speaks
    // the same protocol.
    set(conf.get(), "partition.assignment.strategy", "cooperative-sticky");
  }
  if (!options.group_instance_id.empty()) {
    // Static membership: a member that restarts within the session timeout under the same
    // ID gets its partitions back, and the group moves nothing meanwhile.
    set(conf.get(), "group.instance.id", options.group_instance_id);
  }
  if (options.session_timeout_ms > 0)
    set(conf.get(), "session.timeout.ms", std::to_string(options.session_timeout_ms));
  if (options.heartbeat_interval_ms > 0)
    set(conf.get(), "heartbeat.interval.ms", std::to_string(options.heartbeat_interval_ms));
  set(conf.get(), "enable.auto.commit", "false");
  set(conf.get(), "enable.auto.offset.store", "false");
  set(conf.get(), "isolation.level", "read_committed");
  set(conf.get(), "enable.partition.eof", "true");
  // A position out of range (records deleted under a running sync, a log truncated or a topic
  // recreated) is reported to the reader, which records the gap and decides where to go on,
  // instead of being silently reset to the log start.
  set(conf.get(), "auto.offset.reset", "error");
  set(conf.get(), "queued.max.messages.kbytes", std::to_string(options.queued_max_kbytes));
  set(conf.get(), "fetch.wait.max.ms", "100");
  // When the prefetch queue is full, librdkafka waits this long before fetching again
  // (default 1 s): far too long for a reader that drains the queue in milliseconds.
  set(conf.get(), "fetch.queue.backoff.ms", "5");
  set(conf.get(), "log.connection.close", "false");
  // Small requests (metadata, offsets, the lag group's commits) go out at once instead of
  // waiting for the previous packet's ACK: a sync with little to copy is made of them.
  set(conf.get(), "socket.nagle.disable", "true");
  set(conf.get(), "allow.auto.create.topics", "false");

  rd_kafka_conf_set_opaque(conf.get(), this);
  rd_kafka_conf_set_error_cb(conf.get(), &Client::on_error);
  rd_kafka_conf_set_log_cb(conf.get(), &Client::on_log);
  if (rebalance_) rd_kafka_conf_set_rebalance_cb(conf.get(), &Client::on_rebalance);

  char err[512];
  rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), err, sizeof err);
  if (!rk_) throw Error(ErrorClass::config, std::string("cannot create the Kafka client: ") + err);
  conf.release();  // owned by rk_ now
}

Client::~Client() {
  if (!rk_) return;
  // Leave quietly: no group was joined (a group member's rebalance callback, served here one
  // last time, gives its partitions back), and nothing is ever committed to Kafka.
  rd_kafka_consumer_close(rk_);
  rd_kafka_destroy(rk_);
}

void Client::on_error(rd_kafka_t* rk, int err, const char* reason, void*) {
  auto* self = static_cast<Client*>(rd_kafka_opaque(rk));
  const auto code = static_cast<rd_kafka_resp_err_t>(err);
  if (classify(code) == ErrorClass::fatal_run) {
    std::lock_guard lock(self->mu_);
    if (self->fatal_ == RD_KAFKA_RESP_ERR_NO_ERROR) {
      self->fatal_ = code;
      self->fatal_reason_ = reason ? reason : "";
    }
  } else if (self->verbose_) {
    std::fprintf(stderr, "krow: kafka: %s\n", reason ? reason : rd_kafka_err2str(code));
  }
}

void Client::on_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  const auto* self = static_cast<const Client*>(rd_kafka_opaque(rk));
  // librdkafka redacts secrets in its own logs; we still show them only when asked.
  if (self && self->verbose_ && level <= 4) std::fprintf(stderr, "krow: kafka %s: %s\n", fac, buf);
}

void Client::on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t* partitions, void*) {
  auto* self = static_cast<Client*>(rd_kafka_opaque(rk));
  self->rebalance_(err, partitions);
}

rd_kafka_resp_err_t Client::fatal_error(std::string* reason) const {
  std::lock_guard lock(mu_);
  if (reason) *reason = fatal_reason_;
  return fatal_;
}

void Client::check_connection(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  rd_kafka_resp_err_t last = RD_KAFKA_RESP_ERR_NO_ERROR;
  for (;;) {
    const rd_kafka_metadata_t* md = nullptr;
    last = rd_kafka_metadata(rk_, 0, nullptr, &md, 1000);
    if (md) rd_kafka_metadata_destroy(md);
    serve_callbacks();
    std::string reason;
    if (const auto fatal = fatal_error(&reason); fatal != RD_KAFKA_RESP_ERR_NO_ERROR) {
      throw make_error(fatal, "connecting to the Kafka cluster failed (" + reason + ")")
          .as(ErrorClass::fatal_run);
    }
    if (last == RD_KAFKA_RESP_ERR_NO_ERROR) return;
    if (std::chrono::steady_clock::now() >= deadline) break;
  }
  throw make_error(last, "the Kafka cluster did not answer within " +
                             std::to_string(timeout.count() / 1000) + " s");
}

}  // namespace krow::kafka
