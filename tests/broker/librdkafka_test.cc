// librdkafka against the in-process broker: the handlers' wire
// behaviour with a real client. The same flows run against build/rokka with the
// real store in tests/integration/.
#include <gtest/gtest.h>

#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/kafka_clients.h"

namespace rokka {
namespace {

using testutil::InProcessBroker;

TEST(LibrdkafkaTest, ProduceThenConsumeReturnsIdenticalBytesAndDenseOffsets) {
  InProcessBroker b;
  const std::string topic = "t1";
  const int n = 1000;
  {
    testutil::TestProducer p(b.bootstrap(), {{"linger.ms", "5"}});
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(p.produce(topic, 0, "k" + std::to_string(i), "value-" + std::to_string(i)), RdKafka::ERR_NO_ERROR);
    }
    auto& d = p.flush();
    ASSERT_EQ(d.size(), static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(d[i].error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(d[i].error);
      EXPECT_EQ(d[i].offset, i);
    }
  }
  auto got = testutil::consume_assigned(b.bootstrap(), topic, {0}, 0, n);
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(got[i].offset, i);
    EXPECT_EQ(got[i].key, "k" + std::to_string(i));
    EXPECT_EQ(got[i].value, "value-" + std::to_string(i));
  }
}


class OffsetsForTimesTest : public ::testing::TestWithParam<std::string> {};

// One batch holds ten records stamped 1000, 1010, ..., 1090: a lookup by time
// answers the exact record inside the batch, not the batch's first offset,
// compressed or not.
TEST_P(OffsetsForTimesTest, AnswersTheFirstRecordAtOrAfterTheTimestampInsideABatch) {
  InProcessBroker b;
  const std::string topic = "times";
  {
    testutil::TestProducer p(b.bootstrap(), {{"linger.ms", "200"}, {"compression.codec", GetParam()}});
    for (int i = 0; i < 10; ++i) {
      ASSERT_EQ(p.produce(topic, 0, std::nullopt, "v" + std::to_string(i), nullptr, 1000 + 10 * i),
                RdKafka::ERR_NO_ERROR);
    }
    for (auto& d : p.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
  }
  testutil::TestProducer q(b.bootstrap(), {});
  auto ask = [&](int64_t ts) {
    std::vector<RdKafka::TopicPartition*> parts{RdKafka::TopicPartition::create(topic, 0, ts)};
    EXPECT_EQ(q.handle().offsetsForTimes(parts, 5000), RdKafka::ERR_NO_ERROR);
    const int64_t offset = parts[0]->offset();
    RdKafka::TopicPartition::destroy(parts);
    return offset;
  };
  EXPECT_EQ(ask(0), 0);
  EXPECT_EQ(ask(1000), 0);
  EXPECT_EQ(ask(1001), 1);
  EXPECT_EQ(ask(1035), 4);
  EXPECT_EQ(ask(1090), 9);
  EXPECT_EQ(ask(1091), RdKafka::Topic::OFFSET_END);  // none at or after: -1
}

INSTANTIATE_TEST_SUITE_P(Codecs, OffsetsForTimesTest, ::testing::Values("none", "lz4", "zstd"));

struct LegacyCase {
  std::string fallback;  // broker.version.fallback: 0.9.0.0 writes magic 0, 0.10.0.0 magic 1
  std::string codec;
};

class LegacyProducerTest : public ::testing::TestWithParam<LegacyCase> {};

// A producer that believes the broker is 0.9/0.10 (no ApiVersions, Produce v1/v2,
// the pre-0.11 message format) is served as Kafka 3.x serves it: its messages come
// back identical to a modern consumer, with offsets dense; magic 1 keeps the
// producer's timestamps, magic 0 has none (-1).
TEST_P(LegacyProducerTest, MessagesComeBackIdenticalToAModernConsumer) {
  InProcessBroker b;
  const std::string topic = "legacy";
  const int n = 500;
  const int64_t ts = 1700000000000;
  {
    testutil::TestProducer p(b.bootstrap(), {{"api.version.request", "false"},
                                            {"broker.version.fallback", GetParam().fallback},
                                            {"enable.idempotence", "false"},
                                            {"compression.codec", GetParam().codec},
                                            {"batch.num.messages", "50"},
                                            {"linger.ms", "5"}});
    for (int i = 0; i < n; ++i) {
      std::optional<std::string> key;
      if (i % 3) key = "k" + std::to_string(i);
      ASSERT_EQ(p.produce(topic, 0, key, "value-" + std::to_string(i) + std::string(i % 50, 'v'), nullptr, ts + i),
                RdKafka::ERR_NO_ERROR);
    }
    auto& d = p.flush();
    ASSERT_EQ(d.size(), static_cast<size_t>(n));
    for (auto& r : d) ASSERT_EQ(r.error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(r.error);
  }
  auto got = testutil::consume_assigned(b.bootstrap(), topic, {0}, 0, n);
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  const bool magic0 = GetParam().fallback.starts_with("0.9");
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(got[i].offset, i);
    EXPECT_EQ(got[i].key, i % 3 ? std::optional<std::string>("k" + std::to_string(i)) : std::nullopt);
    EXPECT_EQ(got[i].value, "value-" + std::to_string(i) + std::string(i % 50, 'v'));
    EXPECT_EQ(got[i].timestamp, magic0 ? -1 : ts + i) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Fallbacks, LegacyProducerTest,
                         ::testing::Values(LegacyCase{"0.9.0.0", "none"}, LegacyCase{"0.9.0.0", "gzip"},
                                           LegacyCase{"0.10.0.0", "none"}, LegacyCase{"0.10.0.0", "snappy"},
                                           LegacyCase{"0.10.0.0", "lz4"}));

}  // namespace
}  // namespace rokka
