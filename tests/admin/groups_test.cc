// rokka-admin groups against build/rokka: list, describe with lag, delete, and
// reset-offsets moving a group that a librdkafka consumer then resumes from.
#include <gtest/gtest.h>

#include <ctime>

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
using testutil::GroupConsumer;

constexpr int kRecords = 10;

// Produces values v<first>..v<first+count-1> to partition 0 with the given timestamp.
void produce(const std::string& bootstrap, const std::string& topic, int first, int count, int64_t timestamp_ms = 0) {
  testutil::TestProducer p(bootstrap);
  for (int i = first; i < first + count; ++i)
    ASSERT_EQ(p.produce(topic, 0, std::nullopt, "v" + std::to_string(i), nullptr, timestamp_ms), RdKafka::ERR_NO_ERROR);
  for (const auto& d : p.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
}

// A member of `group` reads `count` records of the one-partition topic and commits
// them, then leaves (the group is Empty afterwards).
void consume_and_commit(const std::string& bootstrap, const std::string& group, const std::string& topic,
                        size_t count) {
  GroupConsumer c(bootstrap, group, topic);
  ASSERT_TRUE(testutil::poll_all_until({&c}, [&] { return c.processed().size() >= count; }));
  // Commit exactly `count`: the position after the count-th record.
  std::vector<RdKafka::TopicPartition*> tps = {
      RdKafka::TopicPartition::create(topic, 0, c.processed()[count - 1].offset + 1)};
  ASSERT_EQ(c.handle().commitSync(tps), RdKafka::ERR_NO_ERROR);
  RdKafka::TopicPartition::destroy(tps);
  c.close();
}

// What a fresh member of `group` receives, in offset order, until `count` records came.
std::vector<GroupConsumer::Processed> resume(const std::string& bootstrap, const std::string& group,
                                             const std::string& topic, size_t count) {
  GroupConsumer c(bootstrap, group, topic);
  EXPECT_TRUE(testutil::poll_all_until({&c}, [&] { return c.processed().size() >= count; })) << c.history();
  // A moment more: nothing beyond what was expected may arrive.
  testutil::poll_all_until(
      {&c}, [] { return false; }, std::chrono::milliseconds(300));
  auto out = c.processed();
  c.close();
  return out;
}

int64_t committed(const std::string& bootstrap, const std::string& group, const std::string& topic) {
  return testutil::committed_offsets(bootstrap, group, topic, {0}).at(0).offset;
}

std::string iso_utc(int64_t ms) {
  const std::time_t s = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&s, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  char out[80];
  std::snprintf(out, sizeof(out), "%s.%03dZ", buf, static_cast<int>(ms % 1000));
  return out;
}

class AdminResetOffsetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testutil::KafkaAdmin kafka(broker.bootstrap());
    ASSERT_EQ(kafka.create_topic("t", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
    produce(broker.bootstrap(), "t", 0, kRecords);
    consume_and_commit(broker.bootstrap(), "g", "t", 6);
    ASSERT_EQ(committed(broker.bootstrap(), "g", "t"), 6);
  }

  // Resets g with `how`, executed; returns the JSON document.
  rapidjson::Document reset(std::vector<std::string> how) {
    std::vector<std::string> args = {"groups", "reset-offsets", "g", "--topic", "t", "--execute", "--json"};
    args.insert(args.end(), how.begin(), how.end());
    const auto run = admin(broker.bootstrap(), args);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    return run.json();
  }

  // A new member receives exactly the records from `from` to the end.
  void expect_resumes_at(int64_t from) {
    const auto got = resume(broker.bootstrap(), "g", "t", static_cast<size_t>(kRecords - from));
    ASSERT_EQ(got.size(), static_cast<size_t>(kRecords - from));
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].offset, from + static_cast<int64_t>(i));
      EXPECT_EQ(got[i].value, "v" + std::to_string(from + static_cast<int64_t>(i)));
    }
  }

  GroupBroker broker{1};
};

