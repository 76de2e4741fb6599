// ProducerIds: allocates idempotent-producer ids that are never reused, across
// restarts and crashes. Ids are reserved in durable blocks ("p/next_block" in the
// MetaStore; in cluster mode, blocks from etcd that no other broker gets), so most
// allocations cost no write.
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

  // Calls `done` with a fresh id (maybe inline, maybe on the thread that reserved its block).
  void allocate(std::function<void(storage::Result<int64_t>)> done);

  // A durable reservation of ids, answered with the block [first, end).
  using Block = std::pair<int64_t, int64_t>;
  using BlockSource = std::function<void(std::function<void(storage::Result<Block>)>)>;
  // Cluster mode: blocks come from `source` instead of this broker's MetaStore. Set before serving.
  void set_block_source(BlockSource source) { source_ = std::move(source); }

 private:
  void reserve_block();
  void reserve_local(std::function<void(storage::Result<Block>)> done);

  storage::MetaStore& meta_;
  std::mutex mu_;
  int64_t next_ = 0;       // GUARDED_BY(mu_)
  int64_t block_end_ = 0;  // GUARDED_BY(mu_): ids below this are reserved durably
  bool reserving_ = false;
  int64_t local_end_ = 0;  // the MetaStore's block end (touched by one reservation at a time)
  BlockSource source_;
  std::deque<std::function<void(storage::Result<int64_t>)>> waiting_;
};

}  // namespace rokka::broker
