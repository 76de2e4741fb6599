// A broker over two stores (broker/records/store_set.h): the root store and a second
// kSingle store holding every odd-numbered partition. Both stores number their partitions
// from 0, so partition 0 and partition 1 of a topic have the same store partition id: a
// handler that took the pid to the wrong store would answer with the other partition's
// records, offsets or sizes. Over the wire (and librdkafka for idempotent and
// transactional producers): produce and fetch, a long poll woken from either store,
// ListOffsets, DeleteRecords, DescribeLogDirs, and a restart. Then the second store in a
// group leader's role: the high watermark Fetch and ListOffsets report, and OffsetForLeaderEpoch
// over two epochs.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "broker/broker.h"
#include "protocol/error_code.h"
#include "protocol/messages/delete_records.h"
#include "protocol/messages/describe_log_dirs.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/offset_for_leader_epoch.h"
#include "protocol/messages/produce.h"
#include "protocol/record_batch.h"
#include "storage/format.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using broker::kRootSlot;
using broker::PartitionLoc;
using broker::StoreSlot;
using protocol::ErrorCode;
using testutil::WireClient;

constexpr StoreSlot kSecondSlot = 1;
constexpr int32_t kPartitions = 4;

// An in-process broker (as testutil::InProcessBroker) whose odd partitions live in a
// second store, in its own directory; restart() stops it and opens both stores again.
class TwoStoreBroker {
 public:
  TwoStoreBroker() { open(); }
  ~TwoStoreBroker() {
    if (broker_) (void)broker_->stop();
  }

  void restart() {
    ASSERT_TRUE(broker_->stop().ok());
    broker_.reset();
    open();
  }

  uint16_t port() const { return port_; }
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(port_); }
  broker::Broker& broker() { return *broker_; }
  std::filesystem::path root_dir() const { return std::filesystem::absolute(root_.path()).lexically_normal(); }
  std::filesystem::path second_dir() const { return std::filesystem::absolute(second_.path()).lexically_normal(); }

 private:
  void open() {
    auto config = broker::load_config("", {{"log.dirs", root_.path().string()},
                                           {"listeners", "PLAINTEXT://127.0.0.1:0"},
                                           {"log.segment.bytes", std::to_string(64 << 20)}});
    if (!config.ok()) throw std::runtime_error(config.status().to_string());
    config_ = std::move(config).value();
    auto root = storage::Store::open(broker::Broker::store_options(config_));
    if (!root.ok()) throw std::runtime_error(root.status().to_string());
    storage::StoreOptions second_options = broker::Broker::store_options(config_);
    second_options.dir = second_.path();
    auto second = storage::Store::open(second_options);
    if (!second.ok()) throw std::runtime_error(second.status().to_string());
    std::vector<broker::ExtraStore> extra;
    extra.push_back({"second", std::move(*second), second_.path()});
    auto b = broker::Broker::open(config_, std::move(*root), nullptr, std::move(extra),
                                  [](std::string_view, int32_t index) {
                                    return index % 2 == 1 ? kSecondSlot : kRootSlot;
                                  });
    if (!b.ok()) throw std::runtime_error(b.status().to_string());
    broker_ = std::move(b).value();
    if (auto s = broker_->start(); !s.ok()) throw std::runtime_error(s.to_string());
    port_ = broker_->ports().at(0);
  }

  testutil::TempDir root_, second_;
  broker::BrokerConfig config_;
  std::unique_ptr<broker::Broker> broker_;
  uint16_t port_ = 0;
};

// Partition i's batches: `count` of them, each of i + 1 records, told apart by their fill.
std::vector<std::byte> batch_for(int32_t partition, int n) {
  return testutil::make_batch({.records = partition + 1,
                               .value_bytes = 20 + partition,
                               .fill = static_cast<uint8_t>(0x10 * (partition + 1) + n)});
}

// The batch as stored at `base_offset`: the broker sets only the base offset.
std::vector<std::byte> stored(std::vector<std::byte> batch, int64_t base_offset) {
  storage::format::put_be(batch.data() + storage::format::batch::kBaseOffset, static_cast<uint64_t>(base_offset), 8);
  return batch;
}

