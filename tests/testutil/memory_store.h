// MemoryStore: an in-memory storage::Store for broker unit tests. It keeps each
// partition's batches in RAM and runs every callback on its own worker thread, as
// the real store runs them on its writer thread. No idempotence, no retention.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "storage/store.h"

namespace rokka::testutil {

class MemoryStore final : public storage::Store, public storage::MetaStore {
 public:
  MemoryStore() : worker_([this] { run(); }) {}
  ~MemoryStore() override { (void)close(); }

  void create_partitions(uint32_t count,
                         std::function<void(storage::Result<std::vector<storage::PartitionId>>)> done) override {
    later([this, count, done] {
      std::vector<storage::PartitionId> ids;
      {
        std::lock_guard lock(mu_);
        for (uint32_t i = 0; i < count; ++i) {
          ids.push_back(next_id_);
          partitions_[next_id_++];
        }
      }
      done(std::move(ids));
    });
  }
  void delete_partition(storage::PartitionId p, storage::StatusCallback done) override {
    later([this, p, done] {
      std::lock_guard lock(mu_);
      partitions_.erase(p);
      done({});
    });
  }
  void append(std::vector<storage::AppendRequest> requests, storage::AppendCallback done) override {
    later([this, requests = std::move(requests), done] {
      std::vector<storage::Result<storage::AppendInfo>> out;
      std::vector<storage::PartitionId> grown;
      {
        std::lock_guard lock(mu_);
        for (const auto& r : requests) {
          auto it = partitions_.find(r.partition);
          if (it == partitions_.end()) {
            out.push_back(storage::Status::not_found("no partition"));
            continue;
          }
          auto& part = it->second;
          auto batch = std::make_shared<std::vector<std::byte>>(r.batch.begin(), r.batch.end());
          const int64_t base = part.next;
          for (int i = 0; i < 8; ++i) (*batch)[i] = static_cast<std::byte>(static_cast<uint64_t>(base) >> (56 - 8 * i));
          const uint32_t delta = read_be32(batch->data() + 23);
          part.batches.push_back({base, batch});
          part.next = base + delta + 1;
          out.push_back(storage::AppendInfo{base, -1, part.start});
          grown.push_back(r.partition);
        }
      }
      if (listener_ && !grown.empty()) listener_(grown);
      done(std::move(out));
    });
  }
  storage::Result<storage::ReadResult> read(storage::PartitionId p, int64_t offset, int64_t max_bytes) const override {
    std::lock_guard lock(mu_);
    auto it = partitions_.find(p);
    if (it == partitions_.end()) return storage::Status::not_found("no partition");
    const auto& part = it->second;
    if (offset < part.start || offset > part.next) return storage::Status::out_of_range("offset");
    storage::ReadResult rr;
    rr.offsets = {part.start, part.next};
    int64_t bytes = 0;
    for (const auto& b : part.batches) {
      const int64_t last = b.base + read_be32(b.bytes->data() + 23);
      if (last < offset) continue;
      if (!rr.batches.empty() && bytes + static_cast<int64_t>(b.bytes->size()) > max_bytes) break;
      rr.batches.push_back({*b.bytes, b.bytes});
      bytes += static_cast<int64_t>(b.bytes->size());
    }
    return rr;
  }
  storage::Result<storage::PartitionOffsets> offsets(storage::PartitionId p) const override {
    std::lock_guard lock(mu_);
    auto it = partitions_.find(p);
    if (it == partitions_.end()) return storage::Status::not_found("no partition");
    return storage::PartitionOffsets{it->second.start, it->second.next};
  }
  storage::Result<storage::TimestampOffset> lookup_timestamp(storage::PartitionId p, int64_t ts) const override {
    std::lock_guard lock(mu_);
    auto it = partitions_.find(p);
    if (it == partitions_.end()) return storage::Status::not_found("no partition");
    for (const auto& b : it->second.batches) {
      const int64_t max_ts = static_cast<int64_t>(read_be64(b.bytes->data() + 35));
      if (max_ts >= ts) return storage::TimestampOffset{max_ts, b.base};
    }
    return storage::TimestampOffset{};
  }
  storage::Result<storage::TimestampOffset> max_timestamp(storage::PartitionId p) const override {
    std::lock_guard lock(mu_);
    auto it = partitions_.find(p);
    if (it == partitions_.end()) return storage::Status::not_found("no partition");
    storage::TimestampOffset best;
    for (const auto& b : it->second.batches) {
      const int64_t max_ts = static_cast<int64_t>(read_be64(b.bytes->data() + 35));
      if (best.offset < 0 || max_ts > best.timestamp) best = {max_ts, b.base + read_be32(b.bytes->data() + 23)};
    }
    return best;
  }
  void delete_records(storage::PartitionId p, int64_t offset, std::function<void(storage::Result<int64_t>)> done) override {
    later([this, p, offset, done] {
      std::lock_guard lock(mu_);
      auto it = partitions_.find(p);
      if (it == partitions_.end()) return done(storage::Status::not_found("no partition"));
      if (offset > it->second.next) return done(storage::Status::out_of_range("beyond end"));
      it->second.start = std::max(it->second.start, offset);
      done(it->second.start);
    });
  }
  storage::MetaStore& meta() override { return *this; }

