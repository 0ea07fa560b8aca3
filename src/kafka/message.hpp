#pragma once
// A read-only view of one consumed message. Owns the librdkafka message and frees it on
// destruction. It exposes bytes only: what they mean is the codec's business.

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <string_view>

#include "kafka/handles.hpp"
#include "util/ids.hpp"

namespace krow::kafka {

class Message {
 public:
  explicit Message(rd_kafka_message_t* m) : m_(m) {}

  rd_kafka_resp_err_t error() const { return m_->err; }
  // For an error message: librdkafka's description of it.
  const char* error_text() const { return rd_kafka_message_errstr(m_.get()); }

  const char* topic() const { return m_->rkt ? rd_kafka_topic_name(m_->rkt) : ""; }
  Partition partition() const { return Partition(m_->partition); }
  // For partition EOF: the offset after the last message.
  Offset offset() const { return Offset(m_->offset); }

  bool has_key() const { return m_->key != nullptr; }
  const void* key() const { return m_->key; }
  size_t key_size() const { return m_->key_len; }

  // Null value: a tombstone.
  bool has_value() const { return m_->payload != nullptr; }
  const void* value() const { return m_->payload; }
  size_t value_size() const { return m_->len; }

  // Milliseconds since the epoch, and whether the producer or the broker set it
  // (RD_KAFKA_TIMESTAMP_NOT_AVAILABLE when neither did).
  int64_t timestamp(rd_kafka_timestamp_type_t* type) const { return rd_kafka_message_timestamp(m_.get(), type); }

  // Calls f(name, value, size) for each header in order; value is null for a null header.
  template <class F>
  void for_each_header(F&& f) const {
    rd_kafka_headers_t* hdrs = nullptr;
    if (rd_kafka_message_headers(m_.get(), &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR) return;
    const char* name;
    const void* value;
    size_t size;
    for (size_t i = 0; rd_kafka_header_get_all(hdrs, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i)
      f(std::string_view(name), value, size);
  }

 private:
  MessagePtr m_;
};

}  // namespace krow::kafka