// One Produce naming every partition of `topic`, in reverse order: the stores' appends are
// merged back in request order. Returns each partition's base offset (-1: failed).
std::map<int32_t, int64_t> produce_all(WireClient& c, const std::string& topic,
                                       const std::vector<std::vector<std::byte>>& batches, int16_t acks = -1) {
  protocol::ProduceRequest req;
  req.acks = acks;
  req.timeout_ms = 10000;
  auto& t = req.topic_data.emplace_back();
  t.name = topic;
  for (int32_t p = static_cast<int32_t>(batches.size()) - 1; p >= 0; --p) {
    auto& pd = t.partition_data.emplace_back();
    pd.index = p;
    pd.records.data = protocol::Bytes(batches[static_cast<size_t>(p)]);
  }
  std::map<int32_t, int64_t> out;
  auto r = c.call<protocol::ProduceResponse>(req, 9);
  if (!r || r->responses.size() != 1) return out;
  for (const auto& p : r->responses[0].partition_responses)
    out[p.index] = p.error_code == ErrorCode::kNone ? p.base_offset : -1;
  return out;
}

protocol::FetchRequest fetch_request(const std::string& topic, const std::map<int32_t, int64_t>& offsets,
                                     int32_t max_wait_ms = 0) {
  protocol::FetchRequest req;
  req.max_wait_ms = max_wait_ms;
  req.min_bytes = 1;
  req.max_bytes = 1 << 20;
  auto& t = req.topics.emplace_back();
  t.topic = topic;
  for (auto [p, offset] : offsets) {
    auto& fp = t.partitions.emplace_back();
    fp.partition = p;
    fp.fetch_offset = offset;
    fp.partition_max_bytes = 1 << 20;
  }
  return req;
}

struct Fetched {
  ErrorCode error = ErrorCode::kUnknownServerError;
  int64_t high_watermark = -1;
  std::vector<std::byte> records;
};

std::map<int32_t, Fetched> fetched(const protocol::FetchResponse& r) {
  std::map<int32_t, Fetched> out;
  for (const auto& t : r.responses)
    for (const auto& p : t.partitions) {
      Fetched& f = out[p.partition_index];
      f.error = p.error_code;
      f.high_watermark = p.high_watermark;
      if (p.records.data) f.records.assign(p.records.data->begin(), p.records.data->end());
    }
  return out;
}

// ListOffsets of every partition at `timestamp` (-1 latest, -2 earliest).
std::map<int32_t, int64_t> list_offsets(WireClient& c, const std::string& topic, int64_t timestamp) {
  protocol::ListOffsetsRequest req;
  req.replica_id = -1;
  auto& t = req.topics.emplace_back();
  t.name = topic;
  for (int32_t p = 0; p < kPartitions; ++p) t.partitions.push_back({p, -1, timestamp, 1});
  std::map<int32_t, int64_t> out;
  auto r = c.call<protocol::ListOffsetsResponse>(req, 7);
  if (!r) return out;
  for (const auto& tr : r->topics)
    for (const auto& p : tr.partitions) out[p.partition_index] = p.error_code == ErrorCode::kNone ? p.offset : -1;
  return out;
}

void create_topic(TwoStoreBroker& b, const std::string& name) {
  testutil::KafkaAdmin admin(b.bootstrap());
  ASSERT_EQ(admin.create_topic(name, kPartitions), RD_KAFKA_RESP_ERR_NO_ERROR);
  const broker::TopicPtr t = b.broker().services().topics.find(name);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->partitions.size(), static_cast<size_t>(kPartitions));
  for (int32_t p = 0; p < kPartitions; ++p)
    ASSERT_EQ(t->partitions[static_cast<size_t>(p)].slot, p % 2 == 1 ? kSecondSlot : kRootSlot) << p;
}

