#pragma once
// RAII owners for librdkafka handles. Each deleter is the handle's documented destroy call.

#include <librdkafka/rdkafka.h>

#include <memory>

#include "util/c_handle.hpp"

namespace krow::kafka {

template <auto Destroy>
using Deleter = CDeleter<Destroy>;

using QueuePtr = std::unique_ptr<rd_kafka_queue_t, Deleter<rd_kafka_queue_destroy>>;
using EventPtr = std::unique_ptr<rd_kafka_event_t, Deleter<rd_kafka_event_destroy>>;
using PartitionListPtr =
    std::unique_ptr<rd_kafka_topic_partition_list_t, Deleter<rd_kafka_topic_partition_list_destroy>>;
using AdminOptionsPtr =
    std::unique_ptr<rd_kafka_AdminOptions_t, Deleter<rd_kafka_AdminOptions_destroy>>;
using TopicCollectionPtr =
    std::unique_ptr<rd_kafka_TopicCollection_t, Deleter<rd_kafka_TopicCollection_destroy>>;
using MessagePtr = std::unique_ptr<rd_kafka_message_t, Deleter<rd_kafka_message_destroy>>;
using MetadataPtr = std::unique_ptr<const rd_kafka_metadata_t, Deleter<rd_kafka_metadata_destroy>>;
using ConfPtr = std::unique_ptr<rd_kafka_conf_t, Deleter<rd_kafka_conf_destroy>>;

}  // namespace krow::kafka
