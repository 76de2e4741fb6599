#include "tools/admin/client.h"

#include <algorithm>
#include <fstream>

#include "tools/admin/text.h"

namespace rokka::admin {

namespace {

void set(rd_kafka_conf_t* conf, const std::string& key, const std::string& value, const std::string& where) {
  char err[512];
  if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK)
    throw UsageError(where + ": " + err);
}

void quiet_log(const rd_kafka_t*, int, const char*, const char*) {}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace

std::string error_name(rd_kafka_resp_err_t err) { return rd_kafka_err2name(err); }

std::map<std::string, std::string> read_properties(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--command-config: cannot read '" + path + "'");
  std::map<std::string, std::string> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == '!') continue;
    const size_t sep = line.find_first_of("=:");
    if (sep == std::string::npos || sep == 0)
      throw UsageError(path + ":" + std::to_string(n) + ": expected key=value, got '" + line + "'");
    out[trim(line.substr(0, sep))] = trim(line.substr(sep + 1));
  }
  return out;
}

Client::Client(const ClientOptions& options, rd_kafka_type_t type, const std::map<std::string, std::string>& settings,
               const std::function<void(rd_kafka_conf_t*)>& prepare)
    : timeout_ms_(options.timeout_ms) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  try {
    set(conf, "bootstrap.servers", options.bootstrap, "--bootstrap-server");
    set(conf, "client.id", "rokka-admin", "client.id");
    if (type == RD_KAFKA_CONSUMER) set(conf, "isolation.level", "read_uncommitted", "isolation.level");
    if (!options.command_config.empty()) {
      for (const auto& [k, v] : read_properties(options.command_config)) set(conf, k, v, options.command_config);
    }
    for (const auto& [k, v] : settings) set(conf, k, v, k);
  } catch (...) {
    rd_kafka_conf_destroy(conf);
    throw;
  }
  if (!options.verbose) rd_kafka_conf_set_log_cb(conf, quiet_log);
  if (prepare) prepare(conf);
  char err[512];
  rk_ = rd_kafka_new(type, conf, err, sizeof(err));
  if (rk_ == nullptr) {
    rd_kafka_conf_destroy(conf);
    throw UsageError(std::string("client: ") + err);
  }
  queue_ = rd_kafka_queue_new(rk_);
}

Client::~Client() {
  rd_kafka_queue_destroy(queue_);
  rd_kafka_destroy(rk_);
}

AdminOptions Client::admin_options(rd_kafka_admin_op_t op) const {
  AdminOptions options(rd_kafka_AdminOptions_new(rk_, op));
  char err[512];
  if (rd_kafka_AdminOptions_set_request_timeout(options.get(), timeout_ms_, err, sizeof(err)) !=
      RD_KAFKA_RESP_ERR_NO_ERROR)
    throw UsageError(std::string("--timeout: ") + err);
  return options;
}

Event Client::wait(rd_kafka_event_type_t type, const std::string& what) const {
  // librdkafka ends the request itself after the request timeout; the margin covers its queueing.
  Event ev(rd_kafka_queue_poll(queue_, timeout_ms_ + 5000));
  if (!ev) throw KafkaError(RD_KAFKA_RESP_ERR__TIMED_OUT, what);
  if (rd_kafka_event_type(ev.get()) != type) throw KafkaError(RD_KAFKA_RESP_ERR__FAIL, what + ": unexpected event");
  if (const rd_kafka_resp_err_t e = rd_kafka_event_error(ev.get()); e != RD_KAFKA_RESP_ERR_NO_ERROR)
    throw KafkaError(e, what + ": " + rd_kafka_event_error_string(ev.get()));
  return ev;
}

Metadata Client::metadata() const {
  const rd_kafka_metadata_t* md = nullptr;
  if (const rd_kafka_resp_err_t e = rd_kafka_metadata(rk_, 1, nullptr, &md, timeout_ms_);
      e != RD_KAFKA_RESP_ERR_NO_ERROR)
    throw KafkaError(e, "Metadata");
  return Metadata(md);
}

std::vector<int32_t> Client::partitions_of(const rd_kafka_metadata_t& metadata, const std::string& topic) {
  for (int i = 0; i < metadata.topic_cnt; ++i) {
    const rd_kafka_metadata_topic_t& t = metadata.topics[i];
    if (topic != t.topic) continue;
    if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR) throw KafkaError(t.err, "topic " + topic);
    std::vector<int32_t> out;
    for (int p = 0; p < t.partition_cnt; ++p) out.push_back(t.partitions[p].id);
    std::sort(out.begin(), out.end());
    return out;
  }
  throw KafkaError(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, "topic " + topic);
}

std::map<TopicPartition, int64_t> Client::offsets_at(const std::vector<TopicPartition>& partitions, int64_t timestamp,
                                                     std::map<TopicPartition, rd_kafka_resp_err_t>* errors) const {
  std::map<TopicPartition, int64_t> out;
  if (partitions.empty()) return out;
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (const auto& tp : partitions)
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition)->offset = timestamp;
  if (const rd_kafka_resp_err_t e = rd_kafka_offsets_for_times(rk_, list.get(), timeout_ms_);
      e != RD_KAFKA_RESP_ERR_NO_ERROR)
    throw KafkaError(e, "ListOffsets");
  for (int i = 0; i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = list->elems[i];
    if (tp.err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      out[{tp.topic, tp.partition}] = tp.offset;
    } else if (errors != nullptr) {
      (*errors)[{tp.topic, tp.partition}] = tp.err;
    }
  }
  return out;
}

}  // namespace rokka::admin