// Partitions 0 and 1 share store partition id 0 (and 2 and 3 id 1), in different stores.
TEST(MultiStoreTest, TheStoresNumberTheirPartitionsAlike) {
  TwoStoreBroker b;
  create_topic(b, "t");
  const broker::TopicPtr t = b.broker().services().topics.find("t");
  EXPECT_EQ(t->partitions, (std::vector<PartitionLoc>{{kRootSlot, 0}, {kSecondSlot, 0}, {kRootSlot, 1}, {kSecondSlot, 1}}));
}

TEST(MultiStoreTest, ProducedBatchesComeBackIdenticalFromBothStores) {
  TwoStoreBroker b;
  create_topic(b, "t");
  WireClient c(b.port());
  std::map<int32_t, std::vector<std::byte>> expected;  // partition -> stored bytes
  for (int n = 0; n < 2; ++n) {
    std::vector<std::vector<std::byte>> batches;
    for (int32_t p = 0; p < kPartitions; ++p) batches.push_back(batch_for(p, n));
    const auto offsets = produce_all(c, "t", batches);
    for (int32_t p = 0; p < kPartitions; ++p) {
      const int64_t base = n * (p + 1);  // each partition's own offsets
      ASSERT_EQ(offsets.at(p), base) << "partition " << p;
      const auto bytes = stored(batches[static_cast<size_t>(p)], base);
      expected[p].insert(expected[p].end(), bytes.begin(), bytes.end());
    }
  }
  auto r = c.call<protocol::FetchResponse>(fetch_request("t", {{0, 0}, {1, 0}, {2, 0}, {3, 0}}), 11);
  ASSERT_TRUE(r);
  const auto got = fetched(*r);
  for (int32_t p = 0; p < kPartitions; ++p) {
    SCOPED_TRACE("partition " + std::to_string(p));
    ASSERT_EQ(got.at(p).error, ErrorCode::kNone);
    EXPECT_EQ(got.at(p).high_watermark, 2 * (p + 1));
    EXPECT_EQ(got.at(p).records, expected[p]);
  }
  EXPECT_EQ(list_offsets(c, "t", -1), (std::map<int32_t, int64_t>{{0, 2}, {1, 4}, {2, 6}, {3, 8}}));
  EXPECT_EQ(list_offsets(c, "t", -2), (std::map<int32_t, int64_t>{{0, 0}, {1, 0}, {2, 0}, {3, 0}}));
}

