// librdkafka's error codes become krow's Errors once, in kafka/errors: class, the sentence with
// its fix, and the code kept in the source, by which `krow doctor` tells an authentication or
// TLS failure from others.

#include <gtest/gtest.h>

#include "kafka/errors.hpp"

namespace krow::kafka {
namespace {

TEST(KafkaErrors, ATopicRefusalNamesTheAclToGrantApart) {
  const auto e = make_error(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, "reading topic orders",
                            "krow", "orders");
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_table);
  EXPECT_EQ(e.said(), "reading topic orders: Broker: Topic authorization failed");
  EXPECT_EQ(e.fix(), read_acl_fix("orders", "krow"));
  EXPECT_EQ(std::string(e.what()), e.said() + ". " + e.fix());
  EXPECT_EQ(e.source().system, "kafka");
  EXPECT_EQ(e.source().code, "TOPIC_AUTHORIZATION_FAILED");
  EXPECT_EQ(e.source().topic, "orders");
}

TEST(KafkaErrors, AuthenticationAndTlsFailuresAreToldByTheirCode) {
  for (const auto code :
       {RD_KAFKA_RESP_ERR__AUTHENTICATION, RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED}) {
    const auto e = make_error(code, "connecting to the Kafka cluster failed (x)");
    EXPECT_TRUE(is_authentication_failure(e));
    EXPECT_FALSE(is_tls_failure(e));
    EXPECT_EQ(e.fix(),
              "Check source.username and source.password (the cluster API key and secret)");
  }
  const auto tls = make_error(RD_KAFKA_RESP_ERR__SSL, "connecting to the Kafka cluster failed (x)");
  EXPECT_TRUE(is_tls_failure(tls));
  EXPECT_FALSE(is_authentication_failure(tls));
  // The words alone say nothing: only librdkafka's code does.
  const Error worded(ErrorClass::fatal_run, "SASL authentication failed: SSL certificate problem");
  EXPECT_FALSE(is_authentication_failure(worded));
  EXPECT_FALSE(is_tls_failure(worded));
  const auto transport = make_error(RD_KAFKA_RESP_ERR__TRANSPORT, "Authentication and SSL");
  EXPECT_FALSE(is_authentication_failure(transport));
  EXPECT_FALSE(is_tls_failure(transport));
  EXPECT_EQ(transport.error_class(), ErrorClass::transient);
}

TEST(KafkaErrors, AnErrorWithoutAFixIsAllSaid) {
  const auto e = make_error(RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, "reading offsets of t");
  EXPECT_EQ(e.fix(), "");
  EXPECT_EQ(e.said(), e.what());
  EXPECT_EQ(e.error_class(), ErrorClass::transient);
}

}  // namespace
}  // namespace krow::kafka
