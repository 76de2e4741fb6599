// rokka-admin topics: create, list, describe, alter-config, add-partitions, delete,
// delete-records.
#include <algorithm>
#include <set>

#include "tools/admin/cli.h"
#include "tools/admin/commands.h"
#include "tools/admin/configs.h"
#include "tools/admin/text.h"

namespace rokka::admin {

namespace {

using NewTopic = Owned<rd_kafka_NewTopic_t, rd_kafka_NewTopic_destroy>;
using DeleteTopic = Owned<rd_kafka_DeleteTopic_t, rd_kafka_DeleteTopic_destroy>;
using NewPartitions = Owned<rd_kafka_NewPartitions_t, rd_kafka_NewPartitions_destroy>;
using DeleteRecords = Owned<rd_kafka_DeleteRecords_t, rd_kafka_DeleteRecords_destroy>;

// One row per topic result (CreateTopics, DeleteTopics, CreatePartitions); true if any failed.
bool add_topic_results(Table& table, const rd_kafka_topic_result_t** results, size_t n,
                       const std::map<std::string, std::vector<Value>>& extra = {}) {
  bool failed = false;
  for (size_t i = 0; i < n; ++i) {
    const std::string name = rd_kafka_topic_result_name(results[i]);
    const rd_kafka_resp_err_t err = rd_kafka_topic_result_error(results[i]);
    failed |= err != RD_KAFKA_RESP_ERR_NO_ERROR;
    std::vector<Value> row = {name};
    if (auto it = extra.find(name); it != extra.end()) row.insert(row.end(), it->second.begin(), it->second.end());
    row.push_back(item_error("topic " + name, err, rd_kafka_topic_result_error_string(results[i])));
    table.add(std::move(row));
  }
  return failed;
}

int run_create(const Invocation& inv) {
  Client client(inv.client());
  const int partitions = inv.get<int>("partitions");
  const int replication = inv.get<int>("replication-factor");
  std::vector<NewTopic> topics;
  for (const std::string& name : inv.words()) {
    char err[512];
    NewTopic t(rd_kafka_NewTopic_new(name.c_str(), partitions, replication, err, sizeof(err)));
    if (!t) throw UsageError("topic " + name + ": " + err);
    for (const std::string& kv : inv.list("config")) {
      const auto [k, v] = parse_key_value(kv, "--config");
      rd_kafka_NewTopic_set_config(t.get(), k.c_str(), v.c_str());
    }
    topics.push_back(std::move(t));
  }
  std::vector<rd_kafka_NewTopic_t*> raw;
  for (auto& t : topics) raw.push_back(t.get());
  AdminOptions options = client.admin_options(RD_KAFKA_ADMIN_OP_CREATETOPICS);
  char err[512];
  if (inv.has("validate-only") && rd_kafka_AdminOptions_set_validate_only(options.get(), 1, err, sizeof(err)))
    throw UsageError(err);
  rd_kafka_CreateTopics(client.handle(), raw.data(), raw.size(), options.get(), client.queue());
  const Event ev = client.wait(RD_KAFKA_EVENT_CREATETOPICS_RESULT, "CreateTopics");
  size_t n = 0;
  const auto** results = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev.get()), &n);
  Document doc;
  if (inv.has("validate-only")) doc.set("validate_only", true);
  const bool failed = add_topic_results(doc.table("topics", {"name", "error"}), results, n);
  inv.print(doc);
  return exit_code(failed);
}

int run_list(const Invocation& inv) {
  Client client(inv.client());
  const Metadata md = client.metadata();
  std::vector<const rd_kafka_metadata_topic_t*> topics;
  for (int i = 0; i < md->topic_cnt; ++i) topics.push_back(&md->topics[i]);
  std::sort(topics.begin(), topics.end(), [](auto* a, auto* b) { return std::string(a->topic) < b->topic; });
  Document doc;
  Table& t = doc.table("topics", {"name", "partitions", "replication_factor"});
  for (const auto* topic : topics) {
    if (!inv.has("internal") && std::string(topic->topic).starts_with("__")) continue;
    t.add({topic->topic, topic->partition_cnt,
           topic->partition_cnt > 0 ? Value(topic->partitions[0].replica_cnt) : nullptr});
  }
  inv.print(doc);
  return kExitOk;
}

