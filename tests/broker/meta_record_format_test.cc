// The broker's own MetaStore records, topics ("t/"), ACL bindings ("a/") and client quotas
// ("q/"), against byte strings written out by hand from their layouts (the comments on
// TopicRegistry::encode, Authorizer::encode_key and ClientQuotas::encode_key): what an
// earlier broker wrote to a data directory must still load, and what this one writes must
// be those same bytes. Every integer is big-endian; str16 is an int16 length and the bytes
// (-1: null); counts are int32.
#include <gtest/gtest.h>

#include <future>
#include <initializer_list>
#include <memory>
#include <string>

#include "broker/config/config.h"
#include "broker/meta/authorizer.h"
#include "broker/meta/client_quotas.h"
#include "broker/meta/topic_registry.h"
#include "storage/store.h"
#include "tests/storage/store_fixture.h"
#include "tests/testutil/fake_meta_store.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::broker {
namespace {

using namespace std::string_literals;

// Bytes given one by one (0-255).
std::string bytes(std::initializer_list<int> v) {
  std::string out;
  for (int b : v) out.push_back(static_cast<char>(b));
  return out;
}

TEST(MetaRecordFormatTest, AclBindingKey) {
  // "a/" | resource type i8 (2 TOPIC) | name | pattern type i8 (4 PREFIXED) | principal | host
  //      | operation i8 (3 READ) | permission i8 (3 ALLOW)
  const std::string key = "a/"s + bytes({2}) + bytes({0, 6}) + "orders" + bytes({4}) + bytes({0, 10}) + "User:alice" +
                          bytes({0, 1}) + "*" + bytes({3}) + bytes({3});
  const AclBinding binding{ResourceType::kTopic, "orders",           PatternType::kPrefixed, "User:alice", "*",
                           AclOperation::kRead,  AclPermission::kAllow};
  const auto decoded = Authorizer::decode_key(key);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_TRUE(*decoded == binding);
  EXPECT_EQ(Authorizer::encode_key(binding), key);
  EXPECT_FALSE(Authorizer::decode_key(key.substr(0, key.size() - 1)).has_value());
  // A null (-1) name is not a name.
  EXPECT_FALSE(Authorizer::decode_key("a/"s + bytes({2, 0xff, 0xff, 4, 0, 0, 0, 0, 3, 3})).has_value());
}

TEST(MetaRecordFormatTest, ClientQuotaKeyAndValue) {
  // "q/" | part count i8 | per part, in type order: entity type, entity name (null: the
  // default entity) | quota key.   Value: float64, IEEE 754: 1048576.0 = 2^20 = 0x4130000000000000.
  const std::string key = "q/"s + bytes({2}) + bytes({0, 9}) + "client-id" + bytes({0xff, 0xff}) + bytes({0, 4}) +
                          "user" + bytes({0, 5}) + "alice" + bytes({0, 18}) + "producer_byte_rate";
  const std::string value = bytes({0x41, 0x30, 0, 0, 0, 0, 0, 0});
  const QuotaEntity entity = {{"client-id", std::nullopt}, {"user", "alice"}};
  EXPECT_EQ(ClientQuotas::encode_key(entity, "producer_byte_rate"), key);

  testutil::FakeMetaStore meta;
  meta.set_auto_complete(true);
  meta.write({{key, value, false}}, [](storage::Status s) { EXPECT_TRUE(s.ok()); });
  ClientQuotas loaded(meta);
  ASSERT_TRUE(loaded.load(false).ok());
  const auto all = loaded.describe();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].first, entity);
  EXPECT_EQ(all[0].second, (QuotaValues{{"producer_byte_rate", 1048576.0}}));

  // What alter() writes: 2048.0 = 2^11 = 0x40a0000000000000.
  testutil::FakeMetaStore written;
  written.set_auto_complete(true);
  ClientQuotas writer(written);
  std::promise<storage::Status> done;
  writer.alter({{{{"user", "bob"}}, {{"consumer_byte_rate", 2048.0}}}}, [&](storage::Status s) { done.set_value(s); });
  ASSERT_TRUE(done.get_future().get().ok());
  const auto records = written.scan("q/");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].first,
            "q/"s + bytes({1}) + bytes({0, 4}) + "user" + bytes({0, 3}) + "bob" + bytes({0, 18}) + "consumer_byte_rate");
  EXPECT_EQ(records[0].second, bytes({0x40, 0xa0, 0, 0, 0, 0, 0, 0}));
}

class TopicRecordFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = storage::test::open_store(storage::test::small_options(dir_.path()));
    ASSERT_NE(store_, nullptr);
    second_ = storage::test::open_store(storage::test::small_options(second_dir_.path()));
    ASSERT_NE(second_, nullptr);
    stores_.add("root", *store_, dir_.path());
    two_stores_.add("root", *store_, dir_.path());
    two_stores_.add("second", *second_, second_dir_.path());
    auto config = load_config("", {});
    ASSERT_TRUE(config.ok());
    config_ = *config;
  }
  void TearDown() override {
    (void)second_->close();
    (void)store_->close();
  }

  static void put(storage::Store& store, std::string key, std::string value) {
    std::promise<storage::Status> done;
    store.meta().write({{std::move(key), std::move(value), false}}, [&](storage::Status s) { done.set_value(s); });
    ASSERT_TRUE(done.get_future().get().ok());
  }
  void put(std::string key, std::string value) { put(*store_, std::move(key), std::move(value)); }

  testutil::TempDir dir_, second_dir_;
  std::unique_ptr<storage::Store> store_, second_;
  StoreSet stores_;      // the root store alone
  StoreSet two_stores_;  // root, and second_ in slot 1
  BrokerConfig config_;
};

std::string int32(uint32_t v) { return bytes({int(v >> 24), int((v >> 16) & 0xff), int((v >> 8) & 0xff), int(v & 0xff)}); }

// Version 1, still read: i8 (1) | topic id, 16 bytes | internal i8 | partitions: count, then
// each root-store partition id (int32) | configs: count, then (key, value) in key order.
TEST_F(TopicRecordFormatTest, LoadsTheRecordAnEarlierBrokerWrote) {
  const std::string id = bytes({0x6f, 0x1c, 0x52, 0x0b, 0x91, 0x3e, 0x4a, 0x07, 0xa2, 0x55, 0x10, 0xc4, 0x3d, 0x88, 0x7e, 0x01});
  put("t/orders", bytes({1}) + id + bytes({0}) +                                          //
                      bytes({0, 0, 0, 2}) + bytes({0, 0, 0, 3}) + bytes({0, 0, 1, 9}) +  // partitions 3, 265
                      bytes({0, 0, 0, 2}) +                                                // two configs
                      bytes({0, 14}) + "cleanup.policy" + bytes({0, 7}) + "compact" +      //
                      bytes({0, 12}) + "retention.ms" + bytes({0, 7}) + "3600000");
  TopicRegistry topics(stores_, config_);
  ASSERT_TRUE(topics.load().ok());
  const TopicPtr t = topics.find("orders");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(t->id.data()), t->id.size()), id);
  EXPECT_FALSE(t->internal);
  EXPECT_EQ(t->partitions, (std::vector<PartitionLoc>{{kRootSlot, 3}, {kRootSlot, 265}}));
  EXPECT_EQ(t->configs, (std::map<std::string, std::string>{{"cleanup.policy", "compact"}, {"retention.ms", "3600000"}}));
  EXPECT_TRUE(t->settings.compact);
  EXPECT_EQ(topics.find(t->id), t);
}

// A value an earlier broker accepted and this one refuses (min.insync.replicas=0 was accepted
// before the key was applied) costs only that setting: the topic still compacts.
TEST_F(TopicRecordFormatTest, AStoredConfigNoLongerValidDropsOnlyItself) {
  const std::string id(16, '\x11');
  put("t/kept", bytes({1}) + id + bytes({0}) + bytes({0, 0, 0, 1, 0, 0, 0, 4}) +          // one partition, pid 4
                    bytes({0, 0, 0, 3}) +                                                   // three configs
                    bytes({0, 14}) + "cleanup.policy" + bytes({0, 7}) + "compact" +         //
                    bytes({0, 19}) + "min.insync.replicas" + bytes({0, 1}) + "0" +          //
                    bytes({0, 12}) + "retention.ms" + bytes({0, 7}) + "3600000");
  TopicRegistry topics(stores_, config_);
  ASSERT_TRUE(topics.load().ok());
  const TopicPtr t = topics.find("kept");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->settings.compact);
  EXPECT_EQ(t->settings.retention_ms, 3600000);
  EXPECT_EQ(t->settings.min_insync_replicas, config_.min_insync_replicas);
  EXPECT_EQ(t->configs.at("min.insync.replicas"), "0");  // kept as stored, nothing rewritten
}

