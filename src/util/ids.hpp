#pragma once
// Strong types for the identifiers that travel together through krow — topic ID,
// partition, offset, schema ID — so that one cannot be passed where another is meant, and
// the two small records built from them: a topic partition, and a position.

#include <compare>
#include <cstdint>
#include <string>
#include <utility>

namespace krow {

// A number that means one thing. Construction is explicit; comparisons work between
// values of the same kind only.
template <class Tag, class Rep>
class Id {
 public:
  constexpr Id() = default;
  constexpr explicit Id(Rep v) : v_(v) {}
  constexpr Rep value() const { return v_; }
  friend constexpr auto operator<=>(Id, Id) = default;

 private:
  Rep v_{};
};

// A Kafka partition number.
using Partition = Id<struct PartitionTag, int32_t>;

// How many times a sync's partition was taken (StateStore::take): every take bumps it, and
// every commit is fenced on the one its writer took. 0: never taken (a warehouse of an
// earlier krow, or a writer that commits without taking).
using Epoch = Id<struct EpochTag, int64_t>;

// A Schema Registry schema ID: a positive 32-bit integer (0 is never an ID).
using SchemaId = Id<struct SchemaIdTag, int32_t>;

// A Kafka offset. Positions are offsets too: "the next offset to read" (the last
// processed offset + 1).
class Offset {
 public:
  constexpr Offset() = default;
  constexpr explicit Offset(int64_t v) : v_(v) {}
  constexpr int64_t value() const { return v_; }
  // The offset after this one: what a position becomes once this offset is processed.
  constexpr Offset next() const { return Offset(v_ + 1); }
  // How many offsets lie in [b, a); 0 when b is not before a.
  friend constexpr int64_t distance(Offset b, Offset a) { return a.v_ > b.v_ ? a.v_ - b.v_ : 0; }
  friend constexpr auto operator<=>(Offset, Offset) = default;

 private:
  int64_t v_ = 0;
};

// Kafka's topic UUID in its own text form (22 characters of URL-safe base64). A topic
// deleted and recreated under the same name gets a new one.
class TopicId {
 public:
  TopicId() = default;
  explicit TopicId(std::string text) : text_(std::move(text)) {}
  const std::string& str() const { return text_; }
  bool empty() const { return text_.empty(); }
  friend auto operator<=>(const TopicId&, const TopicId&) = default;

 private:
  std::string text_;
};

struct TopicPartition {
  std::string topic;
  Partition partition;
  friend auto operator<=>(const TopicPartition&, const TopicPartition&) = default;
};

// Where reading a partition stands: the next offset to read. The topic ID tells apart the
// incarnations of a topic name.
struct Position {
  std::string topic;
  TopicId topic_id;
  Partition partition;
  Offset next;
};

// Offsets [from, to) of one partition of a topic.
struct OffsetRange {
  TopicId topic_id;
  Partition partition;
  Offset from;
  Offset to;
};

}  // namespace krow
