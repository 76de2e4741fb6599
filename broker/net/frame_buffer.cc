#include "broker/net/frame_buffer.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace rokka::broker {
namespace {

struct Block {
  std::unique_ptr<std::byte[]> data;
  size_t capacity = 0;
};

// This thread's released large buffers, at most kPoolMaxBuffers holding at most
// kPoolMaxBytes in all.
struct Pool {
  std::vector<Block> blocks;
  size_t bytes = 0;

  // The smallest pooled block of at least `size` bytes, if any.
  bool take(size_t size, Block& out) {
    auto best = blocks.end();
    for (auto it = blocks.begin(); it != blocks.end(); ++it)
      if (it->capacity >= size && (best == blocks.end() || it->capacity < best->capacity)) best = it;
    if (best == blocks.end()) return false;
    out = std::move(*best);
    blocks.erase(best);
    bytes -= out.capacity;
    return true;
  }

  // Keeps `block`, then drops the smallest blocks while over the limits.
  void give(Block block) {
    bytes += block.capacity;
    blocks.push_back(std::move(block));
    while (blocks.size() > FrameBuffer::kPoolMaxBuffers || bytes > FrameBuffer::kPoolMaxBytes) {
      auto smallest = std::min_element(blocks.begin(), blocks.end(),
                                       [](const Block& a, const Block& b) { return a.capacity < b.capacity; });
      bytes -= smallest->capacity;
      blocks.erase(smallest);
    }
  }
};

Pool& pool() {
  thread_local Pool p;
  return p;
}

bool poolable(size_t capacity) {
  return capacity >= FrameBuffer::kPoolMinBytes && capacity <= FrameBuffer::kPoolMaxBytes;
}

}  // namespace

FrameBuffer::FrameBuffer(size_t size) : size_(size) {
  // Large frames round up to 64 KiB, so frames of similar sizes share buffers.
  const size_t capacity =
      size >= kPoolMinBytes ? (size + kPoolMinBytes - 1) / kPoolMinBytes * kPoolMinBytes : size;
  Block block;
  if (poolable(capacity) && pool().take(size, block)) {
    data_ = std::move(block.data);
    capacity_ = block.capacity;
    return;
  }
  data_.reset(new std::byte[capacity]);  // default-initialised: no memset
  capacity_ = capacity;
}

FrameBuffer::FrameBuffer(FrameBuffer&& other) noexcept
    : data_(std::move(other.data_)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

FrameBuffer& FrameBuffer::operator=(FrameBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

void FrameBuffer::grow(size_t size) {
  if (size <= size_) return;
  if (size <= capacity_) {
    size_ = size;
    return;
  }
  FrameBuffer bigger(size);
  if (size_ > 0) std::copy_n(data_.get(), size_, bigger.data_.get());
  *this = std::move(bigger);
}

void FrameBuffer::release() {
  if (data_ && poolable(capacity_)) pool().give({std::move(data_), capacity_});
  data_.reset();
  size_ = capacity_ = 0;
}

size_t FrameBuffer::pooled_bytes() { return pool().bytes; }

}  // namespace rokka::broker
