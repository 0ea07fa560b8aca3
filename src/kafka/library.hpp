#pragma once
// The librdkafka krow runs on, for `krow doctor` and `krow --version`.

#include <string>

namespace krow::kafka {

// "2.12.0".
std::string librdkafka_version();

// Whether it has what krow needs: DescribeTopics with topic IDs and ListOffsets with an
// isolation level, both of librdkafka 2.4.
bool librdkafka_new_enough();

}  // namespace krow::kafka
