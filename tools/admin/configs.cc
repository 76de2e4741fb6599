#include "tools/admin/configs.h"

#include <algorithm>

namespace rokka::admin {

namespace {

using ConfigResource = Owned<rd_kafka_ConfigResource_t, rd_kafka_ConfigResource_destroy>;

std::string resource_label(rd_kafka_ResourceType_t type, const std::string& name) {
  return std::string(rd_kafka_ResourceType_name(type)) + " " + name;
}

// The one resource of a DescribeConfigs or AlterConfigs result; its error throws.
const rd_kafka_ConfigResource_t* only_resource(const rd_kafka_ConfigResource_t** resources, size_t n,
                                               const std::string& what) {
  if (n != 1) throw KafkaError(RD_KAFKA_RESP_ERR__BAD_MSG, what + ": expected one resource in the result");
  if (const rd_kafka_resp_err_t e = rd_kafka_ConfigResource_error(resources[0]); e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* message = rd_kafka_ConfigResource_error_string(resources[0]);
    throw KafkaError(e, what + (message != nullptr && *message != '\0' ? std::string(": ") + message : ""));
  }
  return resources[0];
}

}  // namespace

std::string source_name(rd_kafka_ConfigSource_t source) {
  switch (source) {
    case RD_KAFKA_CONFIG_SOURCE_UNKNOWN_CONFIG: return "UNKNOWN_CONFIG";
    case RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG: return "DYNAMIC_TOPIC_CONFIG";
    case RD_KAFKA_CONFIG_SOURCE_DYNAMIC_BROKER_CONFIG: return "DYNAMIC_BROKER_CONFIG";
    case RD_KAFKA_CONFIG_SOURCE_DYNAMIC_DEFAULT_BROKER_CONFIG: return "DYNAMIC_DEFAULT_BROKER_CONFIG";
    case RD_KAFKA_CONFIG_SOURCE_STATIC_BROKER_CONFIG: return "STATIC_BROKER_CONFIG";
    case RD_KAFKA_CONFIG_SOURCE_DEFAULT_CONFIG: return "DEFAULT_CONFIG";
    case RD_KAFKA_CONFIG_SOURCE__CNT: break;
  }
  return "UNKNOWN_CONFIG";
}

std::vector<ConfigEntry> describe_configs(const Client& client, rd_kafka_ResourceType_t type, const std::string& name) {
  const std::string what = "DescribeConfigs " + resource_label(type, name);
  ConfigResource resource(rd_kafka_ConfigResource_new(type, name.c_str()));
  rd_kafka_ConfigResource_t* resources[] = {resource.get()};
  rd_kafka_DescribeConfigs(client.handle(), resources, 1, client.admin_options(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS).get(),
                           client.queue());
  const Event ev = client.wait(RD_KAFKA_EVENT_DESCRIBECONFIGS_RESULT, what);
  size_t n = 0;
  const rd_kafka_ConfigResource_t** result =
      rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(ev.get()), &n);
  size_t count = 0;
  const rd_kafka_ConfigEntry_t** entries = rd_kafka_ConfigResource_configs(only_resource(result, n, what), &count);
  std::vector<ConfigEntry> out;
  for (size_t i = 0; i < count; ++i) {
    const rd_kafka_ConfigEntry_t* e = entries[i];
    ConfigEntry entry{rd_kafka_ConfigEntry_name(e),
                      std::nullopt,
                      rd_kafka_ConfigEntry_source(e),
                      rd_kafka_ConfigEntry_is_read_only(e) != 0,
                      rd_kafka_ConfigEntry_is_default(e) != 0,
                      rd_kafka_ConfigEntry_is_sensitive(e) != 0};
    if (const char* v = rd_kafka_ConfigEntry_value(e)) entry.value = v;
    out.push_back(std::move(entry));
  }
  std::sort(out.begin(), out.end(), [](const ConfigEntry& a, const ConfigEntry& b) { return a.name < b.name; });
  return out;
}

void alter_configs(const Client& client, rd_kafka_ResourceType_t type, const std::string& name,
                   const std::map<std::string, std::string>& configs) {
  const std::string what = "AlterConfigs " + resource_label(type, name);
  ConfigResource resource(rd_kafka_ConfigResource_new(type, name.c_str()));
  for (const auto& [k, v] : configs) {
    if (const rd_kafka_resp_err_t e = rd_kafka_ConfigResource_set_config(resource.get(), k.c_str(), v.c_str());
        e != RD_KAFKA_RESP_ERR_NO_ERROR)
      throw KafkaError(e, what + ": " + k);
  }
  rd_kafka_ConfigResource_t* resources[] = {resource.get()};
  rd_kafka_AlterConfigs(client.handle(), resources, 1, client.admin_options(RD_KAFKA_ADMIN_OP_ALTERCONFIGS).get(),
                        client.queue());
  const Event ev = client.wait(RD_KAFKA_EVENT_ALTERCONFIGS_RESULT, what);
  size_t n = 0;
  const rd_kafka_ConfigResource_t** result =
      rd_kafka_AlterConfigs_result_resources(rd_kafka_event_AlterConfigs_result(ev.get()), &n);
  only_resource(result, n, what);
}

void add_configs_table(Document& doc, const std::vector<std::pair<std::string, std::vector<ConfigEntry>>>& by_resource,
                       const std::string& resource) {
  std::vector<std::string> columns = {"name", "value", "source", "read_only", "sensitive"};
  if (!resource.empty()) columns.insert(columns.begin(), resource);
  Table& t = doc.table("configs", columns);
  for (const auto& [owner, entries] : by_resource) {
    for (const ConfigEntry& e : entries) {
      std::vector<Value> row = {e.name, e.value, source_name(e.source), e.read_only, e.sensitive};
      if (!resource.empty()) row.insert(row.begin(), owner);
      t.add(std::move(row));
    }
  }
}

}  // namespace rokka::admin
