// Synchronous helpers over the callback-based Store API for storage tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "storage/format.h"
#include "storage/store.h"
#include "tests/testutil/file_bytes.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::storage::test {

inline StoreOptions small_options(const std::filesystem::path& dir) {
  StoreOptions o;
  o.dir = dir;
  o.segment_bytes = 64 * 1024;
  o.max_append_bytes = 32 * 1024;
  o.flush_mode = FlushMode::kSync;
  o.index_chunk_units = 4;        // chunk boundaries every 4 batches
  o.index_first_chunk_units = 2;  // after a partition's first 2 (2 first chunks per chunk)
  o.index_file_chunks = 16;
  return o;
}

inline std::unique_ptr<Store> open_store(const StoreOptions& o) {
  auto s = Store::open(o);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(*s) : nullptr;
}

inline std::vector<PartitionId> create(Store& s, uint32_t n) {
  std::promise<Result<std::vector<PartitionId>>> p;
  s.create_partitions(n, [&](Result<std::vector<PartitionId>> r) { p.set_value(std::move(r)); });
  auto r = p.get_future().get();
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? *r : std::vector<PartitionId>{};
}

inline std::vector<Result<AppendInfo>> append_all(Store& s, const std::vector<AppendRequest>& reqs) {
  std::promise<std::vector<Result<AppendInfo>>> p;
  s.append(reqs, [&](std::vector<Result<AppendInfo>> r) { p.set_value(std::move(r)); });
  return p.get_future().get();
}

inline Result<AppendInfo> append(Store& s, PartitionId pid, const std::vector<std::byte>& batch,
                                 TimestampType tt = TimestampType::kCreateTime) {
  return append_all(s, {AppendRequest{pid, batch, tt}})[0];
}

inline Status meta_write(Store& s, std::vector<MetaStore::Mutation> batch) {
  std::promise<Status> p;
  s.meta().write(std::move(batch), [&](Status st) { p.set_value(st); });
  return p.get_future().get();
}

inline Result<int64_t> delete_records(Store& s, PartitionId pid, int64_t offset) {
  std::promise<Result<int64_t>> p;
  s.delete_records(pid, offset, [&](Result<int64_t> r) { p.set_value(std::move(r)); });
  return p.get_future().get();
}

inline Status delete_partition(Store& s, PartitionId pid) {
  std::promise<Status> p;
  s.delete_partition(pid, [&](Status st) { p.set_value(st); });
  return p.get_future().get();
}

// The stored bytes of the batch holding `offset` (empty if none).
inline std::vector<std::byte> read_one(const Store& s, PartitionId pid, int64_t offset) {
  auto r = s.read(pid, offset, 1);
  if (!r.ok() || r->batches.empty()) return {};
  auto b = r->batches[0].bytes;
  return {b.begin(), b.end()};
}

// A batch as stored: the input with its BaseOffset set.
inline std::vector<std::byte> with_base(std::vector<std::byte> b, int64_t base) {
  format::put_be(b.data(), static_cast<uint64_t>(base), 8);
  return b;
}

inline size_t count_files(const std::filesystem::path& dir) {
  size_t n = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) ++n;
  return n;
}

// The value a callback-taking call hands its callback, waited for (60 s at most: then
// the test fails and aborts, since the callback would write into a dead promise).
template <typename T, typename F>
T wait_for(F&& start) {
  std::promise<T> p;
  start([&](T v) { p.set_value(std::move(v)); });
  auto f = p.get_future();
  if (f.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    ADD_FAILURE() << "no answer within 60 s";
    std::abort();
  }
  return f.get();
}

inline Status set_role(Store& s, Role role, int32_t epoch) {
  return wait_for<Status>([&](auto cb) { s.set_role(role, epoch, cb); });
}

// Every file directly in `dir` (none if it does not exist), by name: what replicas compare.
inline std::map<std::string, std::vector<std::byte>> files_in(const std::filesystem::path& dir) {
  std::map<std::string, std::vector<std::byte>> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    out[e.path().filename().string()] = testutil::file_bytes(e.path());
  return out;
}

