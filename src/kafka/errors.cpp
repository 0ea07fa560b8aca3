#include "kafka/errors.hpp"

namespace krow::kafka {

bool is_topic_authorization(rd_kafka_resp_err_t err) {
  return err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED;
}

bool is_topic_missing(rd_kafka_resp_err_t err) {
  return err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
         err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION || err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_ID;
}

ErrorClass classify(rd_kafka_resp_err_t err) {
  if (is_topic_authorization(err) || is_topic_missing(err)) return ErrorClass::fatal_table;
  switch (err) {
    case RD_KAFKA_RESP_ERR__AUTHENTICATION:
    case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR__SSL:
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR__FATAL:
    case RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION:
      return ErrorClass::fatal_run;
    default:
      return ErrorClass::transient;
  }
}

bool is_retriable(rd_kafka_resp_err_t err) {
  switch (err) {
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_OR_FOLLOWER:
    case RD_KAFKA_RESP_ERR_REPLICA_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_THROTTLING_QUOTA_EXCEEDED:
    case RD_KAFKA_RESP_ERR_NOT_CONTROLLER:
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR__WAIT_COORD:
    case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
      return true;
    default:
      return false;
  }
}

bool is_final_group_refusal(rd_kafka_resp_err_t err) {
  switch (err) {
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_INVALID_GROUP_ID:
    case RD_KAFKA_RESP_ERR_NON_EMPTY_GROUP:
    case RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID:
    case RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION:
    case RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID:
    case RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC:
      return true;
    default:
      return classify(err) == ErrorClass::fatal_run;
  }
}

std::string read_acl_fix(const std::string& topic, const std::string& principal) {
  const std::string who = principal.empty() ? "krow's principal" : "User:" + principal;
  return "Grant " + who + " READ and DESCRIBE on topic " + (topic.empty() ? "<topic>" : topic) +
         " (kafka-acls --add --allow-principal " + (principal.empty() ? "User:<name>" : who) +
         " --operation Read --operation Describe --topic " + (topic.empty() ? "<topic>" : topic) +
         ", or a prefixed ACL with --resource-pattern-type prefixed; on Confluent Cloud: confluent kafka "
         "acl create --allow --service-account <id> --operations read,describe --topic <name or prefix>), "
         "then sync again: the table resumes where it stopped";
}

Error make_error(rd_kafka_resp_err_t err, const std::string& context, const std::string& principal,
                 const std::string& topic) {
  std::string fix;
  if (is_topic_authorization(err)) {
    fix = read_acl_fix(topic, principal);
  } else if (is_topic_missing(err)) {
    fix =
        "The topic no longer exists (deleted, or recreated with a new ID); remove it from the "
        "manifest's topic selection or recreate it";
  } else if (err == RD_KAFKA_RESP_ERR__AUTHENTICATION ||
             err == RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED) {
    fix = "Check source.username and source.password (the cluster API key and secret)";
  } else if (err == RD_KAFKA_RESP_ERR__SSL) {
    fix = "Check source.ca_file and that the bootstrap host name matches the broker certificate";
  } else if (err == RD_KAFKA_RESP_ERR__TRANSPORT || err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN ||
             err == RD_KAFKA_RESP_ERR__TIMED_OUT) {
    fix = "Check that source.bootstrap_servers is reachable from this machine";
  }
  return Error(classify(err), context + ": " + rd_kafka_err2str(err), Fix{std::move(fix)},
               {"kafka", rd_kafka_err2name(err), topic});
}

Error make_error(const Message& m, const std::string& context, const std::string& principal) {
  const auto e = make_error(m.error(), context, principal, m.topic());
  auto source = e.source();
  source.partition = m.partition();
  source.offset = m.offset();
  return Error(e.error_class(), e.said(), Fix{e.fix()}, std::move(source));
}

namespace {

bool has_code(const Error& e, std::initializer_list<rd_kafka_resp_err_t> codes) {
  if (e.source().system != "kafka") return false;
  for (const auto code : codes)
    if (e.source().code == rd_kafka_err2name(code)) return true;
  return false;
}

}  // namespace

bool is_authentication_failure(const Error& e) {
  return has_code(
      e, {RD_KAFKA_RESP_ERR__AUTHENTICATION, RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED});
}

bool is_tls_failure(const Error& e) {
  return has_code(e, {RD_KAFKA_RESP_ERR__SSL});
}

}  // namespace krow::kafka
