#include "bench/loadgen/kafka.h"

#include <unordered_map>

namespace rokka::bench {

ConfPtr make_conf(const std::string& bootstrap, const Properties& props, std::string* error) {
  ConfPtr conf(rd_kafka_conf_new());
  char errstr[512];
  auto set = [&](const std::string& key, const std::string& value) {
    if (rd_kafka_conf_set(conf.get(), key.c_str(), value.c_str(), errstr, sizeof errstr) ==
        RD_KAFKA_CONF_OK) {
      return true;
    }
    *error = key + "=" + value + ": " + errstr;
    return false;
  };
  if (!set("bootstrap.servers", bootstrap)) return nullptr;
  for (const auto& [key, value] : props) {
    if (!set(key, value)) return nullptr;
  }
  return conf;
}

ClientPtr make_client(rd_kafka_type_t type, ConfPtr conf, std::string* error) {
  char errstr[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf.get(), errstr, sizeof errstr);
  if (rk == nullptr) {
    *error = errstr;
    return nullptr;
  }
  conf.release();  // rd_kafka_new took ownership
  return ClientPtr(rk);
}

int64_t TopicLayout::total_partitions() const {
  int64_t total = 0;
  for (int32_t n : partitions) total += n;
  return total;
}

bool fetch_layout(rd_kafka_t* rk, const std::vector<std::string>& names, int timeout_ms,
                  TopicLayout* layout, std::string* error) {
  const struct rd_kafka_metadata* md = nullptr;
  const rd_kafka_resp_err_t err = rd_kafka_metadata(rk, /*all_topics=*/1, nullptr, &md, timeout_ms);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    *error = std::string("metadata: ") + rd_kafka_err2str(err);
    return false;
  }
  std::unordered_map<std::string_view, const rd_kafka_metadata_topic*> by_name;
  for (int i = 0; i < md->topic_cnt; ++i) by_name.emplace(md->topics[i].topic, &md->topics[i]);

  layout->names = names;
  layout->partitions.clear();
  bool ok = true;
  for (const std::string& name : names) {
    const auto it = by_name.find(name);
    if (it == by_name.end() || it->second->err != RD_KAFKA_RESP_ERR_NO_ERROR ||
        it->second->partition_cnt == 0) {
      *error = "topic " + name + " not found" +
               (it == by_name.end() ? "" : std::string(": ") + rd_kafka_err2str(it->second->err)) +
               " (create it first: --mode create-topics)";
      ok = false;
      break;
    }
    layout->partitions.push_back(it->second->partition_cnt);
  }
  rd_kafka_metadata_destroy(md);
  return ok;
}

}  // namespace rokka::bench
