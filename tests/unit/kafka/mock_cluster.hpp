#pragma once
// A fixture with librdkafka's mock cluster (one broker, topic "orders" of two partitions) and
// a krow Kafka client connected to it: for broker answers that a real broker gives only by
// chance (a coordinator still loading, a leader being elected), injected on demand.

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <chrono>
#include <memory>

#include "kafka/client.hpp"

namespace krow {

class MockClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char err[256];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "0", err, sizeof err);
    owner_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    ASSERT_NE(owner_, nullptr) << err;
    cluster_ = rd_kafka_mock_cluster_new(owner_, 1);
    ASSERT_NE(cluster_, nullptr);
    ASSERT_EQ(rd_kafka_mock_topic_create(cluster_, "orders", 2, 1), RD_KAFKA_RESP_ERR_NO_ERROR);
    source_.bootstrap_servers = rd_kafka_mock_cluster_bootstraps(cluster_);
    client_ = std::make_unique<kafka::Client>(source_, kafka::ClientOptions{});
    client_->check_connection(std::chrono::seconds(10));
  }
  void TearDown() override {
    client_.reset();
    if (cluster_) rd_kafka_mock_cluster_destroy(cluster_);
    if (owner_) rd_kafka_destroy(owner_);
  }

  rd_kafka_t* owner_ = nullptr;  // the mock cluster lives in this handle
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  SourceConfig source_;
  std::unique_ptr<kafka::Client> client_;
};

}  // namespace krow
