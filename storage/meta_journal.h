// MetaJournal: the file side of MetaStore. An append-only journal of CRC'd records,
// each an atomic batch of puts/erases, replayed into a sorted map at open. A torn or
// corrupt tail is cut at the first bad record. When dead records dominate, the live
// map is rewritten into a new journal (tmp + fsync + rename), so the file stays
// proportional to the live state. Layout: storage/FORMAT.md.
//
// Threading: append/sync/maybe_compact on the writer thread; scan/get from any
// thread (a mutex guards the map, never held across IO).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "storage/file_system.h"
#include "storage/meta_store.h"

namespace rokka::storage {

class MetaJournal {
 public:
  static Result<std::unique_ptr<MetaJournal>> open(FileSystem& fs, const std::filesystem::path& dir);

  // Writes one record (page cache) and applies it to the map.
  Status append(const std::vector<MetaStore::Mutation>& batch);
  Status sync();
  bool has_unsynced() const { return unsynced_; }
  // Rewrites the journal from the live map when it is mostly dead records.
  Status maybe_compact();

  std::vector<std::pair<std::string, std::string>> scan(std::string_view prefix) const;
  std::optional<std::string> get(const std::string& key) const;

  // One record's payload (FORMAT.md), which is also the body of an RKM1 log entry.
  static std::vector<std::byte> encode_payload(const std::vector<MetaStore::Mutation>& batch);
  // Appends the payload's mutations to `out`; false (hostile-input safe) when it does
  // not decode to the last byte -- or, with `used`, when it does not decode: the bytes
  // after the batch are then allowed and *used tells how many the batch took.
  static bool decode_payload(std::span<const std::byte> payload, std::vector<MetaStore::Mutation>& out,
                             size_t* used = nullptr);
  int64_t file_bytes() const { return size_; }

 private:
  MetaJournal(FileSystem& fs, std::filesystem::path dir) : fs_(fs), dir_(std::move(dir)) {}
  std::filesystem::path path() const { return dir_ / "journal"; }
  static std::vector<std::byte> encode_record(const std::vector<MetaStore::Mutation>& batch);
  // Applies records from `data`; returns the end of the valid prefix.
  size_t replay(std::span<const std::byte> data);
  void apply(const std::vector<MetaStore::Mutation>& batch);

  FileSystem& fs_;
  std::filesystem::path dir_;
  std::unique_ptr<File> file_;
  int64_t size_ = 0;
  int64_t live_bytes_ = 0;
  bool unsynced_ = false;
  mutable std::mutex mu_;
  std::map<std::string, std::string, std::less<>> map_;  // guarded by mu_
};

}  // namespace rokka::storage
