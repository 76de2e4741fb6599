// FrameBuffer: the bytes of one request frame, owned by its RequestContext.
//
// The socket overwrites a frame at once, so the bytes are left uninitialised (no
// memset). Large frames (Produce) are recycled through a small pool of the thread
// that releases them: a steady stream of 1 MB requests then reuses the same few
// buffers instead of zero-filling, page-faulting and trimming fresh heap memory
// for every request (that was a quarter of the broker's CPU on 1 KiB produce,
// bench/results/). Small frames come from the allocator as usual.
//
// Threading: a FrameBuffer may be created and destroyed on any thread; each
// thread has its own pool, bounded by kPoolMaxBuffers and kPoolMaxBytes.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

namespace rokka::broker {

class FrameBuffer {
 public:
  static constexpr size_t kPoolMinBytes = size_t{64} << 10;  // smaller frames are not pooled
  static constexpr size_t kPoolMaxBuffers = 8;                // per thread
  static constexpr size_t kPoolMaxBytes = size_t{16} << 20;   // per thread, and the largest pooled frame

  FrameBuffer() = default;
  explicit FrameBuffer(size_t size);  // `size` uninitialised bytes
  FrameBuffer(FrameBuffer&& other) noexcept;
  FrameBuffer& operator=(FrameBuffer&& other) noexcept;
  ~FrameBuffer() { release(); }

  // Grows to `size` bytes keeping the first size() ones; the new bytes are
  // uninitialised. A frame read as its bytes arrive grows in steps (never beyond
  // what was received plus one chunk), so a size prefix alone allocates little.
  void grow(size_t size);

  std::byte* data() { return data_.get(); }
  const std::byte* data() const { return data_.get(); }
  size_t size() const { return size_; }
  operator std::span<std::byte>() { return {data_.get(), size_}; }
  operator std::span<const std::byte>() const { return {data_.get(), size_}; }

  // Bytes held by this thread's pool (for tests and diagnostics).
  static size_t pooled_bytes();

 private:
  void release();

  std::unique_ptr<std::byte[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace rokka::broker
