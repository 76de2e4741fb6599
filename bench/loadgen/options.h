// LoadgenOptions: the load generator's command line, parsed and range-checked.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rokka::bench {

enum class Mode {
  kProduce,       // producers only; latency = send -> delivery report
  kConsume,       // one consumer reads the topics from the start (or --count messages)
  kEndToEnd,      // producers and a consumer in one process; adds send -> consume latency
  kCreateTopics,  // CreateTopics through the admin API, then wait until metadata shows them
};

using Properties = std::vector<std::pair<std::string, std::string>>;

struct LoadgenOptions {
  Mode mode = Mode::kProduce;
  std::string bootstrap = "127.0.0.1:9092";
  std::string topic = "bench";  // one topic, or the prefix of --topics names
  int topics = 1;               // > 1: the topics are <topic>-0 .. <topic>-(topics-1)
  int partitions = 1;           // create-topics only: other modes take the broker's metadata
  int replication = 1;          // create-topics only
  int message_size = 1024;      // bytes of value per message (>= the 24-byte stamp)
  int64_t count = 0;            // messages in all; 0 = produce for duration_s / consume to the end
  double duration_s = 10;
  double rate = 0;              // msgs/s over all producers; 0 = closed loop (as fast as possible)
  std::string acks = "1";
  std::string compression = "none";
  int linger_ms = 5;            // librdkafka 2.0's defaults, written out so every run records them
  int batch_size = 1000000;
  int producers = 1;            // producer instances (rd_kafka_t), one thread each
  int run_length = 1;           // consecutive messages per partition before moving to the next
  std::string group;            // consume: subscribe in this group; empty: assign every partition
  double timeout_s = 60;        // bound on draining, an idle consumer, and admin requests
  std::string label;            // copied into the JSON line
  std::string malloc_policy = "keep";  // keep: freed memory stays in the process; glibc: its defaults
  Properties producer_props;    // --set key=value: any librdkafka producer property
  Properties consumer_props;    // --cset key=value: any librdkafka consumer property
};

struct ParseResult {
  LoadgenOptions options;
  std::string error;  // non-empty: bad command line
  bool help = false;
};

ParseResult parse_args(int argc, char** argv);
const char* usage();

// The topic names the options refer to, in producer round-robin order.
std::vector<std::string> topic_names(const LoadgenOptions& options);

const char* mode_name(Mode mode);

}  // namespace rokka::bench
