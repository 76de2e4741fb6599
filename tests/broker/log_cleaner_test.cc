// LogCleaner::clean on a real store: the latest record per key survives at its offset,
// a tombstone lives until delete.retention.ms has passed, an emptied batch is dropped
// unless it is its producer's last, transactional batches are left alone, and the
// newest batch is never cleaned.
#include <gtest/gtest.h>

#include <atomic>
#include <future>

#include "broker/records/batch_rewriter.h"
#include "broker/config/config.h"
#include "broker/records/log_cleaner.h"
#include "broker/meta/topic_registry.h"
#include "tests/testutil/record_batch_builder.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::broker {
namespace {

using testutil::RecordBatchBuilder;

struct Rec {
  int64_t offset;
  std::string key;
  std::optional<std::string> value;
  bool operator==(const Rec&) const = default;
};

class LogCleanerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage::StoreOptions o;
    o.dir = dir_.path();
    o.segment_bytes = 1 << 20;
    o.max_append_bytes = 256 << 10;
    auto store = storage::Store::open(o);
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    auto config = load_config("", {});
    ASSERT_TRUE(config.ok());
    config_ = *config;
    stores_.add("root", *store_, dir_.path());
    topics_ = std::make_unique<TopicRegistry>(stores_, config_);
    ASSERT_TRUE(topics_->load().ok());
    std::promise<TopicError> created;
    topics_->create("t", 1, {{"cleanup.policy", "compact"}, {"delete.retention.ms", "1000"}}, false,
                    [&](TopicError e, TopicPtr) { created.set_value(e); });
    ASSERT_TRUE(created.get_future().get().ok());
    topic_ = topics_->find("t");
    pid_ = topic_->partitions.at(0).pid;
    LogCleanerOptions co;
    co.clock_ms = [this] { return now_.load(); };
    cleaner_ = std::make_unique<LogCleaner>(*store_, *topics_, co);
  }
  void TearDown() override { (void)store_->close(); }

  void append(const RecordBatchBuilder& b) {
    const auto bytes = b.build();
    std::promise<std::vector<storage::Result<storage::AppendInfo>>> done;
    store_->append({{pid_, bytes}}, [&](auto r) { done.set_value(std::move(r)); });
    ASSERT_TRUE(done.get_future().get().at(0).ok());
  }
  RecordBatchBuilder batch() const {
    RecordBatchBuilder b;
    b.base_timestamp(now_.load());
    return b;
  }
  // Every record from offset 0, and the number of batches read.
  std::pair<std::vector<Rec>, int> read_all() const {
    std::vector<Rec> out;
    int batches = 0;
    auto r = store_->read(pid_, 0, 1 << 20);
    EXPECT_TRUE(r.ok());
    std::vector<std::byte> scratch;
    for (const auto& slice : r->batches) {
      protocol::RecordBatchView v;
      EXPECT_EQ(protocol::RecordBatchView::parse(slice.bytes, &v), protocol::BatchCheck::kOk);
      ++batches;
      EXPECT_TRUE(for_each_batch_record(v, scratch, [&](const protocol::Record& rec, int64_t offset) {
        std::optional<std::string> value;
        if (rec.value) value = std::string(reinterpret_cast<const char*>(rec.value->data()), rec.value->size());
        out.push_back({offset, std::string(reinterpret_cast<const char*>(rec.key->data()), rec.key->size()), value});
      }));
    }
    return {out, batches};
  }

  testutil::TempDir dir_;
  std::unique_ptr<storage::Store> store_;
  BrokerConfig config_;
  StoreSet stores_;
  std::unique_ptr<TopicRegistry> topics_;
  TopicPtr topic_;
  storage::PartitionId pid_ = 0;
  std::atomic<int64_t> now_{1'000'000};
  std::unique_ptr<LogCleaner> cleaner_;
};

