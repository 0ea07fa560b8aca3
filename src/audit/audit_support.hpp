#pragma once
// What `krow audit` and `krow reconcile` share: reading a range of a partition from Kafka, and
// the tables a `--tables` list selects.
//
// Thread: the calling thread.

#include <chrono>
#include <string>
#include <vector>

#include <memory>

#include "kafka/client.hpp"
#include "kafka/errors.hpp"
#include "kafka/message.hpp"
#include "kafka/reader.hpp"
#include "plan/plan.hpp"
#include "registry/decoder_cache.hpp"
#include "sync/row_builder.hpp"
#include "util/error.hpp"
#include "util/ids.hpp"

namespace krow::audit {

// The plan's tables named by `names` (table or topic names; empty: all of them), in plan order.
// Throws Error(config) for a name that is neither, listing the sync's tables.
std::vector<const TopicPlan*> select_tables(const Plan& plan, const std::vector<std::string>& names,
                                            const std::string& sync_id);

// What reads messages again and decodes them as a sync does: a Kafka client of its own (no
// group, read_committed), the registry's decoders cached by schema ID (none without a
// registry), and the row builder.
struct Decoding {
  Decoding(const Manifest& manifest, const std::string& client_id);
  kafka::Client client;
  std::unique_ptr<DecoderCache> schemas;
  RowBuilder rows;
};

// How long reading a range may make no progress before the audit gives up (as an outage).
inline constexpr auto kStall = std::chrono::seconds(60);

// Reads the messages of [from, to) of one partition, read_committed, calling on(message) for
// each in offset order. Ends early at the partition's end (its last stable offset).
template <class OnMessage>
void read_range(kafka::Client& client, const std::string& topic, Partition partition, Offset from,
                Offset to, OnMessage&& on) {
  if (from >= to) return;
  kafka::Reader reader(client);
  reader.start(Position{topic, {}, partition, from});
  std::vector<kafka::Message> got;
  auto progressed = std::chrono::steady_clock::now();
  for (;;) {
    got.clear();
    reader.poll(got, 10000, 200);
    if (got.empty()) {
      if (std::chrono::steady_clock::now() - progressed > kStall)
        throw Error(ErrorClass::transient,
                    "reading " + topic + " partition " + std::to_string(partition.value()) +
                        " from offset " + std::to_string(from.value()) +
                        " made no progress for 60 s; run the audit again once the cluster answers");
      continue;
    }
    progressed = std::chrono::steady_clock::now();
    for (const auto& m : got) {
      if (m.error() == RD_KAFKA_RESP_ERR__PARTITION_EOF) return;
      if (m.error() != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (kafka::is_retriable(m.error())) continue;
        if (m.error() == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET ||
            m.error() == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE)
          throw Error(ErrorClass::transient,
                      topic + " partition " + std::to_string(partition.value()) +
                          " no longer holds offset " + std::to_string(from.value()) +
                          " (retention removed it while the audit ran); run the audit again");
        throw kafka::make_error(m, "reading " + topic + " for the audit", client.principal());
      }
      if (m.offset() >= to) return;
      on(m);
      if (m.offset().next() >= to) return;
    }
  }
}

}  // namespace krow::audit
