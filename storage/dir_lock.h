// DirLock: an exclusive advisory lock on <dir>/.lock (flock), held for the life of
// the object, so that two brokers (or two Stores) never open the same data
// directory at once. Kafka takes the same kind of lock on each log dir.
//
// The lock belongs to the open file description: a second acquire() on the same
// directory fails even from the same process, until the first DirLock is destroyed.
// It is released by the kernel when the process dies (kill -9 included), so a
// crash never leaves a stale lock behind. Store::open takes it before reading the
// directory; Store::close releases it (or destroying the Store, without close).
// Threading: acquire() from any thread.
#pragma once

#include <filesystem>
#include <memory>

#include "storage/status.h"

namespace rokka::storage {

class DirLock {
 public:
  // Creates <dir>/.lock if missing and locks it without waiting. kIoError naming the
  // directory when another holder has it (or the file cannot be opened).
  static Result<std::unique_ptr<DirLock>> acquire(const std::filesystem::path& dir);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  explicit DirLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace rokka::storage
