// rokka-admin cluster: describe (brokers, controller, cluster id), configs (a broker's
// configs).
#include "tools/admin/cli.h"
#include "tools/admin/commands.h"
#include "tools/admin/configs.h"
#include "tools/admin/text.h"

namespace rokka::admin {

namespace {

void free_string(char* s) { rd_kafka_mem_free(nullptr, s); }

int run_describe(const Invocation& inv) {
  Client client(inv.client());
  const Metadata md = client.metadata();
  const Owned<char, free_string> cluster_id(rd_kafka_clusterid(client.handle(), client.timeout_ms()));
  const int32_t controller = rd_kafka_controllerid(client.handle(), client.timeout_ms());
  Document doc;
  doc.set("cluster_id", cluster_id ? Value(cluster_id.get()) : Value(nullptr));
  doc.set("controller_id", controller >= 0 ? Value(controller) : Value(nullptr));
  Table& brokers = doc.table("brokers", {"id", "host", "port", "controller"});
  for (int i = 0; i < md->broker_cnt; ++i) {
    const rd_kafka_metadata_broker_t& b = md->brokers[i];
    brokers.add({b.id, b.host, b.port, b.id == controller});
  }
  inv.print(doc);
  return kExitOk;
}

int run_configs(const Invocation& inv) {
  Client client(inv.client());
  int32_t broker = -1;
  if (inv.has("broker")) {
    broker = inv.get<int32_t>("broker");
  } else {
    const Metadata md = client.metadata();
    if (md->broker_cnt == 0) throw KafkaError(RD_KAFKA_RESP_ERR__TRANSPORT, "Metadata: no brokers");
    broker = md->brokers[0].id;
  }
  const std::string name = std::to_string(broker);
  std::vector<ConfigEntry> entries = describe_configs(client, RD_KAFKA_RESOURCE_BROKER, name);
  if (inv.has("non-default")) std::erase_if(entries, [](const ConfigEntry& e) { return e.is_default; });
  Document doc;
  doc.set("broker", broker);
  add_configs_table(doc, {{name, entries}}, "");
  inv.print(doc);
  return kExitOk;
}

}  // namespace

Command cluster_command() {
  Command describe{.name = "describe", .summary = "brokers, controller and cluster id (Metadata)", .run = run_describe};
  Command configs{.name = "configs",
                  .summary = "a broker's configs with their sources (DescribeConfigs)",
                  .options =
                      [](po::options_description_easy_init& add) {
                        add("broker", po::value<int32_t>()->value_name("ID"),
                            "the broker id (default: the first broker in Metadata)");
                        add("non-default", "only configs set in server.properties, --override or dynamically");
                      },
                  .run = run_configs};
  return {.name = "cluster",
          .summary = "describe the cluster and its brokers' configs",
          .subcommands = {describe, configs}};
}

}  // namespace rokka::admin
