// Synchronous helpers over the callback-based Store API for storage tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <string>
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

}  // namespace rokka::storage::test