TEST_F(TopicRecordFormatTest, AnInternalTopicWithNoConfigs) {
  const std::string id(16, '\x42');
  put("t/__consumer_offsets", bytes({1}) + id + bytes({1}) + bytes({0, 0, 0, 1, 0, 0, 0, 0}) + bytes({0, 0, 0, 0}));
  TopicRegistry topics(stores_, config_);
  ASSERT_TRUE(topics.load().ok());
  const TopicPtr t = topics.find("__consumer_offsets");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->internal);
  EXPECT_EQ(t->partitions, (std::vector<PartitionLoc>{{kRootSlot, 0}}));
  EXPECT_TRUE(t->configs.empty());
}

TEST_F(TopicRecordFormatTest, ARecordThatDoesNotDecodeStopsTheLoad) {
  const std::string id(16, '\x42');
  put("t/bad", bytes({1}) + id + bytes({0}) + bytes({0, 0, 0, 9}) + bytes({0, 0, 0, 0}));  // 9 partitions, 1 present
  TopicRegistry topics(stores_, config_);
  EXPECT_FALSE(topics.load().ok());
}

TEST_F(TopicRecordFormatTest, WritesTheSameBytes) {
  TopicRegistry topics(stores_, config_);
  ASSERT_TRUE(topics.load().ok());
  std::promise<TopicError> created;
  topics.create("fresh", 2, {{"cleanup.policy", "compact"}}, false,
                [&](TopicError e, TopicPtr) { created.set_value(std::move(e)); });
  ASSERT_TRUE(created.get_future().get().ok());
  const TopicPtr t = topics.find("fresh");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->partitions.size(), 2u);
  // Wholly in the root store: still version 1, the bytes an earlier broker wrote and reads.
  const std::string expected = bytes({1}) + std::string(reinterpret_cast<const char*>(t->id.data()), t->id.size()) +
                               bytes({0}) + int32(2) + int32(t->partitions[0].pid) + int32(t->partitions[1].pid) +
                               int32(1) + bytes({0, 14}) + "cleanup.policy" + bytes({0, 7}) + "compact";
  const auto records = store_->meta().scan("t/fresh");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].second, expected);
}

// Version 2: i8 (2) | topic id, 16 bytes | internal i8 | the topic's partition count (int32)
// | the partitions this store holds: count, then (partition index, store partition id) int32
// pairs | configs: count, then (key, value) in key order.
// A topic over two stores: each store's record names the partitions it holds, and the
// load puts the topic back together with each partition in its own store.
TEST_F(TopicRecordFormatTest, ATopicOverTwoStoresHasARecordInEach) {
  const std::string id(16, '\x07');
  put(*store_, "t/split", bytes({2}) + id + bytes({0}) + int32(3) + int32(2) + int32(0) + int32(5) + int32(2) + int32(6) +
                              int32(0));
  put(*second_, "t/split", bytes({2}) + id + bytes({0}) + int32(3) + int32(1) + int32(1) + int32(5) + int32(0));
  TopicRegistry topics(two_stores_, config_);
  ASSERT_TRUE(topics.load().ok());
  const TopicPtr t = topics.find("split");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->partitions, (std::vector<PartitionLoc>{{0, 5}, {1, 5}, {0, 6}}));

  // The root store's record alone does not make the topic whole.
  TopicRegistry root_only(stores_, config_);
  EXPECT_FALSE(root_only.load().ok());
}