const rd_kafka_metadata_topic_t& find_topic(const rd_kafka_metadata_t& md, const std::string& name) {
  Client::partitions_of(md, name);  // throws for a topic the cluster does not have
  for (int i = 0; i < md.topic_cnt; ++i)
    if (name == md.topics[i].topic) return md.topics[i];
  throw KafkaError(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, "topic " + name);
}

Value::List ids(const int32_t* values, int count) { return Value::List(values, values + count); }

int run_describe(const Invocation& inv) {
  Client client(inv.client());
  const Metadata md = client.metadata();
  std::vector<TopicPartition> all;
  for (const std::string& name : inv.words())
    for (int32_t p : Client::partitions_of(*md, name)) all.push_back({name, p});
  const auto earliest = client.offsets_at(all, RD_KAFKA_OFFSET_BEGINNING);
  const auto latest = client.offsets_at(all, RD_KAFKA_OFFSET_END);
  std::vector<std::pair<std::string, std::vector<ConfigEntry>>> configs;
  for (const std::string& name : inv.words())
    configs.emplace_back(name, describe_configs(client, RD_KAFKA_RESOURCE_TOPIC, name));

  Document doc;
  Table& topics = doc.table("topics", {"name", "partitions", "replication_factor"});
  Table& partitions = doc.table(
      "partitions", {"topic", "partition", "leader", "replicas", "isr", "log_start_offset", "high_watermark"});
  for (const std::string& name : inv.words()) {
    const rd_kafka_metadata_topic_t& t = find_topic(*md, name);
    std::vector<const rd_kafka_metadata_partition_t*> parts;
    for (int i = 0; i < t.partition_cnt; ++i) parts.push_back(&t.partitions[i]);
    std::sort(parts.begin(), parts.end(), [](auto* a, auto* b) { return a->id < b->id; });
    topics.add({name, t.partition_cnt, parts.empty() ? Value(nullptr) : Value(parts[0]->replica_cnt)});
    for (const auto* p : parts) {
      const TopicPartition tp{name, p->id};
      partitions.add({name, p->id, p->leader, ids(p->replicas, p->replica_cnt), ids(p->isrs, p->isr_cnt),
                      lookup(earliest, tp), lookup(latest, tp)});
    }
  }
  add_configs_table(doc, configs, "topic");
  inv.print(doc);
  return kExitOk;
}

int run_alter_config(const Invocation& inv) {
  const std::string& topic = inv.words()[0];
  std::map<std::string, std::string> sets;
  for (const std::string& kv : inv.list("set")) sets.insert(parse_key_value(kv, "--set"));
  const std::vector<std::string> deletes = inv.list("delete");
  if (sets.empty() && deletes.empty()) throw UsageError("nothing to change: give --set KEY=VALUE or --delete KEY");
  for (const std::string& k : deletes)
    if (sets.count(k)) throw UsageError("--set and --delete both name " + k);

  Client client(inv.client());
  // AlterConfigs replaces the topic's whole set of dynamic configs: start from the current one.
  std::map<std::string, std::string> current;
  for (const ConfigEntry& e : describe_configs(client, RD_KAFKA_RESOURCE_TOPIC, topic))
    if (e.source == RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG && e.value) current[e.name] = *e.value;
  std::map<std::string, std::string> wanted = current;
  for (const auto& [k, v] : sets) wanted[k] = v;
  for (const std::string& k : deletes) wanted.erase(k);
  alter_configs(client, RD_KAFKA_RESOURCE_TOPIC, topic, wanted);

  Document doc;
  doc.set("topic", topic);
  Table& changes = doc.table("changes", {"name", "old_value", "new_value"});
  std::set<std::string> touched(deletes.begin(), deletes.end());
  for (const auto& [k, v] : sets) touched.insert(k);
  for (const std::string& k : touched) {
    const auto old_it = current.find(k);
    const auto new_it = wanted.find(k);
    changes.add({k, old_it == current.end() ? Value(nullptr) : Value(old_it->second),
                 new_it == wanted.end() ? Value(nullptr) : Value(new_it->second)});
  }
  inv.print(doc);
  return kExitOk;
}