  // Test hook: scans of a prefix starting with `prefix` wait until release_scans() --
  // e.g. "g/" keeps the group coordinator loading. Release before the broker stops.
  void hold_scans(std::string prefix) {
    std::lock_guard hold(hold_mu_);
    held_prefix_ = std::move(prefix);
  }
  void release_scans() {
    {
      std::lock_guard hold(hold_mu_);
      held_prefix_.reset();
    }
    hold_cv_.notify_all();
  }
  void set_append_listener(std::function<void(std::span<const storage::PartitionId>)> l) override {
    listener_ = std::move(l);
  }
  storage::Status close() override {
    {
      std::lock_guard lock(qmu_);
      if (stop_) return {};
      stop_ = true;
    }
    qcv_.notify_all();
    if (worker_.joinable()) worker_.join();
    return {};
  }

  // MetaStore
  void write(std::vector<Mutation> batch, storage::StatusCallback done) override {
    later([this, batch = std::move(batch), done] {
      {
        std::lock_guard lock(mu_);
        for (const auto& m : batch) {
          if (m.erase) {
            kv_.erase(m.key);
          } else {
            kv_[m.key] = m.value;
          }
        }
      }
      done({});
    });
  }
  std::vector<std::pair<std::string, std::string>> scan(std::string_view prefix) const override {
    {
      std::unique_lock hold(hold_mu_);
      hold_cv_.wait(hold, [&] { return !held_prefix_ || !prefix.starts_with(*held_prefix_); });
    }
    std::lock_guard lock(mu_);
    std::vector<std::pair<std::string, std::string>> out;
    for (auto it = kv_.lower_bound(std::string(prefix)); it != kv_.end() && it->first.starts_with(prefix); ++it)
      out.emplace_back(it->first, it->second);
    return out;
  }

 private:
  struct Batch {
    int64_t base;
    std::shared_ptr<std::vector<std::byte>> bytes;
  };
  struct Partition {
    int64_t start = 0;
    int64_t next = 0;
    std::vector<Batch> batches;
  };
  static uint32_t read_be32(const std::byte* p) {
    return std::to_integer<uint32_t>(p[0]) << 24 | std::to_integer<uint32_t>(p[1]) << 16 |
           std::to_integer<uint32_t>(p[2]) << 8 | std::to_integer<uint32_t>(p[3]);
  }
  static uint64_t read_be64(const std::byte* p) { return uint64_t{read_be32(p)} << 32 | read_be32(p + 4); }

  void later(std::function<void()> fn) {
    {
      std::lock_guard lock(qmu_);
      queue_.push_back(std::move(fn));
    }
    qcv_.notify_one();
  }
  void run() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock lock(qmu_);
        qcv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        fn = std::move(queue_.front());
        queue_.pop_front();
      }
      fn();
    }
  }

  mutable std::mutex mu_;
  std::map<storage::PartitionId, Partition> partitions_;
  std::map<std::string, std::string> kv_;
  storage::PartitionId next_id_ = 0;
  std::function<void(std::span<const storage::PartitionId>)> listener_;

  mutable std::mutex hold_mu_;
  mutable std::condition_variable hold_cv_;
  std::optional<std::string> held_prefix_;

  std::mutex qmu_;
  std::condition_variable qcv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace rokka::testutil
