#include "kafka/library.hpp"

#include <librdkafka/rdkafka.h>

namespace krow::kafka {

std::string librdkafka_version() {
  return rd_kafka_version_str();
}

bool librdkafka_new_enough() {
  return rd_kafka_version() >= 0x020400ff;
}

}  // namespace krow::kafka
