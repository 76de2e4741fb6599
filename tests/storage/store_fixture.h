// Synchronous helpers over the callback-based Store API for storage tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "storage/store.h"
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

}  // namespace rokka::storage::test
