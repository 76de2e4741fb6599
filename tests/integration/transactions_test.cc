// Kafka transactions against build/rokka with librdkafka's transactional producer:
// read_committed consumers see committed transactions only, aborted ones never;
// transactional offsets commit with the transaction; a newer producer fences an older
// one; a transaction cut short by kill -9 never becomes visible as committed.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/list_transactions.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using testutil::Consumed;
using testutil::RokkaProcess;
using testutil::TempDir;

constexpr int kTimeoutMs = 30000;

// Fails the test with the error's text (and frees it) when `e` is set.
void expect_ok(RdKafka::Error* e, const char* what) {
  std::unique_ptr<RdKafka::Error> owned(e);
  EXPECT_EQ(owned, nullptr) << what << ": " << (owned ? owned->str() : "");
}

// A transactional producer with its own delivery reports.
class TxnProducer {
 public:
  TxnProducer(const std::string& bootstrap, const std::string& transactional_id,
              std::map<std::string, std::string> extra = {})
      : producer_(bootstrap, [&] {
          extra["transactional.id"] = transactional_id;
          extra.emplace("linger.ms", "1");
          return extra;
        }()) {}

  RdKafka::Producer& handle() { return producer_.handle(); }
  void init() { expect_ok(handle().init_transactions(kTimeoutMs), "init_transactions"); }
  void begin() { expect_ok(handle().begin_transaction(), "begin_transaction"); }
  void commit() { expect_ok(handle().commit_transaction(kTimeoutMs), "commit_transaction"); }
  void abort() { expect_ok(handle().abort_transaction(kTimeoutMs), "abort_transaction"); }
  // Produces value_prefix-0.. to the partitions in turn and waits for the acks.
  void send(const std::string& topic, const std::string& value_prefix, int count, int partitions) {
    for (int i = 0; i < count; ++i)
      ASSERT_EQ(producer_.produce(topic, i % partitions, std::nullopt, value_prefix + "-" + std::to_string(i)),
                RdKafka::ERR_NO_ERROR);
    for (auto& d : producer_.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(d.error);
  }

 private:
  testutil::TestProducer producer_;
};

// The values read from one partition from offset 0 until `count` arrived.
std::vector<std::string> read_values(const std::string& bootstrap, const std::string& topic, int32_t partition,
                                     size_t count, const std::string& isolation) {
  auto got = testutil::consume_assigned(bootstrap, topic, {partition}, 0, count, std::chrono::seconds(60),
                                        {{"isolation.level", isolation}, {"group.id", "reader-" + topic}});
  std::vector<std::string> out;
  for (const Consumed& c : got) out.push_back(c.value.value_or(""));
  return out;
}

// The values value_prefix-i that TxnProducer::send put on `partition`.
std::vector<std::string> sent_to(const std::string& value_prefix, int count, int partitions, int partition) {
  std::vector<std::string> out;
  for (int i = partition; i < count; i += partitions) out.push_back(value_prefix + "-" + std::to_string(i));
  return out;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class TransactionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "data");
    broker_ = std::make_unique<RokkaProcess>(dir_ / "data", RokkaProcess::Overrides{{"num.partitions", "2"}});
    broker_->start();
  }
  void TearDown() override { EXPECT_EQ(broker_->stop(), 0) << broker_->log_tail(); }
  std::string bootstrap() const { return broker_->bootstrap(); }

  TempDir dir_;
  std::unique_ptr<RokkaProcess> broker_;
};

// Committed, aborted, committed: a read_committed consumer gets the two committed
// transactions in order on each partition and nothing of the aborted one (which sits
// between them in the log); a read_uncommitted consumer gets all three.
TEST_F(TransactionsTest, ReadCommittedSkipsAbortedTransactions) {
  TxnProducer p(bootstrap(), "txn-basic");
  p.init();
  p.begin();
  p.send("t", "c1", 10, 2);
  p.commit();
  p.begin();
  p.send("t", "ab", 10, 2);
  p.abort();
  p.begin();
  p.send("t", "c2", 6, 2);
  p.commit();

  for (int32_t part = 0; part < 2; ++part) {
    const auto committed = concat(sent_to("c1", 10, 2, part), sent_to("c2", 6, 2, part));
    EXPECT_EQ(read_values(bootstrap(), "t", part, committed.size(), "read_committed"), committed) << part;
    const auto all = concat(concat(sent_to("c1", 10, 2, part), sent_to("ab", 10, 2, part)), sent_to("c2", 6, 2, part));
    EXPECT_EQ(read_values(bootstrap(), "t", part, all.size(), "read_uncommitted"), all) << part;
  }
}

