#include "bench/loadgen/latency_histogram.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "bench/loadgen/payload.h"

namespace rokka::bench {
namespace {

constexpr uint64_t kUs = 1000;

// |reported - exact| / exact stays within the histogram's stated 1/64 resolution.
void expect_close(uint64_t reported, uint64_t exact) {
  const double error = static_cast<double>(reported > exact ? reported - exact : exact - reported);
  EXPECT_LE(error / static_cast<double>(exact), 1.0 / 64) << "reported " << reported << " exact " << exact;
}

TEST(LatencyHistogramTest, PercentilesOfAUniformSpreadAreWithinResolution) {
  LatencyHistogram h;
  for (uint64_t us = 1; us <= 100'000; ++us) h.record(us * kUs);  // 1 us .. 100 ms
  EXPECT_EQ(h.count(), 100'000u);
  expect_close(h.percentile(0.50), 50'000 * kUs);
  expect_close(h.percentile(0.99), 99'000 * kUs);
  expect_close(h.percentile(0.999), 99'900 * kUs);
  EXPECT_EQ(h.max(), 100'000 * kUs);
  EXPECT_EQ(h.min(), 1 * kUs);
}

TEST(LatencyHistogramTest, OneSlowRequestInAHundredShowsAtP99NotP50) {
  LatencyHistogram h;
  for (int i = 0; i < 99; ++i) h.record(200 * kUs);
  h.record(500'000 * kUs);  // one 500 ms stall
  expect_close(h.percentile(0.50), 200 * kUs);
  expect_close(h.percentile(0.99), 200 * kUs);  // the 99th of 100 samples is still fast
  EXPECT_EQ(h.percentile(1.0), 500'000 * kUs);
  EXPECT_EQ(h.max(), 500'000 * kUs);
}

TEST(LatencyHistogramTest, SmallValuesAreExact) {
  LatencyHistogram h;
  for (uint64_t ns = 0; ns < 128; ++ns) h.record(ns);
  EXPECT_EQ(h.percentile(0.5), 63u);  // rank 64 of 0..127
  EXPECT_EQ(h.percentile(1.0), 127u);
}

TEST(LatencyHistogramTest, ExtremeValuesDoNotOverflow) {
  LatencyHistogram h;
  h.record(std::numeric_limits<uint64_t>::max());
  h.record(0);
  EXPECT_EQ(h.percentile(1.0), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(h.percentile(0.5), 0u);
}

TEST(LatencyHistogramTest, MergeEqualsRecordingEverythingInOne) {
  LatencyHistogram a, b, all;
  for (uint64_t v = 1; v <= 5000; ++v) {
    (v % 3 == 0 ? a : b).record(v * 7919);
    all.record(v * 7919);
  }
  LatencyHistogram merged;
  merged.merge(a);
  merged.merge(b);
  EXPECT_EQ(merged.count(), all.count());
  EXPECT_EQ(merged.min(), all.min());
  EXPECT_EQ(merged.max(), all.max());
  for (double q : {0.1, 0.5, 0.9, 0.99, 0.999}) EXPECT_EQ(merged.percentile(q), all.percentile(q)) << q;
}

TEST(LatencyHistogramTest, EmptyReportsZero) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.percentile(0.99), 0u);
  EXPECT_EQ(h.max(), 0u);
}

TEST(PayloadStampTest, StampRoundTripsAndForeignBytesAreRejected) {
  std::vector<std::byte> body = make_payload(100);
  ASSERT_EQ(body.size(), 100u);
  EXPECT_FALSE(read_stamp(body).has_value()) << "an unstamped body has no magic";
  write_stamp(body, Stamp{7, 123456789, 42});
  const auto stamp = read_stamp(body);
  ASSERT_TRUE(stamp.has_value());
  EXPECT_EQ(stamp->run_id, 7u);
  EXPECT_EQ(stamp->send_ns, 123456789u);
  EXPECT_EQ(stamp->seq, 42u);
  EXPECT_FALSE(read_stamp(std::span(body).first(kStampSize - 1)).has_value()) << "too short";
}

}  // namespace
}  // namespace rokka::bench
