// StoreModel: what a crash test appended (and wrote to the MetaStore), in order, and
// which of it was acknowledged; check() compares a recovered store against it.
//
// The contract checked after any crash or power cut, per partition: the batches
// stored are exactly what was stored before this round followed by a prefix of this
// round's submissions, byte for byte (base offset set), at dense offsets from 0, each
// with a valid CRC; when `acked_must_survive`, that prefix covers every acknowledged
// append. The MetaStore keys written this round likewise form a prefix in write order.
// check() then takes the recovered state as the baseline for the next round.
//
// Thread-safety: submissions come from the test thread; acknowledgements arrive on
// the store's writer thread (the callbacks here take a mutex).
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/format.h"
#include "storage/store.h"

namespace rokka::storage::test {

class StoreModel {
 public:
  using Bytes = std::vector<std::byte>;

  // A partition whose creation was acknowledged (it must exist from now on).
  void add_partition(PartitionId pid) {
    std::lock_guard lock(mu_);
    partitions_[pid];
  }
  std::vector<PartitionId> partitions() const {
    std::lock_guard lock(mu_);
    std::vector<PartitionId> out;
    for (const auto& [pid, p] : partitions_) out.push_back(pid);
    return out;
  }

  // Submits `batches` to the partitions `pids` in one append() call and records them;
  // the returned future completes when the store answered.
  std::shared_ptr<std::promise<void>> append(Store& store, const std::vector<PartitionId>& pids,
                                             std::vector<Bytes> batches) {
    std::vector<AppendRequest> reqs;
    std::vector<std::pair<PartitionId, size_t>> slots;
    {
      std::lock_guard lock(mu_);
      for (size_t i = 0; i < pids.size(); ++i) {
        auto& p = partitions_.at(pids[i]);
        p.pending.push_back(std::move(batches[i]));
        p.acked.push_back(false);
        slots.emplace_back(pids[i], p.pending.size() - 1);
        reqs.push_back(AppendRequest{pids[i], p.pending.back()});  // deque: the bytes never move
      }
    }
    auto done = std::make_shared<std::promise<void>>();
    store.append(std::move(reqs), [this, slots, done](std::vector<Result<AppendInfo>> results) {
      {
        std::lock_guard lock(mu_);
        for (size_t i = 0; i < results.size(); ++i)
          if (results[i].ok()) partitions_.at(slots[i].first).acked[slots[i].second] = true;
      }
      done->set_value();
    });
    return done;
  }

  // Writes one MetaStore key (a fresh one each time) and records it.
  void meta_write(Store& store, std::string key, std::string value) {
    size_t slot;
    {
      std::lock_guard lock(mu_);
      meta_pending_.push_back({key, value, false});
      slot = meta_pending_.size() - 1;
    }
    store.meta().write({{std::move(key), std::move(value), false}}, [this, slot](Status s) {
      std::lock_guard lock(mu_);
      if (s.ok()) meta_pending_[slot].acked = true;
    });
  }

  // See the header comment. Call once nothing can still complete (store destroyed).
  void check(Store& store, bool acked_must_survive) {
    std::lock_guard lock(mu_);
    for (auto& [pid, p] : partitions_) {
      SCOPED_TRACE("partition " + std::to_string(pid));
      check_partition(store, pid, p, acked_must_survive);
    }
    check_meta(store, acked_must_survive);
  }

  // Stored bytes at every offset of `pid`, read back batch by batch (CRC verified).
  static std::vector<Bytes> read_all(const Store& store, PartitionId pid) {
    namespace fb = format::batch;
    std::vector<Bytes> out;
    auto offsets = store.offsets(pid);
    EXPECT_TRUE(offsets.ok()) << offsets.status().to_string();
    if (!offsets.ok()) return out;
    EXPECT_EQ(offsets->log_start_offset, 0);
    int64_t next = 0;
    while (next < offsets->next_offset) {
      auto r = store.read(pid, next, 256 << 10);
      EXPECT_TRUE(r.ok() && !r->batches.empty()) << "offset " << next << " unreadable below next_offset "
                                                 << offsets->next_offset;
      if (!r.ok() || r->batches.empty()) return out;
      for (const LogSlice& s : r->batches) {
        EXPECT_EQ(fb::i64(s.bytes, fb::kBaseOffset), next) << "offsets not dense";
        EXPECT_TRUE(batch_crc_ok(s.bytes)) << "corrupt batch served at offset " << next;
        if (fb::i64(s.bytes, fb::kBaseOffset) != next) return out;
        out.emplace_back(s.bytes.begin(), s.bytes.end());
        next += int64_t{fb::i32(s.bytes, fb::kLastOffsetDelta)} + 1;
      }
    }
    return out;
  }

 private:
  struct PartitionState {
    std::vector<Bytes> stored;  // verified content (base offsets set)
    std::deque<Bytes> pending;  // submitted this round, in order
    std::deque<bool> acked;
  };
  struct MetaWrite {
    std::string key, value;
    bool acked;
  };

  static Bytes with_base(Bytes b, int64_t base) {
    format::put_be(b.data() + format::batch::kBaseOffset, static_cast<uint64_t>(base), 8);
    return b;
  }

  void check_partition(const Store& store, PartitionId pid, PartitionState& p, bool acked_must_survive) {
    namespace fb = format::batch;
    const std::vector<Bytes> now = read_all(store, pid);
    ASSERT_GE(now.size(), p.stored.size()) << "batches stored before this round were lost";
    for (size_t i = 0; i < p.stored.size(); ++i) ASSERT_EQ(now[i], p.stored[i]) << "earlier batch " << i << " changed";
    const size_t kept = now.size() - p.stored.size();
    ASSERT_LE(kept, p.pending.size()) << "more batches than were appended";
    for (size_t j = 0; j < kept; ++j) {
      const Bytes& got = now[p.stored.size() + j];
      ASSERT_EQ(got, with_base(p.pending[j], fb::i64(got, fb::kBaseOffset))) << "batch " << j << " of the round";
    }
    if (acked_must_survive) {
      for (size_t j = kept; j < p.pending.size(); ++j)
        ASSERT_FALSE(p.acked[j]) << "acknowledged batch " << j << " of the round was lost (" << kept << " kept of "
                                 << p.pending.size() << ")";
    }
    p.stored = now;
    p.pending.clear();
    p.acked.clear();
  }

  void check_meta(Store& store, bool acked_must_survive) {
    std::map<std::string, std::string> now;
    for (auto& [k, v] : store.meta().scan("o/")) now[k] = v;
    size_t kept = 0;
    while (kept < meta_pending_.size() && now.count(meta_pending_[kept].key) &&
           now[meta_pending_[kept].key] == meta_pending_[kept].value)
      ++kept;
    for (size_t j = kept; j < meta_pending_.size(); ++j) {
      ASSERT_EQ(now.count(meta_pending_[j].key), 0u) << "meta write " << j << " kept after a lost one";
      if (acked_must_survive) {
        ASSERT_FALSE(meta_pending_[j].acked) << "acknowledged meta write " << j << " lost";
      }
    }
    for (size_t j = 0; j < kept; ++j) meta_stored_[meta_pending_[j].key] = meta_pending_[j].value;
    for (const auto& [k, v] : meta_stored_) ASSERT_EQ(now[k], v) << "meta key " << k << " lost";
    meta_pending_.clear();
  }

  mutable std::mutex mu_;
  std::map<PartitionId, PartitionState> partitions_;
  std::map<std::string, std::string> meta_stored_;
  std::deque<MetaWrite> meta_pending_;
};

}  // namespace rokka::storage::test
