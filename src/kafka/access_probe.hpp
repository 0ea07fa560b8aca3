#pragma once
// Probes of what a key may do, for `krow doctor`: READ on topics (a real fetch, the only
// request that needs READ; metadata and ListOffsets need DESCRIBE only) and READ on the lag
// group. Nothing is written and no group is joined.
//
// Thread: the caller's, one at a time per client; both block up to their timeout and serve
// the client's callbacks.

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kafka/client.hpp"
#include "util/ids.hpp"

namespace krow::kafka {

// One partition to fetch from, at `start` (an offset that exists, e.g. the log start).
struct ReadProbe {
  TopicPartition partition;
  Offset start;
};

struct ReadAnswer {
  bool answered = false;  // false: no answer within the timeout (error then says so)
  rd_kafka_resp_err_t error =
      RD_KAFKA_RESP_ERR_NO_ERROR;       // TOPIC_AUTHORIZATION_FAILED without READ
  std::string detail;                   // the client's words for the error
  std::optional<size_t> message_bytes;  // key + value of the message fetched, when one came
};

// Fetches from each partition (one per topic is enough) with the client's handle: a message
// or the end of the partition means READ is granted. Answers by topic name. The client's
// assignment is cleared again before this returns.
std::map<std::string, ReadAnswer> probe_read(Client& client, const std::vector<ReadProbe>& probes,
                                             std::chrono::milliseconds timeout);

struct GroupAccess {
  rd_kafka_resp_err_t error =
      RD_KAFKA_RESP_ERR_NO_ERROR;  // GROUP_AUTHORIZATION_FAILED: not even DESCRIBE
  std::string detail;
  bool operations_known = false;  // the broker reported the key's operations on the group
  bool can_read = false;          // READ (or ALL) among them
};

// Describes consumer group `group` with the key's authorized operations: READ on the group
// is what committing its offsets needs (DESCRIBE comes with it).
GroupAccess probe_group(Client& client, const std::string& group,
                        std::chrono::milliseconds timeout);

}  // namespace krow::kafka
