#include "broker/net/frame_buffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

namespace rokka::broker {
namespace {

constexpr size_t kLarge = size_t{1} << 20;

// Each test runs on a fresh thread, so it starts with an empty pool.
template <typename F>
void on_fresh_thread(F f) {
  std::thread t(f);
  t.join();
}

TEST(FrameBufferTest, HoldsWhatIsWrittenAndMovesWithoutCopying) {
  on_fresh_thread([] {
    FrameBuffer a(kLarge);
    ASSERT_EQ(a.size(), kLarge);
    std::memset(a.data(), 0x5a, a.size());
    const std::byte* bytes = a.data();
    FrameBuffer b(std::move(a));
    EXPECT_EQ(b.data(), bytes);
    EXPECT_EQ(a.size(), 0u);
    const std::span<const std::byte> view = b;
    EXPECT_EQ(view.size(), kLarge);
    EXPECT_EQ(view[kLarge - 1], std::byte{0x5a});
  });
}

TEST(FrameBufferTest, GrowingKeepsTheBytesAlreadyRead) {
  on_fresh_thread([] {
    FrameBuffer f;
    size_t filled = 0;
    for (size_t size : {size_t{10}, size_t{16} << 10, size_t{40} << 10, kLarge, kLarge + 1}) {
      f.grow(size);
      ASSERT_EQ(f.size(), size);
      for (size_t i = filled; i < size; ++i) f.data()[i] = static_cast<std::byte>(i * 7);
      filled = size;
      for (size_t i = 0; i < size; ++i) ASSERT_EQ(f.data()[i], static_cast<std::byte>(i * 7)) << i;
    }
    f.grow(5);  // never shrinks
    EXPECT_EQ(f.size(), kLarge + 1);
  });
}

TEST(FrameBufferTest, AReleasedLargeFrameServesTheNextOne) {
  on_fresh_thread([] {
    const std::byte* first = nullptr;
    {
      FrameBuffer a(kLarge);
      first = a.data();
    }
    EXPECT_GE(FrameBuffer::pooled_bytes(), kLarge);
    FrameBuffer b(kLarge - 100);  // a little smaller still fits
    EXPECT_EQ(b.data(), first);
    EXPECT_EQ(b.size(), kLarge - 100);
    EXPECT_EQ(FrameBuffer::pooled_bytes(), 0u);
  });
}

TEST(FrameBufferTest, SmallFramesAreNotPooled) {
  on_fresh_thread([] {
    { FrameBuffer a(100); }
    EXPECT_EQ(FrameBuffer::pooled_bytes(), 0u);
  });
}

TEST(FrameBufferTest, ThePoolStaysWithinItsLimits) {
  on_fresh_thread([] {
    {
      std::vector<FrameBuffer> many;
      for (size_t i = 0; i < 3 * FrameBuffer::kPoolMaxBuffers; ++i) many.emplace_back(kLarge);
    }
    EXPECT_LE(FrameBuffer::pooled_bytes(), FrameBuffer::kPoolMaxBuffers * kLarge);
    EXPECT_LE(FrameBuffer::pooled_bytes(), FrameBuffer::kPoolMaxBytes);
    { FrameBuffer huge(FrameBuffer::kPoolMaxBytes + 1); }  // larger than the pool: freed
    EXPECT_LE(FrameBuffer::pooled_bytes(), FrameBuffer::kPoolMaxBytes);
  });
}

}  // namespace
}  // namespace rokka::broker