TEST_F(AdminResetOffsetsTest, DryRunShowsTheNewOffsetAndCommitsNothing) {
  for (const auto& extra : {std::vector<std::string>{}, std::vector<std::string>{"--dry-run"}}) {
    std::vector<std::string> args = {"groups", "reset-offsets", "g", "--topic", "t", "--to-earliest", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto run = admin(broker.bootstrap(), args);
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    const auto doc = run.json();
    EXPECT_FALSE(doc["executed"].GetBool());
    ASSERT_EQ(array_of(doc, "offsets").Size(), 1u);
    EXPECT_EQ(doc["offsets"][0]["current_offset"].GetInt64(), 6);
    EXPECT_EQ(doc["offsets"][0]["new_offset"].GetInt64(), 0);
    EXPECT_EQ(committed(broker.bootstrap(), "g", "t"), 6);
  }
  const auto run = admin(broker.bootstrap(), {"groups", "reset-offsets", "g", "--topic", "t:0", "--to-offset", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto text = testutil::parse_text(run.out);
  EXPECT_EQ(text.fields.at("EXECUTED"), "false");
  ASSERT_EQ(text.tables.at("OFFSETS").size(), 1u) << run.out;
  EXPECT_EQ(text.tables.at("OFFSETS")[0].at("CURRENT-OFFSET"), "6");
  EXPECT_EQ(text.tables.at("OFFSETS")[0].at("NEW-OFFSET"), "2");
  EXPECT_EQ(committed(broker.bootstrap(), "g", "t"), 6);
  expect_resumes_at(6);
}

TEST_F(AdminResetOffsetsTest, ToEarliestReplaysEverything) {
  const auto doc = reset({"--to-earliest"});
  EXPECT_TRUE(doc["executed"].GetBool());
  EXPECT_EQ(doc["offsets"][0]["new_offset"].GetInt64(), 0);
  EXPECT_EQ(committed(broker.bootstrap(), "g", "t"), 0);
  expect_resumes_at(0);
}

TEST_F(AdminResetOffsetsTest, ToOffsetResumesThereAndClampsToTheLog) {
  EXPECT_EQ(reset({"--to-offset", "3"})["offsets"][0]["new_offset"].GetInt64(), 3);
  expect_resumes_at(3);
  EXPECT_EQ(reset({"--to-offset", "1000"})["offsets"][0]["new_offset"].GetInt64(), kRecords) << "clamped to the end";
}

TEST_F(AdminResetOffsetsTest, ShiftByMovesFromTheCommittedOffset) {
  EXPECT_EQ(reset({"--shift-by", "-4"})["offsets"][0]["new_offset"].GetInt64(), 2);
  expect_resumes_at(2);
}

TEST_F(AdminResetOffsetsTest, ToLatestSkipsEverythingWritten) {
  EXPECT_EQ(reset({"--to-latest"})["offsets"][0]["new_offset"].GetInt64(), kRecords);
  EXPECT_EQ(committed(broker.bootstrap(), "g", "t"), kRecords);
  produce(broker.bootstrap(), "t", kRecords, 2);  // only these reach the group now
  const auto got = resume(broker.bootstrap(), "g", "t", 2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].offset, kRecords);
  EXPECT_EQ(got[1].value, "v" + std::to_string(kRecords + 1));
}

TEST_F(AdminResetOffsetsTest, ToDatetimeFindsTheFirstRecordAtOrAfterIt) {
  // Four more records an hour "later" (explicit CreateTime), offsets 10..13.
  const int64_t later = 1893456000000;  // 2030-01-01T00:00:00Z
  produce(broker.bootstrap(), "t", kRecords, 4, later);
  const auto doc = reset({"--to-datetime", iso_utc(later - 1)});
  EXPECT_EQ(doc["offsets"][0]["new_offset"].GetInt64(), kRecords);
  const auto got = resume(broker.bootstrap(), "g", "t", 4);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got.front().offset, kRecords);
  EXPECT_EQ(got.back().offset, kRecords + 3);

  // Epoch milliseconds work too; after the last record: the log end.
  EXPECT_EQ(reset({"--to-datetime", std::to_string(later + 1)})["offsets"][0]["new_offset"].GetInt64(), kRecords + 4);
}

TEST_F(AdminResetOffsetsTest, RefusedWhileTheGroupHasMembers) {
  GroupConsumer live(broker.bootstrap(), "g", "t");
  ASSERT_TRUE(testutil::poll_all_until({&live}, [&] { return live.owned().size() == 1; }));
  const auto run = admin(broker.bootstrap(),
                         {"groups", "reset-offsets", "g", "--topic", "t", "--to-earliest", "--execute", "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_STREQ(run.json()["error"].GetString(), "NON_EMPTY_GROUP");
  EXPECT_EQ(committed(broker.bootstrap(), "g", "t"), 6);
}

TEST_F(AdminResetOffsetsTest, UsageErrorsExitTwo) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"groups", "reset-offsets", "g", "--topic", "t"},                                  // no target
           {"groups", "reset-offsets", "g", "--to-earliest"},                                 // no scope
           {"groups", "reset-offsets", "g", "--topic", "t", "--to-earliest", "--to-latest"},  // two targets
           {"groups", "reset-offsets", "g", "--topic", "t", "--to-datetime", "yesterday"},    // bad time
           {"groups", "reset-offsets", "g", "--topic", "t", "--to-earliest", "--dry-run", "--execute"}}) {
    const auto run = admin(broker.bootstrap(), args);
    EXPECT_EQ(run.exit_code, 2) << run.describe();
  }
  EXPECT_EQ(committed(broker.bootstrap(), "g", "t"), 6);
}

