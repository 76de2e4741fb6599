// MemReplicatedLog: an in-memory ReplicatedLog for the replication stream's tests. Entries are
// opaque blobs behind a 12-byte header {u32 total length, i32 epoch, u32 CRC-32C of the blob},
// so read_log can return whole entries and a follower can check what it was sent. The epochs
// are those of the entries (a change of epoch between two entries starts one), plus epochs
// begun explicitly with no entry yet (a leader that was just elected). append_replicated's
// callback runs on a worker thread, as the store's writer thread would run it.
#pragma once

#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster/replicated_log.h"
#include "storage/crc32c.h"

namespace rokka::testutil {

class MemReplicatedLog : public cluster::ReplicatedLog {
 public:
  static constexpr size_t kEntryHeader = 12;

  MemReplicatedLog() : worker_([this] { work(); }) {}
  ~MemReplicatedLog() override {
    {
      std::lock_guard lock(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  // ---- the test's side ----
  // Leader: appends one entry of `epoch` holding `blob`; returns its end.
  int64_t append(int32_t epoch, std::span<const std::byte> blob) {
    std::lock_guard lock(mu_);
    const auto entry = make_entry(epoch, blob);
    note_epoch(epoch, static_cast<int64_t>(bytes_.size()));
    bytes_.insert(bytes_.end(), entry.begin(), entry.end());
    if (!hold_durable_) durable_ = static_cast<int64_t>(bytes_.size());
    return static_cast<int64_t>(bytes_.size());
  }
  // Starts `epoch` at the current end with no entry yet.
  void begin_epoch(int32_t epoch) {
    std::lock_guard lock(mu_);
    note_epoch(epoch, static_cast<int64_t>(bytes_.size()));
  }
  // While held, durable_end stays where it is; released, it catches up with log_end.
  void hold_durable(bool hold) {
    std::lock_guard lock(mu_);
    hold_durable_ = hold;
    if (!hold) durable_ = static_cast<int64_t>(bytes_.size());
  }
  std::vector<std::byte> contents() const {
    std::lock_guard lock(mu_);
    return bytes_;
  }
  int64_t confirmed() const {
    std::lock_guard lock(mu_);
    return confirmed_;
  }
  std::vector<int64_t> truncations() const {
    std::lock_guard lock(mu_);
    return truncations_;
  }
  size_t entry_count() const {
    std::lock_guard lock(mu_);
    size_t n = 0;
    for (size_t at = 0; at < bytes_.size(); at += length_at(at)) ++n;
    return n;
  }

  static std::vector<std::byte> make_entry(int32_t epoch, std::span<const std::byte> blob) {
    std::vector<std::byte> e(kEntryHeader + blob.size());
    const uint32_t len = static_cast<uint32_t>(e.size());
    const uint32_t crc = storage::crc32c(blob);
    std::memcpy(e.data(), &len, 4);
    std::memcpy(e.data() + 4, &epoch, 4);
    std::memcpy(e.data() + 8, &crc, 4);
    if (!blob.empty()) std::memcpy(e.data() + kEntryHeader, blob.data(), blob.size());
    return e;
  }

  // ---- ReplicatedLog ----
  int64_t log_begin() const override { return 0; }
  int64_t log_end() const override {
    std::lock_guard lock(mu_);
    return static_cast<int64_t>(bytes_.size());
  }
  int64_t durable_end() const override {
    std::lock_guard lock(mu_);
    return durable_;
  }
  std::vector<cluster::EpochStart> epochs() const override {
    std::lock_guard lock(mu_);
    return epochs_;
  }
  storage::Result<storage::LogSlice> read_log(int64_t from, int64_t max_bytes) const override {
    std::lock_guard lock(mu_);
    const auto end = static_cast<int64_t>(bytes_.size());
    if (from < 0 || from > end) return storage::Status::out_of_range("read_log at " + std::to_string(from));
    size_t at = static_cast<size_t>(from);
    size_t stop = at;
    while (stop < bytes_.size()) {
      const size_t len = length_at(stop);
      if (stop > at && static_cast<int64_t>(stop + len - at) > max_bytes) break;
      stop += len;
    }
    auto copy = std::make_shared<std::vector<std::byte>>(bytes_.begin() + static_cast<std::ptrdiff_t>(at),
                                                         bytes_.begin() + static_cast<std::ptrdiff_t>(stop));
    return storage::LogSlice{.bytes = std::span<const std::byte>(*copy), .hold = copy};
  }
  void append_replicated(int64_t from, std::span<const std::byte> bytes, storage::StatusCallback done) override {
    storage::Status result;
    {
      std::lock_guard lock(mu_);
      if (from != static_cast<int64_t>(bytes_.size())) {
        result = storage::Status::conflict("append at " + std::to_string(from) + ", log ends at " +
                                           std::to_string(bytes_.size()));
      } else {
        // Every entry whole and intact, as the store checks each entry's CRC before writing.
        size_t at = 0;
        while (at < bytes.size() && result.ok()) {
          if (bytes.size() - at < kEntryHeader) {
            result = storage::Status::corruption("partial entry header");
            break;
          }
          uint32_t len = 0;
          int32_t epoch = 0;
          uint32_t crc = 0;
          std::memcpy(&len, bytes.data() + at, 4);
          std::memcpy(&epoch, bytes.data() + at + 4, 4);
          std::memcpy(&crc, bytes.data() + at + 8, 4);
          if (len < kEntryHeader || len > bytes.size() - at) {
            result = storage::Status::corruption("partial entry");
          } else if (storage::crc32c(bytes.data() + at + kEntryHeader, len - kEntryHeader) != crc) {
            result = storage::Status::corruption("entry CRC");
          } else {
            at += len;
          }
        }
        if (result.ok()) {
          at = 0;
          while (at < bytes.size()) {
            int32_t epoch = 0;
            uint32_t len = 0;
            std::memcpy(&len, bytes.data() + at, 4);
            std::memcpy(&epoch, bytes.data() + at + 4, 4);
            note_epoch(epoch, static_cast<int64_t>(bytes_.size()));
            bytes_.insert(bytes_.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at),
                          bytes.begin() + static_cast<std::ptrdiff_t>(at + len));
            at += len;
          }
          ++appends_;
          if (!hold_durable_) durable_ = static_cast<int64_t>(bytes_.size());
        }
      }
    }
    post(std::move(done), std::move(result));
  }
  void truncate_to(int64_t position, storage::StatusCallback done) override {
    {
      std::lock_guard lock(mu_);
      bytes_.resize(static_cast<size_t>(std::min<int64_t>(position, static_cast<int64_t>(bytes_.size()))));
      std::erase_if(epochs_, [&](const cluster::EpochStart& e) { return e.start >= position; });
      durable_ = std::min(durable_, position);
      truncations_.push_back(position);
    }
    post(std::move(done), storage::Status());
  }
  void set_confirmed(int64_t position) override {
    std::lock_guard lock(mu_);
    confirmed_ = std::max(confirmed_, position);
  }

 private:
  size_t length_at(size_t at) const {
    uint32_t len = 0;
    std::memcpy(&len, bytes_.data() + at, 4);
    return len;
  }
  void note_epoch(int32_t epoch, int64_t at) {
    if (epochs_.empty() || epochs_.back().epoch < epoch) epochs_.push_back({epoch, at});
  }
  void post(storage::StatusCallback done, storage::Status s) {
    {
      std::lock_guard lock(mu_);
      jobs_.emplace_back([done = std::move(done), s = std::move(s)] { done(s); });
    }
    cv_.notify_all();
  }
  void work() {
    std::unique_lock lock(mu_);
    while (true) {
      cv_.wait(lock, [&] { return quit_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
  }

  mutable std::mutex mu_;
  std::vector<std::byte> bytes_;
  std::vector<cluster::EpochStart> epochs_;
  int64_t durable_ = 0;
  int64_t confirmed_ = 0;
  bool hold_durable_ = false;
  uint64_t appends_ = 0;
  std::vector<int64_t> truncations_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool quit_ = false;
  std::thread worker_;
};

}  // namespace rokka::testutil
