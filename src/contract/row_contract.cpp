#include "contract/row_contract.hpp"

#include "util/text.hpp"

namespace krow::contract {

std::string_view timestamp_type_name(TimestampType t) {
  switch (t) {
    case TimestampType::create_time:
      return "create_time";
    case TimestampType::log_append_time:
      return "log_append_time";
    case TimestampType::none:
      break;
  }
  return {};
}

void append_id(std::string& out, const TopicId& topic_id, Partition partition, Offset offset) {
  out.append(topic_id.str()).push_back(':');
  append_int(out, partition.value());
  out.push_back(':');
  append_int(out, offset.value());
}

}  // namespace krow::contract
