// Flusher alone: the thread that runs the syncs no acknowledgement waits for. Its
// jobs run against a real CommitLog and index file on FaultyFileSystem.
#include "storage/flusher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "tests/testutil/faulty_file_system.h"
#include "tests/testutil/file_bytes.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::storage {
namespace {

using Bytes = std::vector<std::byte>;
using testutil::file_bytes;

Bytes bytes_of(std::string_view s) {
  Bytes out;
  for (char c : s) out.push_back(static_cast<std::byte>(c));
  return out;
}

class FlusherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto log = CommitLog::open({.dir = dir_ / "log", .segment_bytes = 64 * 1024, .fs = &faulty_});
    ASSERT_TRUE(log.ok());
    log_ = std::move(*log);
    auto f = faulty_.open(dir_ / "index-file", true);
    ASSERT_TRUE(f.ok());
    index_file_ = std::move(*f);
    flusher_ = std::make_unique<Flusher>(*log_, faulty_, checkpoint_);
  }
  void TearDown() override {
    faulty_.release_syncs();
    flusher_.reset();
  }
  // A job whose `after` callback reports its outcome through the returned future.
  std::future<Status> submit(Flusher::Job job) {
    auto done = std::make_shared<std::promise<Status>>();
    auto outcome = done->get_future();
    job.after.push_back([done](Status s) { done->set_value(s); });
    flusher_->submit(std::move(job));
    return outcome;
  }
  static Status wait(std::future<Status>& f) {
    if (f.wait_for(std::chrono::seconds(30)) != std::future_status::ready) return Status::io_error("job never ran");
    return f.get();
  }

  testutil::TempDir dir_;
  testutil::FaultyFileSystem faulty_;
  std::filesystem::path checkpoint_ = dir_ / "checkpoint";
  std::unique_ptr<CommitLog> log_;
  std::unique_ptr<File> index_file_;
  std::unique_ptr<Flusher> flusher_;
};

TEST_F(FlusherTest, AJobSyncsItsFilesThenWritesTheCheckpoint) {
  const int before = faulty_.syncs;
  auto done = submit({{index_file_.get()}, bytes_of("cp-1"), {}});
  EXPECT_TRUE(wait(done).ok());
  EXPECT_GT(faulty_.syncs, before);
  EXPECT_EQ(file_bytes(checkpoint_), bytes_of("cp-1"));
  EXPECT_TRUE(flusher_->error().ok());
}

TEST_F(FlusherTest, AJobWithoutACheckpointWritesNoFile) {
  auto done = submit({});
  EXPECT_TRUE(wait(done).ok());
  EXPECT_FALSE(std::filesystem::exists(checkpoint_));
}

TEST_F(FlusherTest, AFailedJobIsKeptAsTheErrorAndLaterJobsAreSkipped) {
  faulty_.fail_sync = true;
  auto first = submit({{index_file_.get()}, bytes_of("cp-1"), {}});
  EXPECT_EQ(wait(first).code(), StatusCode::kIoError);
  EXPECT_EQ(flusher_->error().code(), StatusCode::kIoError);
  EXPECT_FALSE(std::filesystem::exists(checkpoint_));
  faulty_.fail_sync = false;  // the disk "recovers": the flusher must not believe it
  auto second = submit({{}, bytes_of("cp-2"), {}});
  EXPECT_EQ(wait(second).code(), StatusCode::kIoError);  // told the first failure
  EXPECT_FALSE(std::filesystem::exists(checkpoint_));
}

TEST_F(FlusherTest, JobsSubmittedWhileOneRunsMergeAndTheNewestCheckpointWins) {
  faulty_.hold_syncs();
  auto running = submit({{index_file_.get()}, bytes_of("cp-1"), {}});
  ASSERT_TRUE(faulty_.wait_for_held_sync(std::chrono::seconds(30)));
  auto second = submit({{index_file_.get()}, bytes_of("cp-2"), {}});
  auto third = submit({{index_file_.get()}, bytes_of("cp-3"), {}});
  const int syncs_before_release = faulty_.syncs;
  faulty_.release_syncs();
  EXPECT_TRUE(wait(running).ok());
  EXPECT_TRUE(wait(second).ok());
  EXPECT_TRUE(wait(third).ok());
  EXPECT_EQ(file_bytes(checkpoint_), bytes_of("cp-3"));
  // After the release: the held job's checkpoint file, then ONE merged job (the index
  // file and the newest checkpoint file): 3 file syncs. Two separate jobs would be 5.
  EXPECT_EQ(faulty_.syncs - syncs_before_release, 3);
}

TEST_F(FlusherTest, StopFinishesTheQueuedJobFirst) {
  faulty_.hold_syncs();
  auto running = submit({{index_file_.get()}, {}, {}});
  ASSERT_TRUE(faulty_.wait_for_held_sync(std::chrono::seconds(30)));
  auto queued = submit({{}, bytes_of("last"), {}});
  std::thread stopper([this] { flusher_->stop(); });
  faulty_.release_syncs();
  stopper.join();
  EXPECT_EQ(running.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  EXPECT_EQ(queued.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  EXPECT_EQ(file_bytes(checkpoint_), bytes_of("last"));
  flusher_->stop();  // idempotent
}

}  // namespace
}  // namespace rokka::storage
