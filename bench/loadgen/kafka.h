// Thin RAII over librdkafka's C API: client handles, configuration, and topic metadata.
#pragma once

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/loadgen/options.h"

namespace rokka::bench {

// Owns a librdkafka object and frees it with its destroy function: RdPtr<rd_kafka_t, rd_kafka_destroy>.
template <typename T, auto Destroy>
struct RdDeleter {
  void operator()(T* p) const { Destroy(p); }
};
template <typename T, auto Destroy>
using RdPtr = std::unique_ptr<T, RdDeleter<T, Destroy>>;

using ConfPtr = RdPtr<rd_kafka_conf_t, rd_kafka_conf_destroy>;
using ClientPtr = RdPtr<rd_kafka_t, rd_kafka_destroy>;
using TopicPtr = RdPtr<rd_kafka_topic_t, rd_kafka_topic_destroy>;

// A configuration with bootstrap.servers and every property of `props` set, in order (later
// ones win). nullptr with *error set if librdkafka rejects a key or value.
ConfPtr make_conf(const std::string& bootstrap, const Properties& props, std::string* error);

// Creates the client; takes the configuration. nullptr with *error set on failure.
ClientPtr make_client(rd_kafka_type_t type, ConfPtr conf, std::string* error);

// The topics a run uses and their partition counts, as the broker reports them.
struct TopicLayout {
  std::vector<std::string> names;
  std::vector<int32_t> partitions;  // partitions[i] belongs to names[i]

  int64_t total_partitions() const;
};

// Asks the broker for metadata of all topics (never auto-creating one) and returns the layout
// of `names`. Fails with *error set if a topic is missing, has an error, or the request times
// out.
bool fetch_layout(rd_kafka_t* rk, const std::vector<std::string>& names, int timeout_ms,
                  TopicLayout* layout, std::string* error);

}  // namespace rokka::bench
