// Kafka's answers for acks=all on a replication group's partitions (broker/handlers/produce_acks.h):
// the in-sync set against min.insync.replicas before the append, and every way the wait for the
// confirmed position can end.
#include "broker/handlers/produce_acks.h"

#include <gtest/gtest.h>

namespace rokka::broker {
namespace {

using Kind = cluster::ConfirmOutcome::Kind;
using protocol::ErrorCode;

TEST(ProduceAcksTest, AcksAllIsRefusedBeforeTheAppendWhileTheInSyncSetIsTooSmall) {
  EXPECT_EQ(check_in_sync_before_append(-1, 3, 4), ErrorCode::kNotEnoughReplicas);
  EXPECT_EQ(check_in_sync_before_append(-1, 1, 2), ErrorCode::kNotEnoughReplicas);
  EXPECT_EQ(check_in_sync_before_append(-1, 0, 1), ErrorCode::kNotEnoughReplicas);  // no state for the group
  EXPECT_EQ(check_in_sync_before_append(-1, 3, 3), ErrorCode::kNone);
  EXPECT_EQ(check_in_sync_before_append(-1, 3, 1), ErrorCode::kNone);
}

TEST(ProduceAcksTest, AcksZeroAndOneIgnoreMinInsyncReplicas) {
  for (int16_t acks : {int16_t{0}, int16_t{1}}) {
    EXPECT_EQ(check_in_sync_before_append(acks, 1, 3), ErrorCode::kNone) << acks;
    EXPECT_EQ(check_in_sync_before_append(acks, 3, 4), ErrorCode::kNone) << acks;
  }
}

TEST(ProduceAcksTest, AConfirmedAppendIsAnsweredUnlessTheInSyncSetShrankBelowTheMinimum) {
  EXPECT_EQ(acks_all_answer(Kind::kConfirmed, 3, 2), ErrorCode::kNone);
  EXPECT_EQ(acks_all_answer(Kind::kConfirmed, 2, 2), ErrorCode::kNone);
  EXPECT_EQ(acks_all_answer(Kind::kConfirmed, 1, 2), ErrorCode::kNotEnoughReplicasAfterAppend);
}

TEST(ProduceAcksTest, AWaitThatDidNotConfirmIsAnsweredWithKafkasError) {
  EXPECT_EQ(acks_all_answer(Kind::kTimedOut, 3, 2), ErrorCode::kRequestTimedOut);
  EXPECT_EQ(acks_all_answer(Kind::kNotEnoughReplicas, 3, 2), ErrorCode::kNotEnoughReplicasAfterAppend);
  EXPECT_EQ(acks_all_answer(Kind::kNotLeader, 3, 2), ErrorCode::kNotLeaderOrFollower);
  EXPECT_EQ(acks_all_answer(Kind::kShutdown, 3, 2), ErrorCode::kNotLeaderOrFollower);
  // A wait that failed is not made an error 20 by a small set: it never was confirmed.
  EXPECT_EQ(acks_all_answer(Kind::kTimedOut, 1, 2), ErrorCode::kRequestTimedOut);
}

}  // namespace
}  // namespace rokka::broker
