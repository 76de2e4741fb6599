// ProducerIds: allocates idempotent-producer ids that are never reused, across
// restarts and crashes. Ids are reserved in durable blocks ("p/next_block" in the
// MetaStore), so most allocations cost no write.
#pragma once

#include <deque>
#include <functional>
#include <mutex>

#include "storage/meta_store.h"

namespace rokka::broker {

class ProducerIds {
 public:
  static constexpr int64_t kBlockSize = 1000;

  explicit ProducerIds(storage::MetaStore& meta) : meta_(meta) {}
  storage::Status load();

  // Calls `done` with a fresh id (maybe inline, maybe on the storage writer thread).
  void allocate(std::function<void(storage::Result<int64_t>)> done);

 private:
  void reserve_block(int64_t end);

  storage::MetaStore& meta_;
  std::mutex mu_;
  int64_t next_ = 0;       // GUARDED_BY(mu_)
  int64_t block_end_ = 0;  // GUARDED_BY(mu_): ids below this are reserved durably
  bool reserving_ = false;
  std::deque<std::function<void(storage::Result<int64_t>)>> waiting_;
};

}  // namespace rokka::broker
