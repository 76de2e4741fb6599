// Committed offsets against build/rokka through librdkafka: metadata strings, the -1
// of a never-committed partition, durability across restarts and kill -9, and the end
// of a topic's offsets when the topic is deleted.
#include <gtest/gtest.h>

#include "tests/testutil/group_consumer.h"
#include "tests/testutil/kafka_admin.h"

namespace rokka {
namespace {

using testutil::GroupBroker;
using testutil::KafkaAdmin;

// (offset, metadata) per partition, as OffsetFetch answers.
std::map<int32_t, std::pair<int64_t, std::string>> read_back(const std::string& bootstrap, const std::string& group,
                                                             const std::string& topic) {
  std::map<int32_t, std::pair<int64_t, std::string>> out;
  for (const auto& [p, c] : testutil::committed_offsets(bootstrap, group, topic, {0, 1, 2})) {
    EXPECT_EQ(c.error, RD_KAFKA_RESP_ERR_NO_ERROR) << "partition " << p;
    out[p] = {c.offset, c.metadata};
  }
  return out;
}

constexpr int64_t kNone = RD_KAFKA_OFFSET_INVALID;  // what librdkafka makes of OffsetFetch's -1

TEST(GroupOffsetsTest, CommitWithMetadataReadsBackAndANeverCommittedPartitionHasNone) {
  GroupBroker broker(3);
  ASSERT_EQ(KafkaAdmin(broker.bootstrap()).create_topic("t", 3), RD_KAFKA_RESP_ERR_NO_ERROR);
  using Read = std::map<int32_t, std::pair<int64_t, std::string>>;
  EXPECT_EQ(read_back(broker.bootstrap(), "g", "t"), (Read{{0, {kNone, ""}}, {1, {kNone, ""}}, {2, {kNone, ""}}}));

  const std::string metadata = std::string("checkpoint \x01\x02 \xe2\x9c\x93", 17);
  ASSERT_EQ(testutil::commit_offsets(broker.bootstrap(), "g", "t", {{0, 5}, {1, 7}}, metadata),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(read_back(broker.bootstrap(), "g", "t"), (Read{{0, {5, metadata}}, {1, {7, metadata}}, {2, {kNone, ""}}}));
  // Another group sees none of it.
  EXPECT_EQ(read_back(broker.bootstrap(), "other", "t"), (Read{{0, {kNone, ""}}, {1, {kNone, ""}}, {2, {kNone, ""}}}));

  // Metadata above offset.metadata.max.bytes (4096) is refused, and the old commit stays.
  EXPECT_EQ(testutil::commit_offsets(broker.bootstrap(), "g", "t", {{0, 9}}, std::string(4097, 'm')),
            RD_KAFKA_RESP_ERR_OFFSET_METADATA_TOO_LARGE);
  EXPECT_EQ(read_back(broker.bootstrap(), "g", "t")[0], std::make_pair(int64_t{5}, metadata));
}

TEST(GroupOffsetsTest, CommittedOffsetsSurviveRestartAndKillNine) {
  GroupBroker broker(3);
  ASSERT_EQ(KafkaAdmin(broker.bootstrap()).create_topic("t", 3), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(testutil::commit_offsets(broker.bootstrap(), "g", "t", {{0, 11}, {2, 13}}, "graceful"),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(broker.process.stop(), 0);
  broker.process.start();
  using Read = std::map<int32_t, std::pair<int64_t, std::string>>;
  EXPECT_EQ(read_back(broker.bootstrap(), "g", "t"), (Read{{0, {11, "graceful"}}, {1, {kNone, ""}}, {2, {13, "graceful"}}}));

  // Acknowledged commits are durable: SIGKILL right after the acknowledgement loses none.
  ASSERT_EQ(testutil::commit_offsets(broker.bootstrap(), "g", "t", {{0, 21}, {1, 22}}, "crash"),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  broker.process.kill9();
  broker.process.start();
  EXPECT_EQ(read_back(broker.bootstrap(), "g", "t"), (Read{{0, {21, "crash"}}, {1, {22, "crash"}}, {2, {13, "graceful"}}}));
}

// Kafka drops a deleted topic's committed offsets from every group: they neither
// linger in OffsetFetch nor come back for a new topic of the same name, after a crash
// either. Other topics' offsets stay.
TEST(GroupOffsetsTest, DeletingATopicDeletesItsCommittedOffsets) {
  GroupBroker broker(3);
  KafkaAdmin admin(broker.bootstrap());
  ASSERT_EQ(admin.create_topic("doomed", 3), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(admin.create_topic("kept", 3), RD_KAFKA_RESP_ERR_NO_ERROR);
  for (const char* group : {"g1", "g2"}) {
    ASSERT_EQ(testutil::commit_offsets(broker.bootstrap(), group, "doomed", {{0, 3}, {1, 4}}, "x"),
              RD_KAFKA_RESP_ERR_NO_ERROR);
    ASSERT_EQ(testutil::commit_offsets(broker.bootstrap(), group, "kept", {{0, 8}}, "y"), RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  // DeleteTopics is answered once the offsets are gone too.
  ASSERT_EQ(admin.delete_topic("doomed"), RD_KAFKA_RESP_ERR_NO_ERROR);
  using Read = std::map<int32_t, std::pair<int64_t, std::string>>;
  const Read none{{0, {kNone, ""}}, {1, {kNone, ""}}, {2, {kNone, ""}}};
  EXPECT_EQ(read_back(broker.bootstrap(), "g1", "doomed"), none);
  ASSERT_EQ(admin.create_topic("doomed", 3), RD_KAFKA_RESP_ERR_NO_ERROR);
  for (const char* group : {"g1", "g2"}) {
    EXPECT_EQ(read_back(broker.bootstrap(), group, "doomed"), none) << group;
    EXPECT_EQ(read_back(broker.bootstrap(), group, "kept"), (Read{{0, {8, "y"}}, {1, {kNone, ""}}, {2, {kNone, ""}}}));
  }
  broker.process.kill9();
  broker.process.start();
  for (const char* group : {"g1", "g2"}) {
    EXPECT_EQ(read_back(broker.bootstrap(), group, "doomed"), none) << group << " after a restart";
    EXPECT_EQ(read_back(broker.bootstrap(), group, "kept"), (Read{{0, {8, "y"}}, {1, {kNone, ""}}, {2, {kNone, ""}}}));
  }
}

}  // namespace
}  // namespace rokka