// Offsets sent to a transaction become the group's committed offsets when it commits;
// those of an aborted transaction never do.
TEST_F(TransactionsTest, SendOffsetsToTransactionCommitsWithTheTransaction) {
  {  // the topic exists before offsets are committed for it
    TxnProducer p(bootstrap(), "txn-offsets-setup");
    p.init();
    p.begin();
    p.send("o", "x", 4, 2);
    p.commit();
  }
  auto consumer_conf = testutil::make_conf({{"bootstrap.servers", bootstrap()}, {"group.id", "g-txn"}});
  std::string err;
  std::unique_ptr<RdKafka::KafkaConsumer> consumer(RdKafka::KafkaConsumer::create(consumer_conf.get(), err));
  ASSERT_TRUE(consumer) << err;
  std::unique_ptr<RdKafka::ConsumerGroupMetadata> group(consumer->groupMetadata());

  TxnProducer p(bootstrap(), "txn-offsets");
  p.init();
  auto send_offsets = [&](int64_t offset) {
    std::vector<RdKafka::TopicPartition*> offsets{RdKafka::TopicPartition::create("o", 0, offset)};
    expect_ok(p.handle().send_offsets_to_transaction(offsets, group.get(), kTimeoutMs), "send_offsets");
    RdKafka::TopicPartition::destroy(offsets);
  };
  auto committed = [&] {
    std::vector<RdKafka::TopicPartition*> tps{RdKafka::TopicPartition::create("o", 0)};
    EXPECT_EQ(consumer->committed(tps, kTimeoutMs), RdKafka::ERR_NO_ERROR);
    const int64_t offset = tps[0]->offset();
    RdKafka::TopicPartition::destroy(tps);
    return offset;
  };

  p.begin();
  p.send("o", "y", 2, 2);
  send_offsets(3);
  p.commit();
  EXPECT_EQ(committed(), 3);

  p.begin();
  p.send("o", "z", 2, 2);
  send_offsets(7);
  p.abort();
  EXPECT_EQ(committed(), 3);  // the aborted transaction's offset never took effect
  consumer->close();
}

// A second producer with the same transactional id fences the first: the first's open
// transaction is aborted and its commit fails; only the second's messages are committed.
TEST_F(TransactionsTest, NewProducerFencesTheOldOne) {
  TxnProducer zombie(bootstrap(), "txn-fence");
  zombie.init();
  zombie.begin();
  zombie.send("f", "zombie", 4, 1);

  TxnProducer fresh(bootstrap(), "txn-fence");
  fresh.init();  // aborts the zombie's transaction with a bumped epoch
  fresh.begin();
  fresh.send("f", "fresh", 3, 1);
  fresh.commit();

  std::unique_ptr<RdKafka::Error> e(zombie.handle().commit_transaction(kTimeoutMs));
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->is_fatal()) << e->str();
  EXPECT_EQ(e->code(), RdKafka::ERR__FENCED) << e->str();

  EXPECT_EQ(read_values(bootstrap(), "f", 0, 3, "read_committed"), sent_to("fresh", 3, 1, 0));
}

// kill -9 in the middle of a transaction: after the restart the next producer with the
// same transactional id aborts it, and read_committed consumers never see its messages
// while the transactions before and after it are all there.
TEST_F(TransactionsTest, TransactionCutByKillNineIsAbortedAfterRestart) {
  {
    TxnProducer p(bootstrap(), "txn-crash");
    p.init();
    p.begin();
    p.send("k", "before", 6, 2);
    p.commit();
    p.begin();
    p.send("k", "lost", 6, 2);
    broker_->kill9();
  }
  broker_->start();
  TxnProducer p(bootstrap(), "txn-crash");
  p.init();
  p.begin();
  p.send("k", "after", 4, 2);
  p.commit();
  for (int32_t part = 0; part < 2; ++part) {
    const auto committed = concat(sent_to("before", 6, 2, part), sent_to("after", 4, 2, part));
    EXPECT_EQ(read_values(bootstrap(), "k", part, committed.size(), "read_committed"), committed) << part;
  }
}

