// Cluster answers against librdkafka's mock cluster: a partition whose leader is still being
// elected, or a broker that is still loading, answers with a retriable error for a moment
// (a real broker shows this by chance, right after it or the topic started). Such answers
// must be asked again, not reported as the topic's fault. (Offsets only: the mock cluster
// does not answer DescribeTopics, which waits for a controller; describe() is retried by the
// same code.)

#include "kafka/cluster.hpp"

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "mock_cluster.hpp"

namespace krow {
namespace {

constexpr int16_t kListOffsets = 2;  // Kafka API key

class ClusterMock : public MockClusterTest {};

TEST_F(ClusterMock, OffsetsAnsweredLeaderNotAvailableAreAskedAgain) {
  rd_kafka_mock_push_request_errors(cluster_, kListOffsets, 3, RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE,
                                    RD_KAFKA_RESP_ERR_NOT_LEADER_OR_FOLLOWER, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT);
  kafka::Cluster cluster(*client_, std::chrono::seconds(10), std::chrono::seconds(30));
  const auto offsets = cluster.offsets({{"orders", Partition(0)}, {"orders", Partition(1)}});
  ASSERT_EQ(offsets.size(), 2u);
  for (const auto& o : offsets) EXPECT_EQ(o.error, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2name(o.error);
}

TEST_F(ClusterMock, AnAnswerThatStaysRetriableIsGivenAsItIsOnceTheBudgetIsSpent) {
  // One code per request: the varargs form reads `cnt` codes, so 100 of them go as an array.
  const std::vector<rd_kafka_resp_err_t> errors(100, RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE);
  rd_kafka_mock_push_request_errors_array(cluster_, kListOffsets, errors.size(), errors.data());
  kafka::Cluster cluster(*client_, std::chrono::seconds(10), std::chrono::seconds(1));
  const auto t0 = std::chrono::steady_clock::now();
  const auto offsets = cluster.offsets({{"orders", Partition(0)}});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(8));
  ASSERT_EQ(offsets.size(), 1u);
  EXPECT_NE(offsets[0].error, RD_KAFKA_RESP_ERR_NO_ERROR);
}

TEST_F(ClusterMock, AFinalAnswerIsNotAskedAgain) {
  rd_kafka_mock_push_request_errors(cluster_, kListOffsets, 2, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED,
                                    RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
  kafka::Cluster cluster(*client_, std::chrono::seconds(10), std::chrono::seconds(30));
  const auto t0 = std::chrono::steady_clock::now();
  const auto offsets = cluster.offsets({{"orders", Partition(0)}});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  ASSERT_EQ(offsets.size(), 1u);
  EXPECT_EQ(offsets[0].error, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
}

// An answer for the earliest or latest offset that holds none, or whose error is no error code
// krow knows, is asked again (a retriable error), never read as an offset: taken as it is, a
// missing latest offset would plan the partition as empty.
TEST(ListedOffsets, AnAnswerWithoutAnOffsetOrACodeIsAskedAgainNeverTakenAsAnOffset) {
  std::unique_ptr<rd_kafka_topic_partition_list_t, decltype(&rd_kafka_topic_partition_list_destroy)>
      list(rd_kafka_topic_partition_list_new(1), rd_kafka_topic_partition_list_destroy);
  auto* tp = rd_kafka_topic_partition_list_add(list.get(), "orders", 0);
  using kafka::Cluster;
  tp->offset = RD_KAFKA_OFFSET_INVALID;  // no error, no offset
  EXPECT_EQ(Cluster::answered_error(*tp, RD_KAFKA_OFFSET_SPEC_LATEST),
            RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE);
  EXPECT_EQ(Cluster::answered_error(*tp, RD_KAFKA_OFFSET_SPEC_EARLIEST),
            RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE);
  tp->offset = -1;  // a time past every message: no offset is the answer
  EXPECT_EQ(Cluster::answered_error(*tp, 1700000000000), RD_KAFKA_RESP_ERR_NO_ERROR);
  tp->offset = 42;
  EXPECT_EQ(Cluster::answered_error(*tp, RD_KAFKA_OFFSET_SPEC_LATEST), RD_KAFKA_RESP_ERR_NO_ERROR);
  tp->err = RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED;
  EXPECT_EQ(Cluster::answered_error(*tp, RD_KAFKA_OFFSET_SPEC_LATEST),
            RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
  const int garbage = -17312;  // no error code
  std::memcpy(&tp->err, &garbage, sizeof garbage);
  EXPECT_EQ(Cluster::answered_error(*tp, RD_KAFKA_OFFSET_SPEC_LATEST),
            RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE);
  tp->err = RD_KAFKA_RESP_ERR_NO_ERROR;
}

}  // namespace
}  // namespace krow
