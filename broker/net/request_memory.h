// RequestMemory: the broker-wide budget for request bytes received but whose handlers
// have not finished (Kafka's queued.max.request.bytes). A connection asks for each
// chunk of a frame body before it allocates and reads it (never for the size a
// prefix merely announces, so empty promises cost nothing); once the pool is spent
// it waits (asynchronously, not reading, so TCP pushes back on the client) until
// some request finishes or a connection holding a partial frame is closed (read
// timeout). Admission is not strict: a chunk is granted while anything is left.
//
// Threading: shared by every network thread; all methods are thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace rokka::broker {

class RequestMemory {
 public:
  // A grant of bytes, returned to the pool when destroyed (move-only).
  class Grant {
   public:
    Grant() = default;
    Grant(Grant&& o) noexcept;
    Grant& operator=(Grant&& o) noexcept;
    Grant(const Grant&) = delete;
    Grant& operator=(const Grant&) = delete;
    ~Grant();  // out of line: inlined into handler coroutines it trips GCC 12's -Wmismatched-new-delete
    void reset();
    // Takes over `other`'s bytes (both must come from the same pool).
    void absorb(Grant&& other);
    int64_t bytes() const { return pool_ ? bytes_ : 0; }

   private:
    friend class RequestMemory;
    Grant(RequestMemory* pool, int64_t bytes) : pool_(pool), bytes_(bytes) {}
    RequestMemory* pool_ = nullptr;
    int64_t bytes_ = 0;
  };

  // capacity <= 0: unlimited (every request is admitted at once).
  explicit RequestMemory(int64_t capacity) : capacity_(capacity) {}

  // Grants `bytes` if the pool is not spent. Otherwise registers `wake`, which is
  // called (on the releasing thread: it must only post) at the next release that
  // leaves room, and returns an empty Grant; the caller then tries again.
  Grant acquire_or_notify(int64_t bytes, std::function<void()> wake);

  int64_t used() const;
  int64_t capacity() const { return capacity_; }

 private:
  void release(int64_t bytes);

  const int64_t capacity_;
  mutable std::mutex mu_;
  int64_t used_ = 0;                           // guarded by mu_
  std::vector<std::function<void()>> waiters_;  // guarded by mu_
};

}  // namespace rokka::broker
