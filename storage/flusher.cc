#include "storage/flusher.h"

#include <algorithm>

#include "storage/thread.h"

namespace rokka::storage {

Flusher::Flusher(CommitLog& log, FileSystem& fs, std::filesystem::path checkpoint_path)
    : log_(log),
      fs_(fs),
      checkpoint_path_(std::move(checkpoint_path)),
      thread_(start_named_thread("rokka-flusher", [this] { run(); })) {}

void Flusher::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void Flusher::submit(Job job) {
  {
    std::lock_guard lock(mu_);
    if (!pending_) {
      pending_ = std::move(job);
    } else {
      // Merge into the job not started yet (it syncs the log too); a newer checkpoint
      // replaces the older one, so a slow disk never queues more than one job.
      auto& files = pending_->index_files;
      for (File* f : job.index_files)
        if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
      if (job.checkpoint) pending_->checkpoint = std::move(job.checkpoint);
      for (auto& cb : job.after) pending_->after.push_back(std::move(cb));
    }
  }
  cv_.notify_one();
}

void Flusher::wait_idle() {
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [this] { return !pending_ && !busy_; });
}

Status Flusher::error() const {
  if (!failed_.load(std::memory_order_acquire)) return {};
  std::lock_guard lock(mu_);
  return error_;
}

void Flusher::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return pending_ || stop_; });
    if (!pending_) return;  // stopping, and nothing left
    Job job = std::move(*pending_);
    pending_.reset();
    busy_ = true;
    const bool failed = !error_.ok();  // after a failure the store is read-only: skip
    lock.unlock();
    const Status s = failed ? Status{} : run_job(job);
    lock.lock();
    if (!s.ok() && error_.ok()) {
      error_ = s;
      failed_.store(true, std::memory_order_release);
    }
    if (!job.after.empty()) {
      const Status outcome = error_;
      lock.unlock();
      for (auto& cb : job.after) cb(outcome);
      lock.lock();
    }
    busy_ = false;
    idle_cv_.notify_all();
  }
}

Status Flusher::run_job(const Job& job) {
  if (Status s = log_.sync_marked(); !s.ok()) return s;
  for (File* f : job.index_files) {
    if (Status s = f->sync(); !s.ok()) return s;
  }
  if (!job.checkpoint) return {};
  return write_file_atomic(fs_, checkpoint_path_, *job.checkpoint);
}

}  // namespace rokka::storage
