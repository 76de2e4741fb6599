// FaultProbeFileSystem: a FileSystem decorator that kills the process (SIGKILL) at a
// chosen call, so crash tests of the real binary land exactly inside a group commit,
// a segment roll or a checkpoint (Redpanda's failure probes, at the I/O boundary;
// no test logic in the storage code itself).
//
// Spec "<call>:<n>": the n-th call of that kind (counted from open) dies before it
// runs. Calls: write, sync, sync_dir, create (an open that creates a file), rename,
// remove, truncate, punch_hole, allocate. The broker wraps the real file system in one only
// when the ROKKA_FAULT_PROBE environment variable holds a spec (tests/crash/).
// Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <string_view>

#include "storage/file_system.h"

namespace rokka::storage {

class FaultProbeFileSystem final : public FileSystem {
 public:
  enum class Call { kWrite, kSync, kSyncDir, kCreate, kRename, kRemove, kTruncate, kPunchHole, kAllocate };

  // kInvalidArgument for a malformed spec.
  static Result<std::unique_ptr<FaultProbeFileSystem>> parse(std::string_view spec, FileSystem& inner);
  FaultProbeFileSystem(FileSystem& inner, Call call, int64_t n) : inner_(inner), call_(call), remaining_(n) {}

  // Counts a call of `kind`; the armed one does not return.
  void hit(Call kind);

  Result<std::unique_ptr<File>> open(const std::filesystem::path& path, bool create) override;
  Status remove(const std::filesystem::path& path) override;
  Status rename(const std::filesystem::path& from, const std::filesystem::path& to) override;
  Status sync_dir(const std::filesystem::path& dir) override;
  Status create_dirs(const std::filesystem::path& dir) override { return inner_.create_dirs(dir); }
  bool exists(const std::filesystem::path& path) override { return inner_.exists(path); }
  Result<std::vector<std::string>> list(const std::filesystem::path& dir) override { return inner_.list(dir); }

 private:
  FileSystem& inner_;
  const Call call_;
  std::atomic<int64_t> remaining_;
};

}  // namespace rokka::storage
