// rokka-admin topics against build/rokka: what each subcommand prints (JSON and tables)
// and what an independent librdkafka client then sees.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include "tests/admin/admin_cli.h"
#include "tests/testutil/group_consumer.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"

namespace rokka {
namespace {

using testutil::admin;
using testutil::array_of;
using testutil::find_by;
using testutil::GroupBroker;

// Partition count of `topic` as Metadata tells a librdkafka client (-1: no such topic).
int partition_count(const std::string& bootstrap, const std::string& topic) {
  testutil::SimpleConsumer rk = testutil::simple_consumer(bootstrap, "metadata-probe");
  const rd_kafka_metadata_t* md = nullptr;
  if (rd_kafka_metadata(rk.get(), 1, nullptr, &md, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR) return -2;
  int n = -1;
  for (int i = 0; i < md->topic_cnt; ++i)
    if (topic == md->topics[i].topic && md->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR)
      n = md->topics[i].partition_cnt;
  rd_kafka_metadata_destroy(md);
  return n;
}

// The topic's configs with a DYNAMIC_TOPIC_CONFIG source, asked with DescribeConfigs directly.
std::map<std::string, std::string> dynamic_configs(const std::string& bootstrap, const std::string& topic) {
  testutil::SimpleConsumer rk = testutil::simple_consumer(bootstrap, "configs-probe");
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk.get());
  rd_kafka_ConfigResource_t* res = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str());
  rd_kafka_DescribeConfigs(rk.get(), &res, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 30000);
  std::map<std::string, std::string> out;
  size_t n = 0;
  const rd_kafka_ConfigResource_t** r =
      ev ? rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(ev), &n) : nullptr;
  for (size_t i = 0; i < n; ++i) {
    size_t count = 0;
    const rd_kafka_ConfigEntry_t** entries = rd_kafka_ConfigResource_configs(r[i], &count);
    for (size_t j = 0; j < count; ++j)
      if (rd_kafka_ConfigEntry_source(entries[j]) == RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG)
        out[rd_kafka_ConfigEntry_name(entries[j])] = rd_kafka_ConfigEntry_value(entries[j]);
  }
  if (ev) rd_kafka_event_destroy(ev);
  rd_kafka_ConfigResource_destroy(res);
  rd_kafka_queue_destroy(q);
  return out;
}

