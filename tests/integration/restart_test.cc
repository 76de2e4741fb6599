// Restarts and crashes of build/rokka: acknowledged messages survive, offsets are
// never reused, idempotent producers leave no duplicates.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"

namespace rokka {
namespace {

using testutil::RokkaProcess;
using testutil::TempDir;

std::string payload(int i) { return "message-" + std::to_string(i) + std::string(static_cast<size_t>(i % 97), 'x'); }

// Consumes partitions 0..n-1 from the start until `expected` messages arrived
// (or the timeout); returns value -> (partition, offset).
std::map<std::string, std::pair<int32_t, int64_t>> consume_all(const std::string& bootstrap, const std::string& topic,
                                                                int partitions, size_t expected,
                                                                std::vector<testutil::Consumed>* raw = nullptr) {
  std::vector<int32_t> parts;
  for (int i = 0; i < partitions; ++i) parts.push_back(i);
  auto got = testutil::consume_assigned(bootstrap, topic, parts, 0, expected, std::chrono::seconds(60));
  std::map<std::string, std::pair<int32_t, int64_t>> out;
  for (const auto& c : got) out[c.value.value_or("")] = {c.partition, c.offset};
  if (raw) *raw = std::move(got);
  return out;
}

void expect_dense(const std::vector<testutil::Consumed>& got) {
  std::map<int32_t, int64_t> next;
  for (const auto& c : got) EXPECT_EQ(c.offset, next[c.partition]++) << "partition " << c.partition;
}

TEST(RestartTest, GracefulRestartKeepsEveryMessageAndOffsetsContinue) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess broker(dir / "data", {{"num.partitions", "3"}});
  broker.start();
  {
    testutil::TestProducer p(broker.bootstrap(), {{"acks", "all"}, {"linger.ms", "2"}});
    for (int i = 0; i < 3000; ++i) ASSERT_EQ(p.produce("r", RdKafka::Topic::PARTITION_UA, std::nullopt, payload(i)), 0);
    for (auto& d : p.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
  }
  ASSERT_EQ(broker.stop(), 0) << broker.log_tail();
  broker.start();
  {
    testutil::TestProducer p(broker.bootstrap(), {{"acks", "all"}, {"linger.ms", "2"}});
    for (int i = 3000; i < 6000; ++i) ASSERT_EQ(p.produce("r", RdKafka::Topic::PARTITION_UA, std::nullopt, payload(i)), 0);
    for (auto& d : p.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
  }
  std::vector<testutil::Consumed> raw;
  auto got = consume_all(broker.bootstrap(), "r", 3, 6000, &raw);
  ASSERT_EQ(got.size(), 6000u);
  for (int i = 0; i < 6000; ++i) EXPECT_TRUE(got.count(payload(i))) << i;
  expect_dense(raw);  // the second run continued each partition's offsets
  EXPECT_EQ(broker.stop(), 0);
}

class KillTest : public ::testing::TestWithParam<std::string> {};

// A producer keeps writing with acks=all while the broker is killed with SIGKILL;
// after a restart every acknowledged message is there, at the offset it was given.
TEST_P(KillTest, KillNineLosesNoAcknowledgedMessage) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess broker(dir / "data", {{"num.partitions", "2"}, {"store.flush.mode", GetParam()}});
  broker.start();
  std::vector<testutil::Delivered> acked;
  {
    testutil::TestProducer p(broker.bootstrap(),
                             {{"acks", "all"}, {"linger.ms", "1"}, {"message.timeout.ms", "5000"}, {"retries", "0"}});
    int i = 0;
    const auto kill_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
    while (std::chrono::steady_clock::now() < kill_at) {
      p.produce("k", RdKafka::Topic::PARTITION_UA, std::nullopt, payload(i), nullptr, 0, i);
      ++i;
      if (i % 100 == 0) p.handle().poll(0);
    }
    broker.kill9();
    for (auto& d : p.flush(std::chrono::seconds(15))) {
      if (d.error == RdKafka::ERR_NO_ERROR) acked.push_back(d);
    }
    p.handle().purge(RdKafka::Producer::PURGE_QUEUE | RdKafka::Producer::PURGE_INFLIGHT);
  }
  ASSERT_GT(acked.size(), 100u) << "the producer should have been acknowledged before the kill";
  broker.start();
  // Batches stored but not yet acknowledged when the broker died are kept too,
  // so read each partition to its high watermark, not just acked.size() records.
  auto hw = testutil::high_watermarks(broker.bootstrap(), "k", 2);
  ASSERT_GE(static_cast<size_t>(hw[0] + hw[1]), acked.size());
  std::vector<testutil::Consumed> raw;
  auto got = consume_all(broker.bootstrap(), "k", 2, static_cast<size_t>(hw[0] + hw[1]), &raw);
  ASSERT_EQ(raw.size(), static_cast<size_t>(hw[0] + hw[1]));
  for (const auto& d : acked) {
    auto it = got.find(d.value.value_or(""));
    ASSERT_NE(it, got.end()) << "acknowledged message lost: " << d.value.value_or("");
    EXPECT_EQ(it->second, std::make_pair(d.partition, d.offset));
  }
  expect_dense(raw);
  EXPECT_EQ(broker.stop(), 0);
}

INSTANTIATE_TEST_SUITE_P(FlushModes, KillTest, ::testing::Values("sync", "async"));

// An idempotent producer keeps producing across a broker restart; its retries
// must not create duplicates and nothing it was acknowledged for may go missing.
TEST(RestartTest, IdempotentProducerThroughRestartLeavesNoDuplicate) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess broker(dir / "data", {{"num.partitions", "2"}});
  broker.start();
  const int n = 20000;
  {
    testutil::TestProducer p(broker.bootstrap(), {{"enable.idempotence", "true"}, {"linger.ms", "5"}});
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(p.produce("idem", i % 2, std::nullopt, payload(i), nullptr, 0, i), RdKafka::ERR_NO_ERROR);
      if (i == n / 2) {
        p.handle().poll(0);
        broker.kill9();  // in-flight batches may or may not have been stored
        broker.start();
      }
    }
    auto& d = p.flush(std::chrono::seconds(60));
    ASSERT_EQ(d.size(), static_cast<size_t>(n));
    for (auto& r : d) ASSERT_EQ(r.error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(r.error);
  }
  // Exactly n records stored: one more would be a duplicate.
  auto hw = testutil::high_watermarks(broker.bootstrap(), "idem", 2);
  EXPECT_EQ(hw[0] + hw[1], n) << "duplicates or losses";
  std::vector<testutil::Consumed> raw;
  auto got = consume_all(broker.bootstrap(), "idem", 2, static_cast<size_t>(hw[0] + hw[1]), &raw);
  EXPECT_EQ(raw.size(), static_cast<size_t>(n));
  EXPECT_EQ(got.size(), static_cast<size_t>(n));
  // Per partition, messages keep the order they were produced in.
  std::map<int32_t, int> last;
  for (const auto& c : raw) {
    const int i = std::stoi(c.value->substr(8));
    auto [it, fresh] = last.try_emplace(c.partition, i);
    if (!fresh) {
      EXPECT_GT(i, it->second);
      it->second = i;
    }
  }
  EXPECT_EQ(broker.stop(), 0);
}

}  // namespace
}  // namespace rokka