// The names of the files directly in `dir` (none if it does not exist).
inline std::vector<std::string> file_names_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Whether `a` and `b` (e.g. two stores' index/ directories) hold the same files byte for byte;
// cheap on the sparse index files (testutil::same_file_bytes), so fit to poll.
inline bool same_files(const std::filesystem::path& a, const std::filesystem::path& b) {
  const auto names = file_names_in(a);
  if (names != file_names_in(b)) return false;
  return std::all_of(names.begin(), names.end(),
                     [&](const std::string& n) { return testutil::same_file_bytes(a / n, b / n); });
}

// Replicas hold the same files in `a` and `b` (e.g. two stores' commitlog/ directories), byte for
// byte: the same names, none missing, none differing. `what` names them in failures ("segment").
inline void expect_same_files(const std::filesystem::path& a, const std::filesystem::path& b, std::string_view what) {
  const auto na = file_names_in(a), nb = file_names_in(b);
  EXPECT_EQ(na.size(), nb.size()) << what << " files: " << a << " vs " << b;
  for (const auto& name : na) {
    if (!std::binary_search(nb.begin(), nb.end(), name)) {
      ADD_FAILURE() << what << " " << name << " missing in " << b;
      continue;
    }
    EXPECT_TRUE(testutil::same_file_bytes(a / name, b / name)) << what << " " << name << " differs";
  }
}

// A partition as a reader sees it: its offsets, and every batch from its start offset up to
// `until` (its next offset, or its high watermark) through read(), with the aborted
// transactions read() reports.
struct PartitionView {
  StatusCode code = StatusCode::kOk;
  PartitionOffsets offsets;
  std::vector<std::vector<std::byte>> batches;
  std::vector<AbortedTxn> aborted;
};
enum class ReadUntil { kNextOffset, kHighWatermark };
inline PartitionView view(const Store& s, PartitionId pid, ReadUntil until = ReadUntil::kNextOffset) {
  namespace fb = format::batch;
  PartitionView v;
  auto o = s.offsets(pid);
  if (!o.ok()) {
    v.code = o.status().code();
    return v;
  }
  v.offsets = *o;
  const int64_t end = until == ReadUntil::kNextOffset ? o->next_offset : o->high_watermark;
  for (int64_t at = o->log_start_offset; at < end;) {
    auto r = s.read(pid, at, 1 << 20);
    if (!r.ok()) {
      v.code = r.status().code();
      break;
    }
    if (r->batches.empty()) break;
    for (const auto& b : r->batches) v.batches.emplace_back(b.bytes.begin(), b.bytes.end());
    v.aborted.insert(v.aborted.end(), r->aborted.begin(), r->aborted.end());
    const auto& last = r->batches.back().bytes;
    at = fb::i64(last, fb::kBaseOffset) + fb::i32(last, fb::kLastOffsetDelta) + 1;
  }
  return v;
}

// A leader's random workload over many partitions, through the Store API: plain, idempotent and
// transactional batches (with markers), committed offsets through MetaStore; maintenance() adds a
// compaction rewrite, a delete_records and a deleted partition. The replication tests of storage/
// and cluster/ both drive it.
class Workload {
 public:
  Workload(Store& s, uint32_t seed) : s_(&s), rng_(seed) {}

  void create_partitions(uint32_t n) {
    for (PartitionId id : create(*s_, n)) {
      live_.push_back(id);
      partitions_ = std::max(partitions_, id + 1);
    }
  }
  PartitionId partitions() const { return partitions_; }
  uint64_t idempotent() const { return idempotent_; }

  void step() {
    const PartitionId pid = live_[rng_() % live_.size()];
    const int kind = static_cast<int>(rng_() % 10);
    const int32_t records = 1 + static_cast<int32_t>(rng_() % 4);
    const int32_t value_bytes = 8 + static_cast<int32_t>(rng_() % 3000);
    if (kind < 5) {  // plain
      auto r = append(*s_, pid, testutil::make_batch({.records = records, .value_bytes = value_bytes}));
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      bases_[pid].push_back(r->base_offset);
    } else if (kind < 7) {  // idempotent
      int32_t& seq = seq_[{pid, 1000 + pid}];
      auto r = append(*s_, pid,
                                     testutil::make_batch({.records = records, .value_bytes = value_bytes,
                                                 .producer_id = 1000 + pid, .producer_epoch = 0, .base_sequence = seq}));
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      seq += records;
      ++idempotent_;
    } else if (kind < 9) {  // transactional, then sometimes its marker
      const int64_t producer = 5000 + pid;
      int32_t& seq = seq_[{pid, producer}];
      auto r = append(*s_, pid,
                                     testutil::make_batch({.records = records, .value_bytes = value_bytes, .producer_id = producer,
                                                 .producer_epoch = 0, .base_sequence = seq,
                                                 .attributes = format::batch::kTransactionalBit}));
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      seq += records;
      if (rng_() % 2 == 0) {
        ASSERT_TRUE(append(*s_, pid, testutil::make_control_batch(producer, 0, rng_() % 2 == 0)).ok());
      }
    } else {  // committed offsets, as the group coordinator writes them through MetaStore
      ASSERT_TRUE(meta_write(*s_, {{"o/g" + std::to_string(rng_() % 5) + "/" + std::to_string(pid),
                                                   std::to_string(rng_()), false}})
                      .ok());
    }
  }

  // A compaction rewrite of the first four plain batches of a partition that has them (keeping
  // the first and the third, with new values), a delete_records, a deleted partition.
  void maintenance(bool require_rewrite = false) {
    bool rewrote = false;
    for (auto& [pid, bases] : bases_) {
      if (bases.size() < 4 || std::find(live_.begin(), live_.end(), pid) == live_.end()) continue;
      auto keep = [&](int64_t base) {
        return with_base(testutil::make_batch({.records = 1, .value_bytes = 40, .fill = 0x11}), base);
      };
      const std::vector<std::vector<std::byte>> batches = {keep(bases[0]), keep(bases[2])};
      Store::RewriteRequest rq{pid, bases[0], bases[3], {}};
      for (const auto& b : batches) rq.batches.emplace_back(b);
      const Status s = wait_for<Status>([&](auto cb) { s_->rewrite(std::move(rq), cb); });
      ASSERT_TRUE(s.ok()) << s.to_string();
      bases.erase(bases.begin(), bases.begin() + 4);
      rewrote = true;
      break;
    }
    if (require_rewrite) {
      ASSERT_TRUE(rewrote) << "no partition had four plain batches to rewrite";
    }
    const PartitionId trimmed = live_[rng_() % live_.size()];
    const auto o = s_->offsets(trimmed);
    ASSERT_TRUE(o.ok());
    ASSERT_TRUE(delete_records(*s_, trimmed, (o->log_start_offset + o->next_offset) / 2).ok());
    const size_t i = rng_() % live_.size();
    ASSERT_TRUE(delete_partition(*s_, live_[i]).ok());
    bases_.erase(live_[i]);
    live_.erase(live_.begin() + static_cast<ptrdiff_t>(i));
  }

 private:
  Store* s_;
  std::mt19937 rng_;
  std::vector<PartitionId> live_;
  PartitionId partitions_ = 0;
  uint64_t idempotent_ = 0;
  std::map<std::pair<PartitionId, int64_t>, int32_t> seq_;
  std::map<PartitionId, std::vector<int64_t>> bases_;
};

}  // namespace rokka::storage::test