TEST(AdminGroupsTest, ListAndDescribeShowMembersAssignmentsAndLag) {
  GroupBroker broker(2);
  testutil::KafkaAdmin kafka(broker.bootstrap());
  ASSERT_EQ(kafka.create_topic("t", 2), RD_KAFKA_RESP_ERR_NO_ERROR);
  {
    testutil::TestProducer p(broker.bootstrap());
    for (int i = 0; i < 6; ++i) ASSERT_EQ(p.produce("t", 0, std::nullopt, "a"), RdKafka::ERR_NO_ERROR);
    for (int i = 0; i < 4; ++i) ASSERT_EQ(p.produce("t", 1, std::nullopt, "b"), RdKafka::ERR_NO_ERROR);
    p.flush();
  }
  ASSERT_EQ(testutil::commit_offsets(broker.bootstrap(), "idle", "t", {{0, 2}, {1, 4}}, ""),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  GroupConsumer live(broker.bootstrap(), "live", "t", {{"client.id", "admin-test-client"}});
  ASSERT_TRUE(testutil::poll_all_until({&live}, [&] { return live.owned().size() == 2; }));

  auto run = admin(broker.bootstrap(), {"groups", "list", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  auto doc = run.json();
  ASSERT_EQ(array_of(doc, "groups").Size(), 2u) << run.out;
  EXPECT_STREQ((*find_by(doc["groups"], "group", "idle"))["state"].GetString(), "Empty");
  EXPECT_STREQ((*find_by(doc["groups"], "group", "live"))["state"].GetString(), "Stable");
  run = admin(broker.bootstrap(), {"groups", "list", "--state", "stable", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  doc = run.json();
  ASSERT_EQ(array_of(doc, "groups").Size(), 1u);
  EXPECT_STREQ(doc["groups"][0]["group"].GetString(), "live");

  // The idle group: lag is log end minus committed, per partition.
  run = admin(broker.bootstrap(), {"groups", "describe", "idle", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  doc = run.json();
  const auto& offsets = array_of(doc, "offsets");
  ASSERT_EQ(offsets.Size(), 2u);
  EXPECT_EQ(offsets[0]["partition"].GetInt(), 0);
  EXPECT_EQ(offsets[0]["current_offset"].GetInt64(), 2);
  EXPECT_EQ(offsets[0]["log_end_offset"].GetInt64(), 6);
  EXPECT_EQ(offsets[0]["lag"].GetInt64(), 4);
  EXPECT_EQ(offsets[1]["lag"].GetInt64(), 0);
  EXPECT_TRUE(offsets[0]["consumer_id"].IsNull()) << "no member owns it";

  // The live group: its member, what it owns, and no committed offset yet (lag unknown).
  run = admin(broker.bootstrap(), {"groups", "describe", "live", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  doc = run.json();
  EXPECT_STREQ(doc["groups"][0]["state"].GetString(), "Stable");
  ASSERT_EQ(array_of(doc, "members").Size(), 1u);
  const auto& member = doc["members"][0];
  EXPECT_STREQ(member["client_id"].GetString(), "admin-test-client");
  EXPECT_EQ(member["partitions"].GetInt(), 2);
  ASSERT_EQ(member["assignment"].Size(), 2u);
  EXPECT_STREQ(member["assignment"][0].GetString(), "t:0");
  ASSERT_EQ(array_of(doc, "offsets").Size(), 2u);
  EXPECT_TRUE(doc["offsets"][1]["current_offset"].IsNull());
  EXPECT_TRUE(doc["offsets"][1]["lag"].IsNull());
  EXPECT_EQ(doc["offsets"][1]["log_end_offset"].GetInt64(), 4);
  EXPECT_STREQ(doc["offsets"][1]["consumer_id"].GetString(), member["consumer_id"].GetString());

  // The tables carry the same.
  run = admin(broker.bootstrap(), {"groups", "describe", "idle", "live"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto text = testutil::parse_text(run.out);
  ASSERT_EQ(text.tables.at("OFFSETS").size(), 4u) << run.out;
  EXPECT_EQ(text.tables.at("OFFSETS")[0].at("GROUP"), "idle");
  EXPECT_EQ(text.tables.at("OFFSETS")[0].at("LAG"), "4");
  EXPECT_EQ(text.tables.at("OFFSETS")[3].at("LAG"), "-");
  EXPECT_EQ(text.tables.at("MEMBERS").at(0).at("CLIENT-ID"), "admin-test-client");
  EXPECT_EQ(text.tables.at("MEMBERS").at(0).at("ASSIGNMENT"), "t:0,t:1");
}

TEST(AdminGroupsTest, DeleteRemovesAnEmptyGroupAndRefusesALiveOne) {
  GroupBroker broker(1);
  testutil::KafkaAdmin kafka(broker.bootstrap());
  ASSERT_EQ(kafka.create_topic("t", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(testutil::commit_offsets(broker.bootstrap(), "idle", "t", {{0, 0}}, ""), RD_KAFKA_RESP_ERR_NO_ERROR);
  GroupConsumer live(broker.bootstrap(), "live", "t");
  ASSERT_TRUE(testutil::poll_all_until({&live}, [&] { return live.owned().size() == 1; }));

  const auto run = admin(broker.bootstrap(), {"groups", "delete", "idle", "live", "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  const auto doc = run.json();
  EXPECT_TRUE((*find_by(array_of(doc, "groups"), "group", "idle"))["error"].IsNull());
  EXPECT_STREQ((*find_by(doc["groups"], "group", "live"))["error"].GetString(), "NON_EMPTY_GROUP");
  const auto listed = kafka.list_groups();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].group_id, "live");
}

}  // namespace
}  // namespace rokka