int run_add_partitions(const Invocation& inv) {
  const std::string& topic = inv.words()[0];
  if (inv.has("total") == inv.has("num")) throw UsageError("give exactly one of --total N and --num N");
  Client client(inv.client());
  int total = 0;
  if (inv.has("total")) {
    total = inv.get<int>("total");
  } else {
    const Metadata md = client.metadata();
    total = static_cast<int>(Client::partitions_of(*md, topic).size()) + inv.get<int>("num");
  }
  char err[512];
  NewPartitions np(
      rd_kafka_NewPartitions_new(topic.c_str(), static_cast<size_t>(std::max(total, 0)), err, sizeof(err)));
  if (!np) throw UsageError(err);
  rd_kafka_NewPartitions_t* raw[] = {np.get()};
  rd_kafka_CreatePartitions(client.handle(), raw, 1, client.admin_options(RD_KAFKA_ADMIN_OP_CREATEPARTITIONS).get(),
                            client.queue());
  const Event ev = client.wait(RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT, "CreatePartitions");
  size_t n = 0;
  const auto** results = rd_kafka_CreatePartitions_result_topics(rd_kafka_event_CreatePartitions_result(ev.get()), &n);
  Document doc;
  const bool failed =
      add_topic_results(doc.table("topics", {"name", "partitions", "error"}), results, n, {{topic, {total}}});
  inv.print(doc);
  return exit_code(failed);
}

int run_delete(const Invocation& inv) {
  Client client(inv.client());
  std::vector<DeleteTopic> topics;
  std::vector<rd_kafka_DeleteTopic_t*> raw;
  for (const std::string& name : inv.words()) {
    topics.emplace_back(rd_kafka_DeleteTopic_new(name.c_str()));
    raw.push_back(topics.back().get());
  }
  rd_kafka_DeleteTopics(client.handle(), raw.data(), raw.size(),
                        client.admin_options(RD_KAFKA_ADMIN_OP_DELETETOPICS).get(), client.queue());
  const Event ev = client.wait(RD_KAFKA_EVENT_DELETETOPICS_RESULT, "DeleteTopics");
  size_t n = 0;
  const auto** results = rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev.get()), &n);
  Document doc;
  const bool failed = add_topic_results(doc.table("topics", {"name", "error"}), results, n);
  inv.print(doc);
  return exit_code(failed);
}

int run_delete_records(const Invocation& inv) {
  const std::string offset_text = inv.get<std::string>("offset");
  const int64_t offset = offset_text == "end" ? RD_KAFKA_OFFSET_END : parse_int64(offset_text, "--offset");
  if (offset < 0 && offset != RD_KAFKA_OFFSET_END) throw UsageError("--offset must be >= 0 or 'end'");
  Client client(inv.client());
  const Metadata md = client.metadata();
  PartitionList list(rd_kafka_topic_partition_list_new(0));
  for (const std::string& word : inv.words()) {
    const TopicSpec spec = parse_topic_spec(word);
    for (int32_t p : spec.partitions.value_or(Client::partitions_of(*md, spec.topic)))
      rd_kafka_topic_partition_list_add(list.get(), spec.topic.c_str(), p)->offset = offset;
  }
  DeleteRecords request(rd_kafka_DeleteRecords_new(list.get()));
  rd_kafka_DeleteRecords_t* raw[] = {request.get()};
  rd_kafka_DeleteRecords(client.handle(), raw, 1, client.admin_options(RD_KAFKA_ADMIN_OP_DELETERECORDS).get(),
                         client.queue());
  const Event ev = client.wait(RD_KAFKA_EVENT_DELETERECORDS_RESULT, "DeleteRecords");
  const rd_kafka_topic_partition_list_t* result =
      rd_kafka_DeleteRecords_result_offsets(rd_kafka_event_DeleteRecords_result(ev.get()));
  Document doc;
  Table& t = doc.table("partitions", {"topic", "partition", "low_watermark", "error"});
  bool failed = false;
  for (int i = 0; result != nullptr && i < result->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = result->elems[i];
    failed |= tp.err != RD_KAFKA_RESP_ERR_NO_ERROR;
    const std::string item = std::string(tp.topic) + ":" + std::to_string(tp.partition);
    t.add({tp.topic, tp.partition, tp.err ? Value(nullptr) : Value(tp.offset), item_error(item, tp.err)});
  }
  inv.print(doc);
  return exit_code(failed);
}

}  // namespace

