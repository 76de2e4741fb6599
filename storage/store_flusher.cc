// The flusher thread: runs the fdatasyncs no acknowledgement waits for, off the
// writer thread -- async mode's periodic log flush, and a checkpoint's log, index
// and file syncs -- so appends go on meanwhile. One job runs while at most one
// waits. Sync mode's per-group flush stays on the writer: an ack there waits for
// the disk.
// A failed job is reported to the writer, which makes the store read-only.
#include <algorithm>

#include "storage/store_impl.h"
#include "storage/thread.h"

namespace rokka::storage {

void StoreImpl::start_flusher() {
  flusher_ = std::thread([this] {
    name_this_thread("rokka-flusher");
    run_flusher();
  });
}

void StoreImpl::stop_flusher() {
  {
    std::lock_guard lock(flush_mu_);
    flush_stop_ = true;
  }
  flush_cv_.notify_one();
  if (flusher_.joinable()) flusher_.join();
}

void StoreImpl::submit_flush(FlushJob job) {
  {
    std::lock_guard lock(flush_mu_);
    if (!pending_flush_) {
      pending_flush_ = std::move(job);
    } else {
      // Merge into the job not started yet (it syncs the log too); a newer checkpoint
      // replaces the older one, so a slow disk never queues more than one job.
      auto& files = pending_flush_->index_files;
      for (File* f : job.index_files)
        if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
      if (job.checkpoint) pending_flush_->checkpoint = std::move(job.checkpoint);
      for (auto& cb : job.after) pending_flush_->after.push_back(std::move(cb));
    }
  }
  flush_cv_.notify_one();
}

Status StoreImpl::flusher_error() {
  if (!flush_failed_.load(std::memory_order_acquire)) return {};
  std::lock_guard lock(flush_mu_);
  return flush_error_;
}

void StoreImpl::run_flusher() {
  std::unique_lock lock(flush_mu_);
  for (;;) {
    flush_cv_.wait(lock, [this] { return pending_flush_ || flush_stop_; });
    if (!pending_flush_) return;  // stopping, and nothing left
    FlushJob job = std::move(*pending_flush_);
    pending_flush_.reset();
    const bool failed = !flush_error_.ok();  // after a failure the store is read-only: skip
    lock.unlock();
    const Status s = failed ? Status{} : run_flush_job(job);
    lock.lock();
    if (!s.ok() && flush_error_.ok()) {
      flush_error_ = s;
      flush_failed_.store(true, std::memory_order_release);
    }
    if (!job.after.empty()) {
      const Status outcome = flush_error_;
      lock.unlock();
      for (auto& cb : job.after) cb(outcome);
      lock.lock();
    }
  }
}

Status StoreImpl::run_flush_job(const FlushJob& job) {
  if (Status s = log_->sync_marked(); !s.ok()) return s;
  for (File* f : job.index_files) {
    if (Status s = f->sync(); !s.ok()) return s;
  }
  if (!job.checkpoint) return {};
  return write_file_atomic(*fs_, options_.dir / "checkpoint", *job.checkpoint);
}

}  // namespace rokka::storage