TEST(MultiStoreTest, AnIdempotentProducerWritesEveryPartitionOnce) {
  TwoStoreBroker b;
  create_topic(b, "idem");
  {
    testutil::TestProducer producer(b.bootstrap(), {{"enable.idempotence", "true"}, {"linger.ms", "5"}});
    for (int i = 0; i < 5; ++i)
      for (int32_t p = 0; p < kPartitions; ++p)
        ASSERT_EQ(producer.produce("idem", p, std::nullopt, "p" + std::to_string(p) + "-" + std::to_string(i)),
                  RdKafka::ERR_NO_ERROR);
    for (const auto& d : producer.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
  }
  const auto consumed = testutil::consume_assigned(b.bootstrap(), "idem", {0, 1, 2, 3}, 0, 20);
  ASSERT_EQ(consumed.size(), 20u);
  std::map<int32_t, std::vector<std::string>> by_partition;
  for (const auto& m : consumed) {
    EXPECT_EQ(m.offset, static_cast<int64_t>(by_partition[m.partition].size()));
    by_partition[m.partition].push_back(m.value.value_or(""));
  }
  for (int32_t p = 0; p < kPartitions; ++p) {
    std::vector<std::string> want;
    for (int i = 0; i < 5; ++i) want.push_back("p" + std::to_string(p) + "-" + std::to_string(i));
    EXPECT_EQ(by_partition[p], want) << "partition " << p;
  }
}

void expect_ok(RdKafka::Error* e, const char* what) {
  if (e == nullptr) return;
  ADD_FAILURE() << what << ": " << e->str();
  delete e;
}

// The commit and abort markers land in each partition's own store: a read_committed
// consumer sees every committed record and none of the aborted ones, in all four.
TEST(MultiStoreTest, TransactionMarkersReachEveryStore) {
  TwoStoreBroker b;
  create_topic(b, "txn");
  {
    testutil::TestProducer txn(b.bootstrap(), {{"transactional.id", "tx-multi"}, {"linger.ms", "0"}});
    expect_ok(txn.handle().init_transactions(30000), "init_transactions");
    expect_ok(txn.handle().begin_transaction(), "begin_transaction");
    for (int32_t p = 0; p < kPartitions; ++p)
      ASSERT_EQ(txn.produce("txn", p, std::nullopt, "committed-" + std::to_string(p)), RdKafka::ERR_NO_ERROR);
    for (const auto& d : txn.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
    expect_ok(txn.handle().commit_transaction(30000), "commit_transaction");
    expect_ok(txn.handle().begin_transaction(), "begin_transaction");
    for (int32_t p = 0; p < kPartitions; ++p)
      ASSERT_EQ(txn.produce("txn", p, std::nullopt, "aborted-" + std::to_string(p)), RdKafka::ERR_NO_ERROR);
    txn.flush();
    expect_ok(txn.handle().abort_transaction(30000), "abort_transaction");
    expect_ok(txn.handle().begin_transaction(), "begin_transaction");
    for (int32_t p = 0; p < kPartitions; ++p)
      ASSERT_EQ(txn.produce("txn", p, std::nullopt, "last-" + std::to_string(p)), RdKafka::ERR_NO_ERROR);
    txn.flush();
    expect_ok(txn.handle().commit_transaction(30000), "commit_transaction");
  }
  // Per partition: a record, its commit marker, an aborted record, its marker, a record, its marker.
  WireClient c(b.port());
  EXPECT_EQ(list_offsets(c, "txn", -1), (std::map<int32_t, int64_t>{{0, 6}, {1, 6}, {2, 6}, {3, 6}}));
  const auto consumed = testutil::consume_assigned(b.bootstrap(), "txn", {0, 1, 2, 3}, 0, 8, std::chrono::seconds(60),
                                                   {{"isolation.level", "read_committed"}});
  std::map<int32_t, std::vector<std::string>> by_partition;
  for (const auto& m : consumed) by_partition[m.partition].push_back(m.value.value_or(""));
  for (int32_t p = 0; p < kPartitions; ++p)
    EXPECT_EQ(by_partition[p], (std::vector<std::string>{"committed-" + std::to_string(p), "last-" + std::to_string(p)}))
        << "partition " << p;
}

// A fetch parked on partitions of both stores wakes at once when either store appends.
TEST(MultiStoreTest, ALongPollWakesOnAnAppendToEitherStore) {
  TwoStoreBroker b;
  create_topic(b, "poll");
  WireClient waiting(b.port()), producing(b.port());
  for (int32_t p : {0, 1, 3}) {
    SCOPED_TRACE("produce to partition " + std::to_string(p));
    const auto ends = list_offsets(producing, "poll", -1);
    ASSERT_EQ(ends.size(), static_cast<size_t>(kPartitions));
    const auto started = std::chrono::steady_clock::now();
    waiting.send(fetch_request("poll", ends, /*max_wait_ms=*/60000), 11, 100 + p);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // parked by now (or it reads the record)
    const auto batch = batch_for(p, 0);
    protocol::ProduceRequest req;
    req.acks = -1;
    req.timeout_ms = 10000;
    auto& t = req.topic_data.emplace_back();
    t.name = "poll";
    auto& pd = t.partition_data.emplace_back();
    pd.index = p;
    pd.records.data = protocol::Bytes(batch);
    auto produced = producing.call<protocol::ProduceResponse>(req, 9);
    ASSERT_TRUE(produced);
    ASSERT_EQ(produced->responses.at(0).partition_responses.at(0).error_code, ErrorCode::kNone);
    auto r = waiting.receive<protocol::FetchResponse>(11, 100 + p);  // 30 s at most: well before max_wait_ms
    ASSERT_TRUE(r) << "the fetch was not woken";
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
    const auto got = fetched(*r);
    EXPECT_EQ(got.at(p).records, stored(batch, ends.at(p)));
    for (int32_t other = 0; other < kPartitions; ++other)
      if (other != p) {
        EXPECT_TRUE(got.at(other).records.empty()) << other;
      }
  }
}

TEST(MultiStoreTest, DeleteRecordsMovesTheStartOfEachPartitionInItsStore) {
  TwoStoreBroker b;
  create_topic(b, "del");
  WireClient c(b.port());
  for (int n = 0; n < 3; ++n) {
    std::vector<std::vector<std::byte>> batches;
    for (int32_t p = 0; p < kPartitions; ++p) batches.push_back(testutil::make_batch({.records = 1}));
    ASSERT_EQ(produce_all(c, "del", batches).size(), static_cast<size_t>(kPartitions));
  }
  protocol::DeleteRecordsRequest req;
  req.timeout_ms = 5000;
  req.topics.push_back({"del", {{1, 2}, {2, 1}}});  // one partition in each store
  auto r = c.call<protocol::DeleteRecordsResponse>(req, 2);
  ASSERT_TRUE(r);
  std::map<int32_t, int64_t> low;
  for (const auto& p : r->topics.at(0).partitions) {
    EXPECT_EQ(p.error_code, ErrorCode::kNone);
    low[p.partition_index] = p.low_watermark;
  }
  EXPECT_EQ(low, (std::map<int32_t, int64_t>{{1, 2}, {2, 1}}));
  EXPECT_EQ(list_offsets(c, "del", -2), (std::map<int32_t, int64_t>{{0, 0}, {1, 2}, {2, 1}, {3, 0}}));
  EXPECT_EQ(list_offsets(c, "del", -1), (std::map<int32_t, int64_t>{{0, 3}, {1, 3}, {2, 3}, {3, 3}}));
}

TEST(MultiStoreTest, DescribeLogDirsListsEachStoreWithItsPartitions) {
  TwoStoreBroker b;
  create_topic(b, "dirs");
  WireClient c(b.port());
  std::vector<std::vector<std::byte>> batches;
  for (int32_t p = 0; p < kPartitions; ++p) batches.push_back(batch_for(p, 0));
  ASSERT_EQ(produce_all(c, "dirs", batches).size(), static_cast<size_t>(kPartitions));
  auto r = c.call<protocol::DescribeLogDirsResponse>(protocol::DescribeLogDirsRequest{}, 4);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->results.size(), 2u);
  std::map<std::filesystem::path, std::map<int32_t, int64_t>> sizes;
  for (const auto& dir : r->results) {
    EXPECT_EQ(dir.error_code, ErrorCode::kNone);
    EXPECT_GT(dir.total_bytes, 0);
    auto& at = sizes[std::filesystem::path(dir.log_dir)];
    for (const auto& t : dir.topics) {
      EXPECT_EQ(t.name, "dirs");
      for (const auto& p : t.partitions) at[p.partition_index] = p.partition_size;
    }
  }
  auto size = [&](int32_t p) { return static_cast<int64_t>(batches[static_cast<size_t>(p)].size()); };
  EXPECT_EQ(sizes, (std::map<std::filesystem::path, std::map<int32_t, int64_t>>{
                       {b.root_dir(), {{0, size(0)}, {2, size(2)}}}, {b.second_dir(), {{1, size(1)}, {3, size(3)}}}}));
}

// After a restart each store's records put the topic back together: the same partitions
// in the same stores, the same offsets and bytes, and appends carry on from there.
TEST(MultiStoreTest, ARestartLoadsTheSameTopicsAndOffsets) {
  TwoStoreBroker b;
  create_topic(b, "kept");
  std::map<int32_t, std::vector<std::byte>> expected;
  {
    WireClient c(b.port());
    std::vector<std::vector<std::byte>> batches;
    for (int32_t p = 0; p < kPartitions; ++p) batches.push_back(batch_for(p, 0));
    ASSERT_EQ(produce_all(c, "kept", batches).size(), static_cast<size_t>(kPartitions));
    for (int32_t p = 0; p < kPartitions; ++p) expected[p] = stored(batches[static_cast<size_t>(p)], 0);
  }
  const std::vector<PartitionLoc> before = b.broker().services().topics.find("kept")->partitions;
  b.restart();
  const broker::TopicPtr t = b.broker().services().topics.find("kept");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->partitions, before);

  WireClient c(b.port());
  EXPECT_EQ(list_offsets(c, "kept", -1), (std::map<int32_t, int64_t>{{0, 1}, {1, 2}, {2, 3}, {3, 4}}));
  auto r = c.call<protocol::FetchResponse>(fetch_request("kept", {{0, 0}, {1, 0}, {2, 0}, {3, 0}}), 11);
  ASSERT_TRUE(r);
  const auto got = fetched(*r);
  for (int32_t p = 0; p < kPartitions; ++p) EXPECT_EQ(got.at(p).records, expected[p]) << "partition " << p;

  std::vector<std::vector<std::byte>> more;
  for (int32_t p = 0; p < kPartitions; ++p) more.push_back(batch_for(p, 1));
  EXPECT_EQ(produce_all(c, "kept", more), (std::map<int32_t, int64_t>{{0, 1}, {1, 2}, {2, 3}, {3, 4}}));

  // A topic created after the restart goes on numbering each store's partitions.
  create_topic(b, "after");
  EXPECT_EQ(b.broker().services().topics.find("after")->partitions,
            (std::vector<PartitionLoc>{{kRootSlot, 2}, {kSecondSlot, 2}, {kRootSlot, 3}, {kSecondSlot, 3}}));
}

