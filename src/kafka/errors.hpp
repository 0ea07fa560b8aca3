#pragma once
// The one place where librdkafka error codes become krow error classes.

#include <librdkafka/rdkafka.h>

#include <string>

#include "kafka/message.hpp"
#include "util/error.hpp"

namespace krow::kafka {

// How far an error reaches (see ErrorClass).
ErrorClass classify(rd_kafka_resp_err_t err);

// True for errors that mean "this principal may not read or describe the topic".
bool is_topic_authorization(rd_kafka_resp_err_t err);

// True for errors that mean the topic (or this incarnation of it) no longer exists.
bool is_topic_missing(rd_kafka_resp_err_t err);

// True for an answer that a moment fixes: a leader being elected, a broker or coordinator
// still loading, a request that timed out, throttling, a connection that went away.
bool is_retriable(rd_kafka_resp_err_t err);

// True when the consumer group's answer will not change by asking again: no READ on the
// group, a group that has members or another owner, credentials or TLS. Everything else
// (coordinator loading, not coordinator, timeouts, a broker going away) is worth a retry.
bool is_final_group_refusal(rd_kafka_resp_err_t err);

// The sentence that tells how to grant READ and DESCRIBE on `topic` to `principal`.
std::string read_acl_fix(const std::string& topic, const std::string& principal);

// An Error for `err` with `context` ("describing topic orders") and a sentence naming the fix.
// Its source is {"kafka", librdkafka's name for `err` ("TOPIC_AUTHORIZATION_FAILED"), `topic`}.
Error make_error(rd_kafka_resp_err_t err, const std::string& context, const std::string& principal = {},
                 const std::string& topic = {});

// The same for the error a consumed message carries; the source names its topic, partition
// and offset too.
Error make_error(const Message& m, const std::string& context, const std::string& principal = {});

// Whether an Error of this layer (make_error) is one of these, told by its librdkafka code:
// the cluster refused the credentials (SASL), or TLS failed (handshake, certificate).
bool is_authentication_failure(const Error& e);
bool is_tls_failure(const Error& e);

}  // namespace krow::kafka