Command topics_command() {
  using Strings = std::vector<std::string>;
  Command create{.name = "create",
                 .summary = "create topics (CreateTopics)",
                 .words = "TOPIC...",
                 .min_words = 1,
                 .options =
                     [](po::options_description_easy_init& add) {
                       add("partitions,p", po::value<int>()->default_value(-1)->value_name("N"),
                           "partitions per topic (-1: the broker's num.partitions)");
                       add("replication-factor,r", po::value<int>()->default_value(-1)->value_name("N"),
                           "replicas per partition (-1: the broker's default)");
                       add("config,c", po::value<Strings>()->composing()->value_name("KEY=VALUE"),
                           "a topic config (repeatable)");
                       add("validate-only", "ask the broker to check the request without creating anything");
                     },
                 .run = run_create};
  Command list{.name = "list",
               .summary = "list topics (Metadata)",
               .options =
                   [](po::options_description_easy_init& add) {
                     add("internal", "include internal topics (names starting with __)");
                   },
               .run = run_list};
  Command describe{
      .name = "describe",
      .summary = "partitions, leaders, offsets and configs of topics (Metadata, ListOffsets, DescribeConfigs)",
      .words = "TOPIC...",
      .min_words = 1,
      .description =
          "Tables: topics, partitions (leader, replicas, ISR, log start offset, high watermark) and\n"
          "configs (value and source of every config). Sizes on disk are not shown: they need\n"
          "DescribeLogDirs, which librdkafka 2.0.2 does not offer.",
      .run = run_describe};
  Command alter{.name = "alter-config",
                .summary = "set or delete a topic's configs (DescribeConfigs, then AlterConfigs)",
                .words = "TOPIC",
                .min_words = 1,
                .max_words = 1,
                .options =
                    [](po::options_description_easy_init& add) {
                      add("set,s", po::value<Strings>()->composing()->value_name("KEY=VALUE"),
                          "set a config (repeatable)");
                      add("delete,d", po::value<Strings>()->composing()->value_name("KEY"),
                          "delete a config: back to the broker's default (repeatable)");
                    },
                .description =
                    "librdkafka 2.0.2 has no IncrementalAlterConfigs: the topic's dynamic configs are read,\n"
                    "changed, and written back whole with AlterConfigs (not atomic against another writer).",
                .run = run_alter_config};
  Command add_partitions{.name = "add-partitions",
                         .summary = "add partitions to a topic (CreatePartitions)",
                         .words = "TOPIC",
                         .min_words = 1,
                         .max_words = 1,
                         .options =
                             [](po::options_description_easy_init& add) {
                               add("total,t", po::value<int>()->value_name("N"),
                                   "the new partition count (as kafka-topics --alter --partitions)");
                               add("num,n", po::value<int>()->value_name("N"), "partitions to add (as rpk)");
                             },
                         .run = run_add_partitions};
  Command del{.name = "delete",
              .summary = "delete topics (DeleteTopics)",
              .words = "TOPIC...",
              .min_words = 1,
              .run = run_delete};
  Command delete_records{
      .name = "delete-records",
      .summary = "delete records before an offset (DeleteRecords)",
      .words = "TOPIC[:P,P...]...",
      .min_words = 1,
      .options =
          [](po::options_description_easy_init& add) {
            add("offset,o", po::value<std::string>()->required()->value_name("N|end"),
                "delete the records before offset N in each partition ('end': all of them)");
          },
      .description = "Each partition's log start offset moves to --offset; the table shows the new low watermark.",
      .run = run_delete_records};
  return {.name = "topics",
          .summary = "create, list, describe, alter, grow and delete topics",
          .subcommands = {create, list, describe, alter, add_partitions, del, delete_records}};
}

}  // namespace rokka::admin
