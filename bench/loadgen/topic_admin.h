// Topic creation through the Kafka admin API (CreateTopics), as a user's tooling would do it.
#pragma once

#include <cstdint>
#include <string>

#include "bench/loadgen/options.h"

namespace rokka::bench {

struct CreateTopicsOutcome {
  int64_t created = 0;
  int64_t existed = 0;          // TOPIC_ALREADY_EXISTS counts as success
  double request_s = 0;         // until every CreateTopics response arrived
  double visible_s = 0;         // until metadata listed every topic with its partitions
  std::string error;            // the first failure; empty on success
};

// Creates topic_names(options), each with options.partitions partitions, in requests of at most
// 1,000 topics, then waits (up to --timeout) until the broker's metadata shows them all.
CreateTopicsOutcome create_topics(const LoadgenOptions& options);

}  // namespace rokka::bench
