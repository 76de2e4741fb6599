// DescribeConfigs and AlterConfigs for one resource (a topic or a broker), shared by
// `topics describe`, `topics alter-config` and `cluster configs`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/admin/client.h"
#include "tools/admin/output.h"

namespace rokka::admin {

struct ConfigEntry {
  std::string name;
  std::optional<std::string> value;  // null: sensitive or unset
  rd_kafka_ConfigSource_t source = RD_KAFKA_CONFIG_SOURCE_UNKNOWN_CONFIG;
  bool read_only = false;
  bool is_default = false;
  bool sensitive = false;
};

// DescribeConfigs of one resource, sorted by name. A resource error throws.
std::vector<ConfigEntry> describe_configs(const Client& client, rd_kafka_ResourceType_t type, const std::string& name);

// AlterConfigs of one resource: `configs` becomes its whole set of dynamic configs
// (the non-incremental API: a key left out returns to its default). A resource error throws.
void alter_configs(const Client& client, rd_kafka_ResourceType_t type, const std::string& name,
                   const std::map<std::string, std::string>& configs);

// Kafka's name for a config source (DYNAMIC_TOPIC_CONFIG, DEFAULT_CONFIG, ...).
std::string source_name(rd_kafka_ConfigSource_t source);

// Appends a "configs" table (name, value, source, read_only, sensitive); `resource`
// adds a first column naming the resource each entry belongs to ("topic": its name).
void add_configs_table(Document& doc, const std::vector<std::pair<std::string, std::vector<ConfigEntry>>>& by_resource,
                       const std::string& resource);

}  // namespace rokka::admin
