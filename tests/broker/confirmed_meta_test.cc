// ConfirmedMeta (broker/records/confirmed_meta.h): a meta write on a group store is answered once
// the group's confirmed position covers the store's log end after it, not when the store alone
// has it; without a lead, after a demotion or past its timeout it fails with kNotLeader; an error
// of the store's own write is passed on. Over a FakeMetaStore and a bare ConfirmWaiters.
#include "broker/records/confirmed_meta.h"

#include <gtest/gtest.h>

#include <atomic>
#include <optional>

#include "tests/testutil/fake_meta_store.h"

namespace rokka::broker {
namespace {

using namespace std::chrono_literals;
using storage::Status;
using storage::StatusCode;

class ConfirmedMetaTest : public ::testing::Test {
 protected:
  ConfirmedMetaTest() : meta_(inner_, [this] { return log_end_.load(); }, [this] { return lead_; }, 10s) {}

  // Writes one key; the answer lands in *answer.
  void put(const std::string& key, std::optional<Status>* answer) {
    meta_.write({{key, "v", false}}, [answer](Status s) { *answer = std::move(s); });
  }

  testutil::FakeMetaStore inner_;
  std::atomic<int64_t> log_end_{0};
  std::shared_ptr<cluster::ConfirmWaiters> lead_ = std::make_shared<cluster::ConfirmWaiters>();
  ConfirmedMeta meta_;
};

TEST_F(ConfirmedMetaTest, AWriteIsAnsweredOnceTheConfirmedPositionCoversIt) {
  std::optional<Status> answer;
  put("k/1", &answer);
  EXPECT_FALSE(answer);  // not even stored yet
  log_end_ = 500;        // its entry ends here
  ASSERT_TRUE(inner_.complete_next());
  EXPECT_FALSE(answer) << "answered when only the leader had it";
  EXPECT_EQ(meta_.scan("k/").size(), 1u);  // reads are the store's
  lead_->confirm(499, 3);
  EXPECT_FALSE(answer) << "answered before C covered the entry";
  lead_->confirm(500, 3);
  ASSERT_TRUE(answer);
  EXPECT_TRUE(answer->ok()) << answer->to_string();
}

TEST_F(ConfirmedMetaTest, AWriteAlreadyCoveredIsAnsweredAtOnce) {
  lead_->confirm(800, 3);
  log_end_ = 800;
  std::optional<Status> answer;
  put("k/1", &answer);
  ASSERT_TRUE(inner_.complete_next());
  ASSERT_TRUE(answer);
  EXPECT_TRUE(answer->ok());
}

TEST_F(ConfirmedMetaTest, WithoutALeadTheWriteIsNotConfirmed) {
  lead_ = nullptr;
  log_end_ = 100;
  std::optional<Status> answer;
  put("k/1", &answer);
  ASSERT_TRUE(inner_.complete_next());
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->code(), StatusCode::kNotLeader);
}

TEST_F(ConfirmedMetaTest, ADemotionWhileWaitingFailsTheWrite) {
  log_end_ = 100;
  std::optional<Status> answer;
  put("k/1", &answer);
  ASSERT_TRUE(inner_.complete_next());
  EXPECT_FALSE(answer);
  lead_->close(cluster::ConfirmOutcome::Kind::kNotLeader, "demoted");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->code(), StatusCode::kNotLeader);
  EXPECT_NE(answer->message().find("demoted"), std::string::npos) << answer->message();
}

TEST_F(ConfirmedMetaTest, AWriteNotConfirmedInTimeFails) {
  ConfirmedMeta quick(inner_, [this] { return log_end_.load(); }, [this] { return lead_; }, 0ms);
  log_end_ = 100;
  std::optional<Status> answer;
  quick.write({{"k/1", "v", false}}, [&answer](Status s) { answer = std::move(s); });
  ASSERT_TRUE(inner_.complete_next());
  ASSERT_TRUE(answer);  // its deadline had passed when it was added
  EXPECT_EQ(answer->code(), StatusCode::kNotLeader);
  EXPECT_NE(answer->message().find("timed_out"), std::string::npos) << answer->message();
}

TEST_F(ConfirmedMetaTest, AStoreErrorIsPassedOnWithoutWaiting) {
  std::optional<Status> answer;
  put("k/1", &answer);
  ASSERT_TRUE(inner_.fail_next(Status::io_error("disk gone")));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->code(), StatusCode::kIoError);
  EXPECT_EQ(lead_->size(), 0u);
}

}  // namespace
}  // namespace rokka::broker
