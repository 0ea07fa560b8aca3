#pragma once
// Test and demo support: create and delete topics, and produce messages (plain or inside
// transactions) on a real broker with librdkafka. Throws std::runtime_error on failure.

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace krow::testkit {

struct Header {
  std::string key;
  std::optional<std::string> value;  // nullopt: a null header value
};

struct Record {
  std::optional<std::string> key;    // nullopt: no key
  std::optional<std::string> value;  // nullopt: tombstone
  std::vector<Header> headers;
  int32_t partition = RD_KAFKA_PARTITION_UA;
  int64_t timestamp_ms = 0;  // 0: let the producer stamp it
};

class Admin {
 public:
  explicit Admin(const std::string& bootstrap);
  ~Admin();
  // Returns false when the topic already existed (it is left as it is).
  bool create_topic(const std::string& name, int partitions,
                    const std::map<std::string, std::string>& configs = {});
  void delete_topic(const std::string& name);
  // Deletes the records of topic/partition below offset `before` (the log start moves up
  // to it), as retention would.
  void delete_records(const std::string& topic, int32_t partition, int64_t before);
  // Raises the partition count of `topic` to `total`, and waits until it can be described so.
  void add_partitions(const std::string& topic, int total);
  // Grants `principal` (e.g. "User:krow") an operation on a topic or group resource, by
  // literal name or by prefix (`prefixed`). Waits until the broker applies it.
  void grant(rd_kafka_ResourceType_t type, const std::string& name, bool prefixed, const std::string& principal,
             rd_kafka_AclOperation_t operation);
  // Removes the ACLs that grant() made with the same arguments (all operations when
  // `operation` is RD_KAFKA_ACL_OPERATION_ANY).
  void revoke(rd_kafka_ResourceType_t type, const std::string& name, bool prefixed, const std::string& principal,
              rd_kafka_AclOperation_t operation = RD_KAFKA_ACL_OPERATION_ANY);
  // Committed offsets of a consumer group for the partitions of `topic`; -1 where none.
  std::map<int32_t, int64_t> group_offsets(const std::string& group, const std::string& topic, int partitions);

  // Waits until `name` can be described with `partitions` partitions (metadata settles).
  void wait_for_topic(const std::string& name, int partitions);

 private:
  rd_kafka_t* rk_ = nullptr;
};

class Producer {
 public:
  // `transactional_id` non-empty makes this a transactional producer (initialised here).
  explicit Producer(const std::string& bootstrap, const std::string& transactional_id = {},
                    const std::map<std::string, std::string>& extra = {});
  ~Producer();

  void send(const std::string& topic, const Record& record);
  void flush();

  void begin();
  void commit();
  void abort();

 private:
  rd_kafka_t* rk_ = nullptr;
};

// A message as an independent consumer sees it: the oracle that krow's rows are checked against.
struct Consumed {
  int32_t partition = 0;
  int64_t offset = 0;
  std::optional<std::string> key;
  std::optional<std::string> value;
};

// Reads every partition of `topic` from the beginning to its end with read_committed, as
// a plain librdkafka consumer (no krow code), sorted by partition and offset.
std::vector<Consumed> consume_all(const std::string& bootstrap, const std::string& topic);

// Bootstrap servers of the local test broker (KROW_TEST_BOOTSTRAP, else 127.0.0.1:9092).
std::string test_bootstrap();

// A topic name unique to this process and call, starting with `prefix`.
std::string unique_name(const std::string& prefix);

}  // namespace krow::testkit
