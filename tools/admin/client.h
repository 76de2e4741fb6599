// The librdkafka side of rokka-admin: one client handle configured from the command
// line (--bootstrap-server, --command-config), blocking Admin API requests, and the
// metadata and offset look-ups several commands share.
#pragma once

#include <librdkafka/rdkafka.h>

#include <compare>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace rokka::admin {

// Kafka (or librdkafka) said no: exit code 1.
class KafkaError : public std::runtime_error {
 public:
  KafkaError(rd_kafka_resp_err_t code, const std::string& what)
      : std::runtime_error(what + ": " + rd_kafka_err2str(code)), code_(code) {}
  rd_kafka_resp_err_t code() const { return code_; }

 private:
  rd_kafka_resp_err_t code_;
};

// Frees a librdkafka object with its own destroy function.
template <auto Destroy>
struct Destroyer {
  template <typename T>
  void operator()(T* p) const {
    Destroy(p);
  }
};
template <typename T, auto Destroy>
using Owned = std::unique_ptr<T, Destroyer<Destroy>>;

using Event = Owned<rd_kafka_event_t, rd_kafka_event_destroy>;
using PartitionList = Owned<rd_kafka_topic_partition_list_t, rd_kafka_topic_partition_list_destroy>;
using AdminOptions = Owned<rd_kafka_AdminOptions_t, rd_kafka_AdminOptions_destroy>;
using Metadata = Owned<const rd_kafka_metadata_t, rd_kafka_metadata_destroy>;

// The error's name as Kafka spells it (TOPIC_ALREADY_EXISTS), null when there is none.
std::string error_name(rd_kafka_resp_err_t err);

// How to reach the cluster: the global options of every command.
struct ClientOptions {
  std::string bootstrap = "127.0.0.1:9092";
  std::string command_config;  // a client properties file, "" for none
  int timeout_ms = 10000;
  bool verbose = false;  // librdkafka's own log on stderr
};

struct TopicPartition {
  std::string topic;
  int32_t partition = -1;
  auto operator<=>(const TopicPartition&) const = default;
};

class Client {
 public:
  // A consumer-type handle unless told otherwise: its Metadata requests never create
  // topics, and its ListOffsets read the high watermark (read_uncommitted), as Kafka's
  // tools do. `settings` come after the command config, so a command's own win;
  // `prepare` may set callbacks on the configuration before the handle is made.
  explicit Client(const ClientOptions& options, rd_kafka_type_t type = RD_KAFKA_CONSUMER,
                  const std::map<std::string, std::string>& settings = {},
                  const std::function<void(rd_kafka_conf_t*)>& prepare = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  rd_kafka_t* handle() const { return rk_; }
  int timeout_ms() const { return timeout_ms_; }
  rd_kafka_queue_t* queue() const { return queue_; }

  // Options for an Admin request of kind `op`, with the request timeout.
  AdminOptions admin_options(rd_kafka_admin_op_t op) const;
  // Waits for the result of the Admin request just sent; a request-level error throws.
  Event wait(rd_kafka_event_type_t type, const std::string& what) const;

  Metadata metadata() const;  // brokers and every topic
  // The partitions of `topic` in `metadata`, ascending; UNKNOWN_TOPIC_OR_PART throws.
  static std::vector<int32_t> partitions_of(const rd_kafka_metadata_t& metadata, const std::string& topic);

  // ListOffsets: the offset of each partition at `timestamp` (ms since the epoch, or -2
  // earliest, -1 latest); a timestamp after the last record gives -1. A partition whose
  // look-up failed is missing from the result (its error is in `errors`, if given).
  std::map<TopicPartition, int64_t> offsets_at(const std::vector<TopicPartition>& partitions, int64_t timestamp,
                                               std::map<TopicPartition, rd_kafka_resp_err_t>* errors = nullptr) const;

 private:
  rd_kafka_t* rk_ = nullptr;
  rd_kafka_queue_t* queue_ = nullptr;
  int timeout_ms_ = 0;
};

// Reads a Java-style properties file (key=value or key: value, '#' and '!' comments).
std::map<std::string, std::string> read_properties(const std::string& path);

}  // namespace rokka::admin
