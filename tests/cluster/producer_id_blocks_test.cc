// Producer-id blocks from two brokers allocating at the same time (each with its own client
// and io thread): no id is handed out twice.
#include "cluster/producer_id_blocks.h"

#include <gtest/gtest.h>

#include "tests/cluster/cluster_fixture.h"

namespace rokka::cluster {
namespace {

using namespace std::chrono_literals;

class ProducerIdBlocksTest : public testutil::EtcdTest {};

boost::asio::awaitable<std::vector<ProducerIdBlock>> allocate_n(ProducerIdBlocks& blocks, int n) {
  std::vector<ProducerIdBlock> out;
  for (int i = 0; i < n; ++i) {
    auto b = co_await blocks.allocate();
    if (!b.ok()) throw std::runtime_error(b.status().to_string());
    out.push_back(*b);
  }
  co_return out;
}

TEST_F(ProducerIdBlocksTest, TwoBrokersAllocatingConcurrentlyNeverShareAnId) {
  testutil::IoThread other_io;
  Keys keys("/pid");
  auto other_client = EtcdClient::create(other_io.executor(), testutil::client_options(etcd_->client_url()));
  ProducerIdBlocks a(client_, keys, 1);
  ProducerIdBlocks b(other_client, keys, 2);
  constexpr int kEach = 40;

  std::vector<ProducerIdBlock> from_a, from_b;
  std::thread ta([&] { from_a = io_.run(allocate_n(a, kEach)); });
  std::thread tb([&] { from_b = other_io.run(allocate_n(b, kEach)); });
  ta.join();
  tb.join();
  other_io.call([&] { other_client->shutdown(); });

  std::vector<ProducerIdBlock> all = from_a;
  all.insert(all.end(), from_b.begin(), from_b.end());
  ASSERT_EQ(all.size(), 2u * kEach);
  std::sort(all.begin(), all.end(), [](auto& x, auto& y) { return x.first < y.first; });
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].end - all[i].first, ProducerIdBlocks::kBlockSize);
    if (i > 0) {
      EXPECT_LE(all[i - 1].end, all[i].first) << "blocks overlap";
    }
  }
  // Nothing was lost on a healthy etcd either: the blocks tile [0, 80 * 1000).
  EXPECT_EQ(all.front().first, 0);
  EXPECT_EQ(all.back().end, 2 * kEach * ProducerIdBlocks::kBlockSize);
  // Each broker's own blocks come in increasing order.
  for (const auto* mine : {&from_a, &from_b}) {
    for (size_t i = 1; i < mine->size(); ++i) EXPECT_LT((*mine)[i - 1].first, (*mine)[i].first);
  }
  std::printf("cas conflicts: a=%llu b=%llu\n", static_cast<unsigned long long>(a.conflicts()),
              static_cast<unsigned long long>(b.conflicts()));
}

TEST_F(ProducerIdBlocksTest, AValueThatIsNotABlockRecordIsAnError) {
  ASSERT_TRUE(io_.run(client_->put({.key = "/pid2/producer_id_block", .value = "123000"})).ok());
  ProducerIdBlocks blocks(client_, Keys("/pid2"), 1);
  auto b = io_.run(blocks.allocate());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kMalformed);
}

}  // namespace
}  // namespace rokka::cluster