// ---- the second store in a replication group's leader role (as a group's leader holds it) ----

// Sets the role of the second store, as a GroupMember does when the group's state names it.
void set_second_role(TwoStoreBroker& b, storage::Role role, int32_t epoch) {
  std::promise<storage::Status> done;
  b.broker().services().stores.at(kSecondSlot)->set_role(role, epoch, [&done](storage::Status s) { done.set_value(s); });
  const storage::Status s = done.get_future().get();
  ASSERT_TRUE(s.ok()) << s.to_string();
}

// Fetch reports the high watermark (what every in-sync member holds), not the log end, and
// returns nothing above it; ListOffsets LATEST is the high watermark. The root store's
// partitions beside it report their log end as before (a kSingle store's high watermark).
TEST(MultiStoreTest, ALeadingStoreReportsItsHighWatermarkNotItsLogEnd) {
  TwoStoreBroker b;
  create_topic(b, "hw");
  set_second_role(b, storage::Role::kLeader, 3);
  WireClient c(b.port());
  std::vector<std::vector<std::byte>> batches;
  for (int32_t p = 0; p < kPartitions; ++p) batches.push_back(batch_for(p, 0));
  ASSERT_EQ(produce_all(c, "hw", batches, 1), (std::map<int32_t, int64_t>{{0, 0}, {1, 0}, {2, 0}, {3, 0}}));

  auto r = c.call<protocol::FetchResponse>(fetch_request("hw", {{0, 0}, {1, 0}, {2, 0}, {3, 0}}), 11);
  ASSERT_TRUE(r);
  auto got = fetched(*r);
  for (int32_t p = 0; p < kPartitions; ++p) {
    SCOPED_TRACE("partition " + std::to_string(p));
    ASSERT_EQ(got.at(p).error, ErrorCode::kNone);
    if (p % 2 == 1) {  // appended, not confirmed by the group: not readable yet
      EXPECT_EQ(got.at(p).high_watermark, 0);
      EXPECT_TRUE(got.at(p).records.empty());
    } else {
      EXPECT_EQ(got.at(p).high_watermark, p + 1);
      EXPECT_EQ(got.at(p).records, stored(batches[static_cast<size_t>(p)], 0));
    }
  }
  EXPECT_EQ(list_offsets(c, "hw", -1), (std::map<int32_t, int64_t>{{0, 1}, {1, 0}, {2, 3}, {3, 0}}));

  // The group confirms the log up to its end: the high watermarks move to the log end.
  storage::Store& second = *b.broker().services().stores.at(kSecondSlot);
  second.set_confirmed(second.log_end());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    r = c.call<protocol::FetchResponse>(fetch_request("hw", {{0, 0}, {1, 0}, {2, 0}, {3, 0}}), 11);
    ASSERT_TRUE(r);
    got = fetched(*r);
    if (got.at(3).high_watermark == 4 || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (int32_t p : {1, 3}) {
    SCOPED_TRACE("partition " + std::to_string(p));
    ASSERT_EQ(got.at(p).error, ErrorCode::kNone);
    EXPECT_EQ(got.at(p).high_watermark, p + 1);
    auto want = stored(batches[static_cast<size_t>(p)], 0);  // stamped with the epoch led
    storage::format::put_be(want.data() + storage::format::batch::kLeaderEpoch, uint32_t{3}, 4);
    EXPECT_EQ(got.at(p).records, want);
  }
  EXPECT_EQ(list_offsets(c, "hw", -1), (std::map<int32_t, int64_t>{{0, 1}, {1, 2}, {2, 3}, {3, 4}}));
}

// OffsetForLeaderEpoch for each partition of `topic` at `leader_epoch`: (epoch, end offset).
std::map<int32_t, std::pair<int32_t, int64_t>> epoch_ends(WireClient& c, const std::string& topic, int32_t leader_epoch) {
  protocol::OffsetForLeaderEpochRequest req;
  req.replica_id = -1;
  auto& t = req.topics.emplace_back();
  t.topic = topic;
  for (int32_t p = 0; p < kPartitions; ++p) t.partitions.push_back({p, -1, leader_epoch});
  std::map<int32_t, std::pair<int32_t, int64_t>> out;
  auto r = c.call<protocol::OffsetForLeaderEpochResponse>(req, 4);
  if (!r) return out;
  for (const auto& tr : r->topics)
    for (const auto& p : tr.partitions) {
      EXPECT_EQ(p.error_code, ErrorCode::kNone) << "partition " << p.partition;
      out[p.partition] = {p.leader_epoch, p.end_offset};
    }
  return out;
}

// A store that led epoch 3, then epoch 5 (a new leader of the group): the end of epoch 3
// (and of 4, which no leader had) is where epoch 5 starts, epoch 5 ends at the log end, a
// later one is unknown. The root store's partitions keep their single epoch 0.
TEST(MultiStoreTest, OffsetForLeaderEpochOfAnEndedEpochIsWhereTheNextStarts) {
  TwoStoreBroker b;
  create_topic(b, "epochs");
  WireClient c(b.port());
  set_second_role(b, storage::Role::kLeader, 3);
  for (int n = 0; n < 2; ++n) {
    if (n == 1) set_second_role(b, storage::Role::kLeader, 5);
    std::vector<std::vector<std::byte>> batches;
    for (int32_t p = 0; p < kPartitions; ++p) batches.push_back(batch_for(p, n));
    ASSERT_EQ(produce_all(c, "epochs", batches, 1).size(), static_cast<size_t>(kPartitions));
  }
  // Partition p holds two batches of p + 1 records: the second starts at p + 1, the log ends at 2(p + 1).
  using Ends = std::map<int32_t, std::pair<int32_t, int64_t>>;
  EXPECT_EQ(epoch_ends(c, "epochs", 3), (Ends{{0, {-1, -1}}, {1, {3, 2}}, {2, {-1, -1}}, {3, {3, 4}}}));
  EXPECT_EQ(epoch_ends(c, "epochs", 4), (Ends{{0, {-1, -1}}, {1, {3, 2}}, {2, {-1, -1}}, {3, {3, 4}}}));
  EXPECT_EQ(epoch_ends(c, "epochs", 5), (Ends{{0, {-1, -1}}, {1, {5, 4}}, {2, {-1, -1}}, {3, {5, 8}}}));
  EXPECT_EQ(epoch_ends(c, "epochs", 6), (Ends{{0, {-1, -1}}, {1, {-1, -1}}, {2, {-1, -1}}, {3, {-1, -1}}}));
  EXPECT_EQ(epoch_ends(c, "epochs", 0), (Ends{{0, {0, 2}}, {1, {-1, 0}}, {2, {0, 6}}, {3, {-1, 0}}}));
}

}  // namespace
}  // namespace rokka