TEST_F(LogCleanerTest, LatestPerKeyAndTombstonesUntilDeleteRetention) {
  append(batch().add("a", "1").add("b", "1"));  // 0, 1
  append(batch().add("a", "2").add("c", "1"));  // 2, 3
  append(batch().add("b", std::nullopt));       // 4: b's tombstone
  append(batch().add("z", "newest"));           // 5: never cleaned
  auto stats = cleaner_->clean(pid_, topic_->settings);
  ASSERT_TRUE(stats.ok()) << stats.status().to_string();
  EXPECT_TRUE(stats->rewritten);
  EXPECT_EQ(stats->records_dropped, 2);
  const std::vector<Rec> kept = {{2, "a", "2"}, {3, "c", "1"}, {4, "b", std::nullopt}, {5, "z", "newest"}};
  EXPECT_EQ(read_all().first, kept);
  EXPECT_EQ(store_->offsets(pid_)->log_start_offset, 0);

  now_ += 1001;  // past delete.retention.ms: the tombstone goes, and its emptied batch
  ASSERT_TRUE(cleaner_->clean(pid_, topic_->settings).ok());
  const auto [after, batches] = read_all();
  EXPECT_EQ(after, (std::vector<Rec>{{2, "a", "2"}, {3, "c", "1"}, {5, "z", "newest"}}));
  EXPECT_EQ(batches, 2);
  EXPECT_EQ(store_->offsets(pid_)->next_offset, 6);
}

// A replication group's follower does not compact its copy (the leader's rewrites reach it through
// the stream): its cleaner's pass leaves every record where it is, and compacts once the store may
// be rewritten (this broker leads the group).
TEST_F(LogCleanerTest, APassLeavesAStoreThatMayNotBeRewrittenAsItIs) {
  std::atomic<bool> leads{false};
  LogCleanerOptions co;
  co.clock_ms = [this] { return now_.load(); };
  co.may_rewrite = [&] { return leads.load(); };
  LogCleaner cleaner(*store_, *topics_, co);
  append(batch().add("a", "1"));       // 0: superseded by 1
  append(batch().add("a", "2"));       // 1
  append(batch().add("z", "newest"));  // 2
  cleaner.run_pass();
  EXPECT_EQ(read_all().first, (std::vector<Rec>{{0, "a", "1"}, {1, "a", "2"}, {2, "z", "newest"}}));
  leads = true;
  cleaner.run_pass();
  EXPECT_EQ(read_all().first, (std::vector<Rec>{{1, "a", "2"}, {2, "z", "newest"}}));
}

TEST_F(LogCleanerTest, AnEmptiedBatchThatIsItsProducersLastIsKeptEmpty) {
  append(batch().producer(7, 0, 0).add("a", "1"));  // 0: superseded, but producer 7's last batch
  append(batch().add("a", "2"));                     // 1
  append(batch().add("z", "newest"));                // 2
  ASSERT_TRUE(cleaner_->clean(pid_, topic_->settings).ok());
  const auto [after, batches] = read_all();
  EXPECT_EQ(after, (std::vector<Rec>{{1, "a", "2"}, {2, "z", "newest"}}));
  EXPECT_EQ(batches, 3);  // the empty batch of producer 7 stays
  // Producer 7 goes on at its next sequence.
  append(batch().producer(7, 0, 1).add("q", "1"));
  EXPECT_EQ(store_->offsets(pid_)->next_offset, 4);
}

TEST_F(LogCleanerTest, TransactionalBatchesAreLeftAloneAndSupersedeNothing) {
  append(batch().add("a", "1"));                                                                 // 0
  append(batch().producer(9, 0, 0).attributes_extra(protocol::kTransactionalBit).add("a", "t"));  // 1
  append(batch().add("b", "1"));                                                                 // 2
  append(batch().add("z", "newest"));                                                            // 3
  // Offset 1 opened a transaction: the last stable offset is 1, nothing past it is cleaned.
  auto stats = cleaner_->clean(pid_, topic_->settings);
  ASSERT_TRUE(stats.ok());
  EXPECT_FALSE(stats->rewritten);
  EXPECT_EQ(read_all().first.size(), 4u);
}

}  // namespace
}  // namespace rokka::broker
