// How many partitions a TopicPartitionsMap holds, for the consumer group tests.
#pragma once

#include <cstddef>

#include "coordinator/consumer_assignor.h"

namespace rokka::coordinator::test {

inline size_t count(const TopicPartitionsMap& m) {
  size_t n = 0;
  for (const auto& [topic, partitions] : m) n += partitions.size();
  return n;
}

}  // namespace rokka::coordinator::test