// A version 2 record that lies about its sizes stops the load (never a crash, never a huge
// allocation): a negative or oversized partition count, an index outside it, more pairs than
// the count, a pair count the bytes cannot hold, a truncated record, bytes after the end.
TEST_F(TopicRecordFormatTest, AVersionTwoRecordThatLiesStopsTheLoad) {
  const std::string head = bytes({2}) + std::string(16, '\x09') + bytes({0});
  const std::string no_configs = int32(0);
  {  // the honest record these lie about: one partition, index 0, pid 4, loads
    testutil::TempDir dir;
    auto store = storage::test::open_store(storage::test::small_options(dir.path()));
    ASSERT_NE(store, nullptr);
    put(*store, "t/honest", head + int32(1) + int32(1) + int32(0) + int32(4) + no_configs);
    StoreSet one;
    one.add("root", *store, dir.path());
    TopicRegistry topics(one, config_);
    ASSERT_TRUE(topics.load().ok());
    ASSERT_NE(topics.find("honest"), nullptr);
    EXPECT_EQ(topics.find("honest")->partitions, (std::vector<PartitionLoc>{{kRootSlot, 4}}));
    (void)store->close();
  }
  for (const std::string& body : {int32(0xffffffff) + int32(0) + no_configs,                 // count -1
                                  int32(2'000'000'000) + int32(0) + no_configs,              // count too large
                                  int32(1) + int32(1) + int32(1) + int32(4) + no_configs,    // index 1 of 1
                                  int32(1) + int32(1) + int32(0xffffffff) + int32(4) + no_configs,  // index -1
                                  int32(1) + int32(2) + int32(0) + int32(4) + int32(0) + int32(5) + no_configs,
                                  int32(4) + int32(0x7fffffff) + int32(0) + int32(4) + no_configs,  // pairs > bytes
                                  int32(1) + int32(1) + int32(0),                            // truncated pair
                                  int32(1) + int32(1) + int32(0) + int32(4) + no_configs + bytes({0})}) {
    testutil::TempDir dir;
    auto store = storage::test::open_store(storage::test::small_options(dir.path()));
    ASSERT_NE(store, nullptr);
    put(*store, "t/liar", head + body);
    StoreSet one;
    one.add("root", *store, dir.path());
    TopicRegistry topics(one, config_);
    EXPECT_FALSE(topics.load().ok());
    (void)store->close();
  }
}

TEST_F(TopicRecordFormatTest, CreatedOverTwoStoresLoadsTheSame) {
  TopicRegistry topics(two_stores_, config_, [](std::string_view, int32_t index) {
    return static_cast<StoreSlot>(index % 2);
  });
  ASSERT_TRUE(topics.load().ok());
  std::promise<TopicError> created;
  topics.create("odd", 4, {}, false, [&](TopicError e, TopicPtr) { created.set_value(std::move(e)); });
  ASSERT_TRUE(created.get_future().get().ok());
  const TopicPtr t = topics.find("odd");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->partitions.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(t->partitions[i].slot, static_cast<StoreSlot>(i % 2)) << i;
  const std::string head = bytes({2}) + std::string(reinterpret_cast<const char*>(t->id.data()), t->id.size()) +
                           bytes({0}) + int32(4) + int32(2);
  auto root_records = store_->meta().scan("t/odd");
  auto second_records = second_->meta().scan("t/odd");
  ASSERT_EQ(root_records.size(), 1u);
  ASSERT_EQ(second_records.size(), 1u);
  EXPECT_EQ(root_records[0].second,
            head + int32(0) + int32(t->partitions[0].pid) + int32(2) + int32(t->partitions[2].pid) + int32(0));
  EXPECT_EQ(second_records[0].second,
            head + int32(1) + int32(t->partitions[1].pid) + int32(3) + int32(t->partitions[3].pid) + int32(0));

  TopicRegistry reloaded(two_stores_, config_);
  ASSERT_TRUE(reloaded.load().ok());
  const TopicPtr r = reloaded.find("odd");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->partitions, t->partitions);
  EXPECT_EQ(r->id, t->id);

  // Deleting it takes the record out of both stores.
  std::promise<TopicError> removed;
  topics.remove("odd", [&](TopicError e) { removed.set_value(std::move(e)); });
  ASSERT_TRUE(removed.get_future().get().ok());
  EXPECT_TRUE(store_->meta().scan("t/odd").empty());
  EXPECT_TRUE(second_->meta().scan("t/odd").empty());
}

}  // namespace
}  // namespace rokka::broker