// The admin view of transactions (DescribeTransactions, ListTransactions: what
// kafka-transactions.sh shows): an open transaction with its partitions, then its
// completion; an unknown id is TRANSACTIONAL_ID_NOT_FOUND; the filters select.
TEST_F(TransactionsTest, DescribeAndListShowTheTransactionState) {
  TxnProducer p(bootstrap(), "txn-describe", {{"transaction.timeout.ms", "45000"}});
  p.init();
  p.begin();
  p.send("t", "open", 4, 2);
  testutil::WireClient wire(broker_->port());
  int32_t correlation = 0;
  auto describe = [&] {
    protocol::DescribeTransactionsRequest req;
    req.transactional_ids = {"txn-describe", "nobody"};
    wire.send(req, 0, ++correlation);
    return wire.receive<protocol::DescribeTransactionsResponse>(0, correlation);
  };
  auto list = [&](std::vector<std::string_view> states, std::vector<int64_t> producer_ids, int64_t longer_than_ms) {
    protocol::ListTransactionsRequest req;
    req.state_filters = std::move(states);
    req.producer_id_filters = std::move(producer_ids);
    req.duration_filter = longer_than_ms;
    wire.send(req, 1, ++correlation);
    return wire.receive<protocol::ListTransactionsResponse>(1, correlation);
  };

  auto open = describe();
  ASSERT_TRUE(open);
  ASSERT_EQ(open->transaction_states.size(), 2u);
  const auto& txn = open->transaction_states[0];
  EXPECT_EQ(txn.error_code, ErrorCode::kNone);
  EXPECT_EQ(txn.transactional_id, "txn-describe");
  EXPECT_EQ(txn.transaction_state, "Ongoing");
  EXPECT_EQ(txn.transaction_timeout_ms, 45000);
  EXPECT_GT(txn.transaction_start_time_ms, 0);
  EXPECT_GE(txn.producer_id, 0);
  EXPECT_GE(txn.producer_epoch, 0);
  ASSERT_EQ(txn.topics.size(), 1u);
  EXPECT_EQ(txn.topics[0].topic, "t");
  EXPECT_EQ(txn.topics[0].partitions, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(open->transaction_states[1].transactional_id, "nobody");
  EXPECT_EQ(open->transaction_states[1].error_code, ErrorCode::kTransactionalIdNotFound);  // TRANSACTIONAL_ID_NOT_FOUND

  auto ongoing = list({"Ongoing", "Bogus"}, {}, -1);
  ASSERT_TRUE(ongoing);
  EXPECT_EQ(ongoing->error_code, ErrorCode::kNone);
  EXPECT_EQ(ongoing->unknown_state_filters, std::vector<std::string>{"Bogus"});
  ASSERT_EQ(ongoing->transaction_states.size(), 1u);
  EXPECT_EQ(ongoing->transaction_states[0].transactional_id, "txn-describe");
  EXPECT_EQ(ongoing->transaction_states[0].producer_id, txn.producer_id);
  EXPECT_EQ(ongoing->transaction_states[0].transaction_state, "Ongoing");
  auto other_producer = list({}, {txn.producer_id + 1}, -1);
  ASSERT_TRUE(other_producer);
  EXPECT_TRUE(other_producer->transaction_states.empty());
  auto older_than_an_hour = list({}, {}, 3600000);
  ASSERT_TRUE(older_than_an_hour);
  EXPECT_TRUE(older_than_an_hour->transaction_states.empty());

  p.commit();
  auto done = describe();
  ASSERT_TRUE(done);
  EXPECT_EQ(done->transaction_states[0].transaction_state, "CompleteCommit");
  EXPECT_TRUE(done->transaction_states[0].topics.empty());
  auto still_ongoing = list({"Ongoing"}, {}, -1);
  ASSERT_TRUE(still_ongoing);
  EXPECT_TRUE(still_ongoing->transaction_states.empty());
  auto any = list({}, {}, -1);
  ASSERT_TRUE(any);
  ASSERT_EQ(any->transaction_states.size(), 1u);
  EXPECT_EQ(any->transaction_states[0].transaction_state, "CompleteCommit");
}

}  // namespace
}  // namespace rokka
