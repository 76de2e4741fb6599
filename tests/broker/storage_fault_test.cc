// Storage faults seen through the wire: a disk that fails writes, fsyncs or file
// creation. The producer gets KAFKA_STORAGE_ERROR (56) and never a success for data
// that was not stored; the store stays read-only afterwards.
#include <gtest/gtest.h>

#include "protocol/error_code.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/faulty_file_system.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using testutil::FaultyFileSystem;
using testutil::InProcessBroker;
using testutil::WireClient;

constexpr int16_t kStorageError = protocol::to_int(ErrorCode::kKafkaStorageError);

class StorageFaultTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    protocol::MetadataRequest md;  // auto-creates the topic
    md.topics.emplace();
    md.topics->push_back({protocol::Uuid{}, "t"});
    client_.send(md, 9, 1);
    auto r = client_.receive<protocol::MetadataResponse>(9, 1);
    ASSERT_TRUE(r && r->topics.at(0).error_code == ErrorCode::kNone);
  }

  // The partition error (0 = stored) of one acks=all batch of `value_bytes`.
  int16_t produce(int32_t value_bytes) {
    const auto batch = testutil::make_batch({.records = 1, .value_bytes = value_bytes});
    protocol::ProduceRequest req;
    req.acks = -1;
    req.timeout_ms = 5000;
    auto& t = req.topic_data.emplace_back();
    t.name = "t";
    auto& p = t.partition_data.emplace_back();
    p.records.data = protocol::Bytes(batch);
    const int32_t cid = ++correlation_id_;
    client_.send(req, 9, cid);
    auto r = client_.receive<protocol::ProduceResponse>(9, cid);
    return r ? rokka::protocol::to_int(r->responses.at(0).partition_responses.at(0).error_code) : -999;
  }

  FaultyFileSystem fs_;
  InProcessBroker broker_{InProcessBroker::Overrides{{"store.flush.mode", GetParam()},
                                                      {"log.segment.bytes", "1048576"},
                                                      {"message.max.bytes", "524288"}},
                          &fs_};
  WireClient client_{broker_.port()};
  int32_t correlation_id_ = 1;
};

TEST_P(StorageFaultTest, FailedWriteIsAStorageErrorAndTheStoreStaysReadOnly) {
  ASSERT_EQ(produce(100), 0);
  fs_.fail_write = true;
  EXPECT_EQ(produce(100), kStorageError);
  fs_.fail_write = false;
  EXPECT_EQ(produce(100), kStorageError);  // no later success after a lost write
}

TEST_P(StorageFaultTest, FailedFileCreationOnSegmentRollIsAStorageError) {
  ASSERT_EQ(produce(400 << 10), 0);
  ASSERT_EQ(produce(400 << 10), 0);
  fs_.fail_create = true;  // the third batch needs a new 1 MiB segment
  EXPECT_EQ(produce(400 << 10), kStorageError);
}

INSTANTIATE_TEST_SUITE_P(FlushModes, StorageFaultTest, ::testing::Values("sync", "async"));

// Async mode acknowledges before the flush, so only sync mode answers a failed fsync.
class SyncModeStorageFaultTest : public StorageFaultTest {};

TEST_P(SyncModeStorageFaultTest, FailedFsyncIsAStorageError) {
  ASSERT_EQ(produce(100), 0);
  fs_.fail_sync = true;
  EXPECT_EQ(produce(100), kStorageError);
}

INSTANTIATE_TEST_SUITE_P(SyncMode, SyncModeStorageFaultTest, ::testing::Values("sync"));

}  // namespace
}  // namespace rokka