// Keyed records (a compacted topic refuses records without a key).
void produce(const std::string& bootstrap, const std::string& topic, int32_t partition, int count) {
  testutil::TestProducer p(bootstrap);
  for (int i = 0; i < count; ++i) {
    const std::string n = std::to_string(i);
    ASSERT_EQ(p.produce(topic, partition, "k" + n, "v" + n), RdKafka::ERR_NO_ERROR);
  }
  for (const auto& d : p.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
}

TEST(AdminTopicsTest, CreateMakesTopicsWithTheirPartitionsAndConfigs) {
  GroupBroker broker(1);
  auto run = admin(broker.bootstrap(), {"topics", "create", "a", "b", "-p", "3", "-c", "retention.ms=12345", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto doc = run.json();
  const auto& topics = array_of(doc, "topics");
  ASSERT_EQ(topics.Size(), 2u);
  for (const char* name : {"a", "b"}) {
    const auto* t = find_by(topics, "name", name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_TRUE((*t)["error"].IsNull());
    EXPECT_EQ(partition_count(broker.bootstrap(), name), 3);
    EXPECT_EQ(dynamic_configs(broker.bootstrap(), name),
              (std::map<std::string, std::string>{{"retention.ms", "12345"}}));
  }

  // Again: the broker refuses, the table says why, and the exit code is 1.
  run = admin(broker.bootstrap(), {"topics", "create", "a"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  const auto text = testutil::parse_text(run.out);
  ASSERT_EQ(text.tables.at("").size(), 1u) << run.out;
  EXPECT_EQ(text.tables.at("")[0].at("NAME"), "a");
  EXPECT_EQ(text.tables.at("")[0].at("ERROR"), "TOPIC_ALREADY_EXISTS");

  // --validate-only creates nothing.
  run = admin(broker.bootstrap(), {"topics", "create", "c", "--validate-only", "--json"});
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(partition_count(broker.bootstrap(), "c"), -1);
}

TEST(AdminTopicsTest, ListShowsEveryTopicWithItsPartitionCount) {
  GroupBroker broker(1);
  testutil::KafkaAdmin kafka(broker.bootstrap());
  ASSERT_EQ(kafka.create_topic("one", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(kafka.create_topic("five", 5), RD_KAFKA_RESP_ERR_NO_ERROR);

  auto run = admin(broker.bootstrap(), {"topics", "list", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto doc = run.json();
  const auto& topics = array_of(doc, "topics");
  std::map<std::string, int> listed;
  for (const auto& t : topics.GetArray()) listed[t["name"].GetString()] = t["partitions"].GetInt();
  EXPECT_EQ(listed, (std::map<std::string, int>{{"five", 5}, {"one", 1}}));

  run = admin(broker.bootstrap(), {"topics", "list"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto rows = testutil::parse_text(run.out).tables.at("");
  ASSERT_EQ(rows.size(), 2u) << run.out;
  EXPECT_EQ(rows[0].at("NAME"), "five");
  EXPECT_EQ(rows[0].at("PARTITIONS"), "5");
  EXPECT_EQ(rows[1].at("NAME"), "one");
  EXPECT_EQ(rows[1].at("REPLICATION-FACTOR"), "1");
}

TEST(AdminTopicsTest, DescribeShowsLeadersOffsetsAndConfigs) {
  GroupBroker broker(1);
  testutil::KafkaAdmin kafka(broker.bootstrap());
  ASSERT_EQ(kafka.create_topic("t", 3, {{"cleanup.policy", "compact"}}), RD_KAFKA_RESP_ERR_NO_ERROR);
  produce(broker.bootstrap(), "t", 1, 5);
  produce(broker.bootstrap(), "t", 2, 2);

  auto run = admin(broker.bootstrap(), {"topics", "describe", "t", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto doc = run.json();
  ASSERT_EQ(array_of(doc, "topics").Size(), 1u);
  EXPECT_EQ(array_of(doc, "topics")[0]["partitions"].GetInt(), 3);
  const auto& partitions = array_of(doc, "partitions");
  ASSERT_EQ(partitions.Size(), 3u);
  const int64_t expected_hw[] = {0, 5, 2};
  for (int p = 0; p < 3; ++p) {
    const auto& row = partitions[p];
    EXPECT_EQ(row["partition"].GetInt(), p);
    EXPECT_EQ(row["leader"].GetInt(), 0) << "the one broker leads every partition";
    EXPECT_EQ(row["log_start_offset"].GetInt64(), 0);
    EXPECT_EQ(row["high_watermark"].GetInt64(), expected_hw[p]);
    ASSERT_EQ(row["replicas"].Size(), 1u);
    EXPECT_EQ(row["replicas"][0].GetInt(), 0);
  }
  const auto* policy = find_by(array_of(doc, "configs"), "name", "cleanup.policy");
  ASSERT_NE(policy, nullptr);
  EXPECT_STREQ((*policy)["value"].GetString(), "compact");
  EXPECT_STREQ((*policy)["source"].GetString(), "DYNAMIC_TOPIC_CONFIG");
  const auto* segment = find_by(array_of(doc, "configs"), "name", "retention.ms");
  ASSERT_NE(segment, nullptr);
  EXPECT_STREQ((*segment)["source"].GetString(), "DEFAULT_CONFIG");

  run = admin(broker.bootstrap(), {"topics", "describe", "t"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto text = testutil::parse_text(run.out);
  ASSERT_EQ(text.tables.at("PARTITIONS").size(), 3u) << run.out;
  EXPECT_EQ(text.tables.at("PARTITIONS")[1].at("HIGH-WATERMARK"), "5");
  EXPECT_EQ(text.tables.at("PARTITIONS")[2].at("HIGH-WATERMARK"), "2");
  bool found = false;
  for (const auto& row : text.tables.at("CONFIGS"))
    if (row.at("NAME") == "cleanup.policy") found = row.at("VALUE") == "compact" && row.at("TOPIC") == "t";
  EXPECT_TRUE(found) << run.out;

  run = admin(broker.bootstrap(), {"topics", "describe", "nope", "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_STREQ(run.json()["error"].GetString(), "UNKNOWN_TOPIC_OR_PART");
}

TEST(AdminTopicsTest, AlterConfigSetsAndDeletesKeysAndKeepsTheOthers) {
  GroupBroker broker(1);
  testutil::KafkaAdmin kafka(broker.bootstrap());
  ASSERT_EQ(kafka.create_topic("t", 1, {{"retention.ms", "1000"}, {"cleanup.policy", "compact"}}),
            RD_KAFKA_RESP_ERR_NO_ERROR);

  auto run = admin(broker.bootstrap(),
                   {"topics", "alter-config", "t", "--set", "segment.ms=60000", "--delete", "retention.ms", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(dynamic_configs(broker.bootstrap(), "t"),
            (std::map<std::string, std::string>{{"cleanup.policy", "compact"}, {"segment.ms", "60000"}}));
  const auto doc = run.json();
  const auto* deleted = find_by(array_of(doc, "changes"), "name", "retention.ms");
  ASSERT_NE(deleted, nullptr);
  EXPECT_STREQ((*deleted)["old_value"].GetString(), "1000");
  EXPECT_TRUE((*deleted)["new_value"].IsNull());

  run = admin(broker.bootstrap(), {"topics", "alter-config", "t", "--set", "cleanup.policy=delete"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto rows = testutil::parse_text(run.out).tables.at("CHANGES");
  ASSERT_EQ(rows.size(), 1u) << run.out;
  EXPECT_EQ(rows[0].at("OLD-VALUE"), "compact");
  EXPECT_EQ(rows[0].at("NEW-VALUE"), "delete");
  EXPECT_EQ(dynamic_configs(broker.bootstrap(), "t").at("cleanup.policy"), "delete");

  // A key the broker does not know: Kafka's INVALID_CONFIG, nothing changed.
  run = admin(broker.bootstrap(), {"topics", "alter-config", "t", "--set", "no.such.key=1", "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_EQ(dynamic_configs(broker.bootstrap(), "t").count("no.such.key"), 0u);
  EXPECT_EQ(admin(broker.bootstrap(), {"topics", "alter-config", "t"}).exit_code, 2) << "nothing to change";
}

TEST(AdminTopicsTest, AddPartitionsGrowsByNumberOrToATotal) {
  GroupBroker broker(1);
  testutil::KafkaAdmin kafka(broker.bootstrap());
  ASSERT_EQ(kafka.create_topic("t", 2), RD_KAFKA_RESP_ERR_NO_ERROR);

  auto run = admin(broker.bootstrap(), {"topics", "add-partitions", "t", "--num", "3", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(run.json()["topics"][0]["partitions"].GetInt(), 5);
  EXPECT_EQ(partition_count(broker.bootstrap(), "t"), 5);

  run = admin(broker.bootstrap(), {"topics", "add-partitions", "t", "--total", "6"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(partition_count(broker.bootstrap(), "t"), 6);

  run = admin(broker.bootstrap(), {"topics", "add-partitions", "t", "--total", "4", "--json"});
  EXPECT_EQ(run.exit_code, 1) << "a partition count only grows";
  EXPECT_STREQ(run.json()["topics"][0]["error"].GetString(), "INVALID_PARTITIONS");
  EXPECT_EQ(partition_count(broker.bootstrap(), "t"), 6);
  EXPECT_EQ(admin(broker.bootstrap(), {"topics", "add-partitions", "t"}).exit_code, 2);
}

TEST(AdminTopicsTest, DeleteRemovesTopics) {
  GroupBroker broker(1);
  testutil::KafkaAdmin kafka(broker.bootstrap());
  ASSERT_EQ(kafka.create_topic("gone", 2), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(kafka.create_topic("kept", 1), RD_KAFKA_RESP_ERR_NO_ERROR);

  auto run = admin(broker.bootstrap(), {"topics", "delete", "gone", "never", "--json"});
  EXPECT_EQ(run.exit_code, 1) << "one of the two did not exist: " << run.describe();
  const auto doc = run.json();
  EXPECT_TRUE((*find_by(array_of(doc, "topics"), "name", "gone"))["error"].IsNull());
  EXPECT_STREQ((*find_by(array_of(doc, "topics"), "name", "never"))["error"].GetString(), "UNKNOWN_TOPIC_OR_PART");
  EXPECT_EQ(partition_count(broker.bootstrap(), "gone"), -1);
  EXPECT_EQ(partition_count(broker.bootstrap(), "kept"), 1);
}

TEST(AdminTopicsTest, DeleteRecordsMovesTheLogStartOffset) {
  GroupBroker broker(1);
  testutil::KafkaAdmin kafka(broker.bootstrap());
  ASSERT_EQ(kafka.create_topic("t", 2), RD_KAFKA_RESP_ERR_NO_ERROR);
  produce(broker.bootstrap(), "t", 0, 10);
  produce(broker.bootstrap(), "t", 1, 3);

  auto run = admin(broker.bootstrap(), {"topics", "delete-records", "t:0", "--offset", "4", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto doc = run.json();
  ASSERT_EQ(array_of(doc, "partitions").Size(), 1u);
  EXPECT_EQ(doc["partitions"][0]["low_watermark"].GetInt64(), 4);
  const auto records = testutil::consume_assigned(broker.bootstrap(), "t", {0}, RdKafka::Topic::OFFSET_BEGINNING, 6);
  ASSERT_EQ(records.size(), 6u);
  EXPECT_EQ(records.front().offset, 4);
  EXPECT_EQ(records.front().value, "v4");

  // Every partition, to the end.
  run = admin(broker.bootstrap(), {"topics", "delete-records", "t", "--offset", "end"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto rows = testutil::parse_text(run.out).tables.at("");
  ASSERT_EQ(rows.size(), 2u) << run.out;
  EXPECT_EQ(rows[0].at("LOW-WATERMARK"), "10");
  EXPECT_EQ(rows[1].at("LOW-WATERMARK"), "3");
  testutil::SimpleConsumer rk = testutil::simple_consumer(broker.bootstrap(), "wm");
  int64_t low = -1, high = -1;
  ASSERT_EQ(rd_kafka_query_watermark_offsets(rk.get(), "t", 1, &low, &high, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(low, 3);
  EXPECT_EQ(high, 3);

  run = admin(broker.bootstrap(), {"topics", "delete-records", "t:0", "--offset", "99", "--json"});
  EXPECT_EQ(run.exit_code, 1) << "beyond the high watermark: " << run.describe();
  EXPECT_STREQ(run.json()["partitions"][0]["error"].GetString(), "OFFSET_OUT_OF_RANGE");
}

}  // namespace
}  // namespace rokka
