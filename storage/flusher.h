// Flusher: the store's flusher thread. It runs the fdatasyncs no acknowledgement
// waits for, off the writer thread -- async mode's periodic log flush, and a
// checkpoint's log, index and file syncs -- so appends go on meanwhile. One job runs
// while at most one waits: a job submitted while another waits merges into it.
// Sync mode's per-group flush stays on the writer: an ack there waits for the disk.
//
// Threading: the writer thread (StoreWriter) is the only caller of submit() and
// error(); the thread this object owns runs the jobs. A failed job is kept as
// error() (the writer then makes the store read-only) and later jobs are skipped.
// A job's `after` callbacks run on the flusher thread once it is done, with its
// outcome.
#pragma once

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "storage/commit_log.h"
#include "storage/file_system.h"
#include "storage/types.h"

namespace rokka::storage {

class Flusher {
 public:
  // Work for the flusher: sync what the log marked (CommitLog::mark_for_sync), then
  // (a checkpoint) these index files, then write the checkpoint file.
  struct Job {
    std::vector<File*> index_files;
    std::optional<std::vector<std::byte>> checkpoint;
    std::vector<StatusCallback> after;  // run once the job is done (rewrites waiting for it)
  };

  // Starts the thread. `log` and the files of submitted jobs outlive this object.
  Flusher(CommitLog& log, FileSystem& fs, std::filesystem::path checkpoint_path);
  ~Flusher() { stop(); }
  Flusher(const Flusher&) = delete;
  Flusher& operator=(const Flusher&) = delete;

  void submit(Job job);  // merges into a job not started yet
  Status error() const;  // the first failure, if any
  void stop();           // finishes the queued jobs first; idempotent
  // Writer: waits until no job is queued or running (their callbacks run), so that a
  // checkpoint written inline next is not overwritten by an older one queued before.
  void wait_idle();

 private:
  void run();
  Status run_job(const Job& job);

  CommitLog& log_;
  FileSystem& fs_;
  const std::filesystem::path checkpoint_path_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::optional<Job> pending_;  // GUARDED_BY(mu_): submitted, not started
  bool stop_ = false;           // GUARDED_BY(mu_)
  bool busy_ = false;           // GUARDED_BY(mu_): a job or its callbacks are running
  std::condition_variable idle_cv_;
  Status error_;                // GUARDED_BY(mu_)
  std::atomic<bool> failed_{false};  // error_ is set: error() skips the lock until then
  std::thread thread_;               // last: starts once the members above exist
};

}  // namespace rokka::storage
