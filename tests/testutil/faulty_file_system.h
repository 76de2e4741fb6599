// FaultyFileSystem: the real file system with faults on demand. Arm fail_sync and
// every later File::sync() and sync_dir() fails with kIoError (like a disk that
// returned EIO to fsync); arm fail_write and pwrite-style writes fail; arm fail_create
// and creating a file fails (ENOSPC); arm fail_rename and renames fail. hold_syncs()
// makes File::sync() block until release_syncs() (a disk slow to fsync), to show what
// does not wait for it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "storage/file_system.h"

namespace rokka::testutil {

class FaultyFileSystem final : public storage::FileSystem {
  template <typename T>
  using Result = storage::Result<T>;

 public:
  std::atomic<bool> fail_sync{false};
  std::atomic<bool> fail_write{false};
  std::atomic<bool> fail_create{false};  // opening a file that does not exist yet fails (disk full)
  std::atomic<bool> fail_allocate{false};  // reserving blocks (posix_fallocate) fails: ENOSPC
  std::atomic<bool> fail_rename{false};    // rename() fails (a file written tmp + rename stays the old one)
  std::atomic<int> syncs{0};

  void hold_syncs() {
    std::lock_guard lock(gate_mu_);
    holding_ = true;
  }
  void release_syncs() {
    {
      std::lock_guard lock(gate_mu_);
      holding_ = false;
    }
    gate_cv_.notify_all();
  }
  // Whether some File::sync() is blocked by hold_syncs() within `limit`.
  bool wait_for_held_sync(std::chrono::seconds limit) {
    std::unique_lock lock(gate_mu_);
    return gate_cv_.wait_for(lock, limit, [this] { return held_ > 0; });
  }

  Result<std::unique_ptr<storage::File>> open(const std::filesystem::path& path, bool create) override {
    if (create && fail_create && !real().exists(path))
      return storage::Status::io_error("injected ENOSPC creating " + path.string());
    auto f = real().open(path, create);
    if (!f.ok()) return f.status();
    return std::unique_ptr<storage::File>(std::make_unique<FaultyFile>(*this, std::move(*f)));
  }
  storage::Status remove(const std::filesystem::path& p) override { return real().remove(p); }
  storage::Status rename(const std::filesystem::path& a, const std::filesystem::path& b) override {
    if (fail_rename) return storage::Status::io_error("injected rename failure");
    return real().rename(a, b);
  }
  storage::Status sync_dir(const std::filesystem::path& d) override {
    if (fail_sync) return storage::Status::io_error("injected fsync(dir) failure");
    return real().sync_dir(d);
  }
  storage::Status create_dirs(const std::filesystem::path& d) override { return real().create_dirs(d); }
  bool exists(const std::filesystem::path& p) override { return real().exists(p); }
  Result<std::vector<std::string>> list(const std::filesystem::path& d) override { return real().list(d); }

 private:
  void pass_gate() {
    std::unique_lock lock(gate_mu_);
    if (!holding_) return;
    ++held_;
    gate_cv_.notify_all();
    gate_cv_.wait(lock, [this] { return !holding_; });
    --held_;
  }

  std::mutex gate_mu_;
  std::condition_variable gate_cv_;
  bool holding_ = false;
  int held_ = 0;

  class FaultyFile final : public storage::File {
   public:
    FaultyFile(FaultyFileSystem& fs, std::unique_ptr<storage::File> f) : fs_(fs), f_(std::move(f)) {}
    storage::Status write_at(int64_t o, std::span<const std::byte> d) override {
      if (fs_.fail_write) return storage::Status::io_error("injected write failure");
      return f_->write_at(o, d);
    }
    storage::Status read_at(int64_t o, std::span<std::byte> out) override { return f_->read_at(o, out); }
    storage::Status sync() override {
      ++fs_.syncs;
      fs_.pass_gate();
      if (fs_.fail_sync) return storage::Status::io_error("injected fdatasync failure");
      return f_->sync();
    }
    storage::Status truncate(int64_t s) override { return f_->truncate(s); }
    storage::Status punch_hole(int64_t o, int64_t l) override { return f_->punch_hole(o, l); }
    storage::Status allocate(int64_t o, int64_t l) override {
      if (fs_.fail_allocate) return storage::Status::io_error("injected ENOSPC on allocate");
      return f_->allocate(o, l);
    }
    storage::Status drop_cache(int64_t o, int64_t l) override { return f_->drop_cache(o, l); }
    Result<int64_t> size() override { return f_->size(); }
    Result<std::shared_ptr<storage::Mapping>> map(int64_t s, bool w, bool r) override { return f_->map(s, w, r); }

   private:
    FaultyFileSystem& fs_;
    std::unique_ptr<storage::File> f_;
  };
};

}  // namespace rokka::testutil
