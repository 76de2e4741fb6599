// Transaction markers as Kafka lays them out (KIP-98, control records): a
// transactional control batch of one record whose key is {version 0, type} and whose
// value is {version 0, coordinator epoch}.
#include "protocol/control_batch.h"

#include <gtest/gtest.h>

#include "protocol/record.h"
#include "protocol/record_batch.h"

namespace rokka::protocol {
namespace {

std::vector<std::byte> bytes(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

TEST(ControlBatchTest, CommitMarkerIsAControlBatchOfTheProducer) {
  TxnMarker m;
  m.producer_id = 0x0102030405060708;
  m.producer_epoch = 7;
  m.type = ControlType::kCommit;
  m.coordinator_epoch = 5;
  m.timestamp_ms = 1700000000123;
  const std::vector<std::byte> b = build_txn_marker(m);

  RecordBatchView view;
  ASSERT_EQ(RecordBatchView::parse(b, &view), BatchCheck::kOk);
  EXPECT_EQ(view.size(), b.size());  // Length covers exactly the bytes built
  EXPECT_TRUE(view.is_control());
  EXPECT_TRUE(view.is_transactional());
  EXPECT_EQ(view.compression(), Compression::kNone);
  EXPECT_EQ(view.producer_id(), m.producer_id);
  EXPECT_EQ(view.producer_epoch(), 7);
  EXPECT_EQ(view.base_sequence(), -1);
  EXPECT_EQ(view.records_count(), 1);
  EXPECT_EQ(view.last_offset_delta(), 0);
  EXPECT_EQ(view.max_timestamp(), m.timestamp_ms);

  std::vector<Record> records;
  std::vector<std::byte> scratch;
  ASSERT_TRUE(for_each_record(view, 1 << 20, scratch, [&](const Record& r) { records.push_back(r); }));
  ASSERT_EQ(records.size(), 1u);
  ASSERT_TRUE(records[0].key && records[0].value);
  const auto key = bytes({0, 0, 0, 1});
  const auto value = bytes({0, 0, 0, 0, 0, 5});
  EXPECT_TRUE(std::equal(records[0].key->begin(), records[0].key->end(), key.begin(), key.end()));
  EXPECT_TRUE(std::equal(records[0].value->begin(), records[0].value->end(), value.begin(), value.end()));
  EXPECT_EQ(parse_control_key(*records[0].key), ControlType::kCommit);
}

TEST(ControlBatchTest, AbortMarkerCarriesTypeZero) {
  TxnMarker m;
  m.producer_id = 3;
  m.producer_epoch = 0;
  m.type = ControlType::kAbort;
  const std::vector<std::byte> b = build_txn_marker(m);
  RecordBatchView view;
  ASSERT_EQ(RecordBatchView::parse(b, &view), BatchCheck::kOk);
  std::vector<std::byte> scratch;
  std::optional<ControlType> type;
  ASSERT_TRUE(for_each_record(view, 1 << 20, scratch, [&](const Record& r) { type = parse_control_key(*r.key); }));
  EXPECT_EQ(type, ControlType::kAbort);
  // A client may not produce it: Produce refuses control batches.
  EXPECT_EQ(view.check_produced(), BatchCheck::kControlBatchFromClient);
}

TEST(ControlBatchTest, ControlKeyParserRefusesAnythingElse) {
  EXPECT_EQ(parse_control_key(bytes({})), std::nullopt);
  EXPECT_EQ(parse_control_key(bytes({0, 0, 0})), std::nullopt);
  EXPECT_EQ(parse_control_key(bytes({0, 0, 0, 1, 0})), std::nullopt);
  EXPECT_EQ(parse_control_key(bytes({0, 1, 0, 1})), std::nullopt);  // unknown key version
  EXPECT_EQ(parse_control_key(bytes({0, 0, 0, 2})), std::nullopt);  // unknown type
}

}  // namespace
}  // namespace rokka::protocol
