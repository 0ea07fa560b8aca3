// The lag group against librdkafka's mock cluster: the one broker-side fault here that a real
// broker only shows by chance (a group coordinator still loading right after it started) is
// injected on demand, and must be retried, not taken as a refusal.

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <memory>
#include <string>
#include <vector>

#include "kafka/lag_group.hpp"
#include "mock_cluster.hpp"

namespace krow {
namespace {

constexpr int16_t kOffsetCommit = 8;  // Kafka API key of OffsetCommit

class LagGroupMock : public MockClusterTest {
 protected:
  // The group's committed offset of orders/`partition`, read back through a group consumer.
  int64_t committed(const std::string& group, int32_t partition) {
    char err[256];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", source_.bootstrap_servers.c_str(), err, sizeof err);
    rd_kafka_conf_set(conf, "group.id", group.c_str(), err, sizeof err);
    rd_kafka_t* c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, "orders", partition);
    int64_t offset = -1000;
    if (rd_kafka_committed(c, list, 10000) == RD_KAFKA_RESP_ERR_NO_ERROR) offset = list->elems[0].offset;
    rd_kafka_topic_partition_list_destroy(list);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    return offset;
  }

  static std::vector<Position> at(int64_t p0, int64_t p1) {
    return {{"orders", TopicId{}, Partition(0), Offset(p0)}, {"orders", TopicId{}, Partition(1), Offset(p1)}};
  }

};

TEST_F(LagGroupMock, CoordinatorStillLoadingIsRetriedAndThePositionsLand) {
  rd_kafka_mock_push_request_errors(cluster_, kOffsetCommit, 3, RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS,
                                    RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS,
                                    RD_KAFKA_RESP_ERR_NOT_COORDINATOR);
  kafka::LagGroup lag(*client_, "krow-loading", std::chrono::seconds(10));
  lag.commit(at(5, 7));
  lag.commit(at(9, 7));  // newer positions while the first request is refused
  lag.finish(std::chrono::seconds(20));
  EXPECT_EQ(lag.reason(), "");
  EXPECT_EQ(committed("krow-loading", 0), 9);
  EXPECT_EQ(committed("krow-loading", 1), 7);
}

TEST_F(LagGroupMock, RetriableAnswersUntilTheEndTurnReportingOffNamingTheLastOne) {
  const std::vector<rd_kafka_resp_err_t> loading(100, RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS);
  rd_kafka_mock_push_request_errors_array(cluster_, kOffsetCommit, loading.size(), loading.data());
  kafka::LagGroup lag(*client_, "krow-never", std::chrono::seconds(10));
  lag.commit(at(3, 4));
  lag.finish(std::chrono::seconds(2));
  EXPECT_NE(lag.reason().find("still refused when the sync ended"), std::string::npos) << lag.reason();
  EXPECT_NE(lag.reason().find("load"), std::string::npos) << lag.reason();
}

TEST_F(LagGroupMock, NoReadOnTheGroupTurnsReportingOffAtOnceNamingTheGrant) {
  rd_kafka_mock_push_request_errors(cluster_, kOffsetCommit, 1, RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED);
  kafka::LagGroup lag(*client_, "krow-denied", std::chrono::seconds(10));
  lag.commit(at(1, 1));
  const auto started = std::chrono::steady_clock::now();
  lag.finish(std::chrono::seconds(20));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));  // not retried to the end
  EXPECT_NE(lag.reason().find("READ on consumer groups with the prefix krow-"), std::string::npos) << lag.reason();
  lag.commit(at(2, 2));  // off for the rest of the run: nothing more is sent
  lag.finish(std::chrono::seconds(1));
  EXPECT_EQ(committed("krow-denied", 0), RD_KAFKA_OFFSET_INVALID);
}

}  // namespace
}  // namespace krow
