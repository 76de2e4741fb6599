// Log compaction through librdkafka against build/rokka: a compacted topic keeps the
// latest record of each key (a tombstone included) at its original offset, through a
// graceful restart and a kill -9; a record without a key is refused with INVALID_RECORD.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <thread>

#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"

namespace rokka {
namespace {

using testutil::Consumed;
using testutil::RokkaProcess;
using testutil::TempDir;

struct Expected {
  int64_t offset;
  std::string key;
  std::optional<std::string> value;
  bool operator==(const Expected&) const = default;
};

std::vector<Expected> as_expected(const std::vector<Consumed>& got) {
  std::vector<Expected> out;
  for (const auto& c : got) out.push_back({c.offset, c.key.value_or("<null>"), c.value});
  return out;
}

// Reads the partition from offset 0 until it returns exactly `want` (the cleaner has
// run) or about two minutes passed; returns the last read.
std::vector<Expected> wait_for_compacted(const std::string& bootstrap, const std::string& topic,
                                         const std::vector<Expected>& want) {
  std::vector<Expected> got;
  for (int attempt = 0; attempt < 60; ++attempt) {
    got = as_expected(testutil::consume_assigned(bootstrap, topic, {0}, 0, want.size(), std::chrono::seconds(10)));
    if (got == want) break;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  return got;
}

class CompactionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CompactionTest, LatestRecordPerKeyStaysAtItsOriginalOffset) {
  const std::string codec = GetParam();
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess broker(dir / "data", {{"log.cleaner.backoff.ms", "200"}});
  broker.start();
  const std::string topic = "compacted-" + codec;
  {
    testutil::KafkaAdmin admin(broker.bootstrap());
    ASSERT_EQ(admin.create_topic(topic, 1, {{"cleanup.policy", "compact"}, {"min.cleanable.dirty.ratio", "0.01"}}),
              RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  std::map<std::string, Expected> latest;
  {
    // Small batches, several records each: the cleaner rewrites some and drops others.
    testutil::TestProducer p(broker.bootstrap(), {{"compression.codec", codec}, {"batch.num.messages", "3"},
                                                  {"linger.ms", "5"}});
    for (int round = 0; round < 10; ++round) {
      for (int k = 0; k < 5; ++k) {
        const std::string key = "k" + std::to_string(k);
        const bool tombstone = k == 0 && round == 9;
        ASSERT_EQ(p.produce(topic, 0, key, tombstone ? std::nullopt : std::optional("v" + std::to_string(round))),
                  RdKafka::ERR_NO_ERROR);
      }
      p.flush();
    }
    ASSERT_EQ(p.produce(topic, 0, std::string("tail"), std::string("newest")), RdKafka::ERR_NO_ERROR);
    for (const auto& d : p.flush()) {
      ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
      latest[*d.key] = {d.offset, *d.key, d.value};
    }
    // A compacted topic refuses a record without a key.
    ASSERT_EQ(p.produce(topic, 0, std::nullopt, std::string("no key")), RdKafka::ERR_NO_ERROR);
    EXPECT_EQ(p.flush().back().error, RdKafka::ERR_INVALID_RECORD);
  }
  std::vector<Expected> want;
  for (const auto& [key, e] : latest) want.push_back(e);
  std::sort(want.begin(), want.end(), [](const Expected& a, const Expected& b) { return a.offset < b.offset; });
  ASSERT_EQ(want.size(), 6u);
  ASSERT_EQ(want.back().key, "tail");
  EXPECT_FALSE(latest["k0"].value.has_value());  // the tombstone is the latest of k0

  EXPECT_EQ(wait_for_compacted(broker.bootstrap(), topic, want), want);
  {  // The start offset did not move.
    testutil::TestProducer p(broker.bootstrap());
    int64_t low = -1, high = -1;
    ASSERT_EQ(p.handle().query_watermark_offsets(topic, 0, &low, &high, 10000), RdKafka::ERR_NO_ERROR);
    EXPECT_EQ(low, 0);
    EXPECT_EQ(high, want.back().offset + 1);
  }

  broker.stop();
  broker.start();
  EXPECT_EQ(as_expected(testutil::consume_assigned(broker.bootstrap(), topic, {0}, 0, want.size())), want);
  broker.kill9();
  broker.start();
  EXPECT_EQ(as_expected(testutil::consume_assigned(broker.bootstrap(), topic, {0}, 0, want.size())), want);
}

INSTANTIATE_TEST_SUITE_P(Codecs, CompactionTest, ::testing::Values("none", "gzip", "snappy", "lz4", "zstd"));

}  // namespace
}  // namespace rokka
