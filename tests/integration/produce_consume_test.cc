// build/rokka with the real store, driven by librdkafka and kcat: what a user sees.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"

namespace rokka {
namespace {

using testutil::Consumed;
using testutil::RokkaProcess;
using testutil::TempDir;

constexpr int kPartitions = 4;

struct Sent {
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

// A deterministic mix: keyed and unkeyed, null values (tombstones), headers with
// and without values, binary bytes, empty strings.
Sent make_message(int i, std::mt19937& rng) {
  Sent s;
  if (i % 7 != 0) s.key = "key-" + std::to_string(i % 50);
  if (i % 11 != 0) {
    std::string v(static_cast<size_t>(rng() % 300), '\0');
    for (auto& c : v) c = static_cast<char>(rng() & 0xff);
    s.value = "v" + std::to_string(i) + ":" + v;
  }
  if (i % 3 == 0) s.headers.emplace_back("h1", "header-" + std::to_string(i));
  if (i % 5 == 0) s.headers.emplace_back("h-null", std::nullopt);
  if (i % 13 == 0) s.value = std::string();  // empty, not null
  return s;
}

class ProduceConsumeTest : public ::testing::TestWithParam<std::string> {};

// 10,000 messages per codec plus one 1 MiB value: every byte comes back, offsets
// are dense per partition, and messages with the same key keep their order.
TEST_P(ProduceConsumeTest, EveryMessageComesBackIdentical) {
  const std::string codec = GetParam();
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess broker(dir / "data", {{"message.max.bytes", "4194304"}, {"num.partitions", std::to_string(kPartitions)}});
  broker.start();
  const std::string topic = "codec-" + codec;
  const int n = 10000;
  std::mt19937 rng(42);
  std::vector<Sent> sent;
  std::map<std::pair<int32_t, int64_t>, size_t> by_position;  // (partition, offset) -> index in sent
  {
    testutil::TestProducer p(broker.bootstrap(), {{"compression.codec", codec},
                                                  {"linger.ms", "5"},
                                                  {"message.max.bytes", "4000000"},
                                                  {"acks", "all"}});
    for (int i = 0; i <= n; ++i) {
      Sent s = i == n ? Sent{"big", std::string(1 << 20, 'B'), {}} : make_message(i, rng);
      RdKafka::Headers* headers = nullptr;
      if (!s.headers.empty()) {
        headers = RdKafka::Headers::create();
        for (auto& [k, v] : s.headers) {
          if (v) {
            headers->add(k, v->data(), v->size());
          } else {
            headers->add(k, nullptr, 0);
          }
        }
      }
      ASSERT_EQ(p.produce(topic, RdKafka::Topic::PARTITION_UA, s.key, s.value, headers, 0, static_cast<intptr_t>(i)),
                RdKafka::ERR_NO_ERROR);
      sent.push_back(std::move(s));
    }
    auto& reports = p.flush();
    ASSERT_EQ(reports.size(), sent.size());
    for (size_t i = 0; i < reports.size(); ++i) {
      ASSERT_EQ(reports[i].error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(reports[i].error);
    }
    for (const auto& r : reports) {
      ASSERT_TRUE(by_position.emplace(std::make_pair(r.partition, r.offset), static_cast<size_t>(r.opaque)).second)
          << "two messages acknowledged at partition " << r.partition << " offset " << r.offset;
    }
  }

  std::vector<int32_t> parts;
  for (int32_t i = 0; i < kPartitions; ++i) parts.push_back(i);
  auto got = testutil::consume_assigned(broker.bootstrap(), topic, parts, 0, sent.size(), std::chrono::seconds(120),
                                        {{"fetch.message.max.bytes", "4000000"}});
  ASSERT_EQ(got.size(), sent.size());

  std::map<int32_t, int64_t> next_offset;
  std::map<std::string, int64_t> last_index_for_key;
  for (const Consumed& c : got) {
    EXPECT_EQ(c.offset, next_offset[c.partition]++) << "offsets must be dense from 0 in partition " << c.partition;
    auto it = by_position.find({c.partition, c.offset});
    ASSERT_NE(it, by_position.end()) << "consumed a message that was never acknowledged";
    const Sent& s = sent[it->second];
    EXPECT_EQ(c.key, s.key);
    EXPECT_EQ(c.value, s.value);
    EXPECT_EQ(c.headers, s.headers);
    if (c.key) {
      // Same key, same partition, in the order produced.
      auto [pos, fresh] = last_index_for_key.try_emplace(*c.key, static_cast<int64_t>(it->second));
      if (!fresh) {
        EXPECT_GT(static_cast<int64_t>(it->second), pos->second) << "key " << *c.key << " out of order";
        pos->second = static_cast<int64_t>(it->second);
      }
    }
  }
  EXPECT_EQ(broker.stop(), 0) << broker.log_tail();
}

INSTANTIATE_TEST_SUITE_P(Codecs, ProduceConsumeTest, ::testing::Values("none", "gzip", "snappy", "lz4", "zstd"));

// kcat, the command-line client, produces lines and reads them back.
TEST(KcatTest, ProducesAndConsumesLines) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess broker(dir / "data");
  broker.start();
  const std::string input = (dir / "in.txt").string();
  {
    FILE* f = std::fopen(input.c_str(), "w");
    ASSERT_NE(f, nullptr);
    for (int i = 0; i < 500; ++i) std::fprintf(f, "key%d:line %d\n", i % 5, i);
    std::fclose(f);
  }
  const std::string produce = "kcat -b " + broker.bootstrap() + " -t kcat-topic -P -K: -l " + input + " 2>&1";
  ASSERT_EQ(std::system(produce.c_str()), 0);
  const std::string out = (dir / "out.txt").string();
  const std::string consume = "kcat -b " + broker.bootstrap() +
                              " -t kcat-topic -C -o beginning -e -q -f '%k:%s\\n' > " + out + " 2>/dev/null";
  ASSERT_EQ(std::system(consume.c_str()), 0);
  std::ifstream in(out);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 500u);
  for (int i = 0; i < 500; ++i) EXPECT_EQ(lines[i], "key" + std::to_string(i % 5) + ":line " + std::to_string(i));
  EXPECT_EQ(broker.stop(), 0);
}

}  // namespace
}  // namespace rokka
