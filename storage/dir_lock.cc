#include "storage/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rokka::storage {

Result<std::unique_ptr<DirLock>> DirLock::acquire(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / ".lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::io_error("cannot open lock file " + path.string() + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK)
      return Status::io_error("data directory " + dir.string() +
                              " is in use by another process (" + path.string() + " is locked)");
    return Status::io_error("cannot lock " + path.string() + ": " + std::strerror(err));
  }
  return std::unique_ptr<DirLock>(new DirLock(fd));
}

DirLock::~DirLock() { ::close(fd_); }  // closing the last descriptor releases the flock

}  // namespace rokka::storage
