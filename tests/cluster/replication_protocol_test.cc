// The replication stream's frame codec (cluster/replication_protocol.h): every frame round trips,
// and hostile bytes (truncated, oversized, bad CRCs, unknown types, absurd counts, random
// mutations) are refused with kMalformed, never a crash (run under ROKKA_SANITIZE for UB).
#include "cluster/replication_protocol.h"

#include <gtest/gtest.h>

#include <random>

#include "storage/crc32c.h"

namespace rokka::cluster::repl {
namespace {

using storage::StatusCode;

std::vector<std::byte> blob(size_t n, uint8_t seed) {
  std::vector<std::byte> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = std::byte{static_cast<uint8_t>(seed + i * 7)};
  return out;
}

Hello sample_hello() {
  return Hello{.cluster_id = "Zq3vY0mTQ4u1dLr2Wk9aBc",
               .group = "g1",
               .follower_id = 2,
               .broker_epoch = 12345678901,
               .segment_bytes = 1 << 30,
               .max_entry_bytes = (64 << 20) + 44,
               .log_begin = 1 << 20,
               .log_end = 5'000'000'000,
               .epochs = {{3, 1 << 20}, {7, 2'000'000}, {9, 4'999'999'000}}};
}
Welcome sample_welcome() {
  return Welcome{.leader_id = 1,
                 .epoch = 9,
                 .epochs = {{3, 0}, {7, 2'000'000}, {9, 4'999'999'000}},
                 .truncate_to = 4'999'999'500,
                 .leader_log_begin = 0,
                 .leader_log_end = 6'000'000'000};
}

// Rewrites a frame's header CRC after the test changed header bytes on purpose.
void reseal_header(std::vector<std::byte>& f) {
  const uint32_t crc = storage::crc32c(f.data(), 12);
  for (int i = 0; i < 4; ++i) f[12 + i] = std::byte{static_cast<uint8_t>(crc >> (8 * i))};
}
// Rewrites the payload CRC (and then the header CRC) after a payload change.
void reseal(std::vector<std::byte>& f) {
  const uint32_t crc = storage::crc32c(f.data() + kHeaderBytes, f.size() - kHeaderBytes);
  for (int i = 0; i < 4; ++i) f[8 + i] = std::byte{static_cast<uint8_t>(crc >> (8 * i))};
  const uint32_t len = static_cast<uint32_t>(f.size() - kHeaderBytes);
  for (int i = 0; i < 4; ++i) f[i] = std::byte{static_cast<uint8_t>(len >> (8 * i))};
  reseal_header(f);
}

TEST(ReplicationProtocol, EveryFrameRoundTrips) {
  {
    auto f = decode_frame(encode(sample_hello()));
    ASSERT_TRUE(f.ok()) << f.status().to_string();
    EXPECT_EQ(std::get<Hello>(*f), sample_hello());
  }
  {
    Hello empty{.cluster_id = "", .group = "", .segment_bytes = 1};  // empty names and epoch list
    auto f = decode_frame(encode(empty));
    ASSERT_TRUE(f.ok()) << f.status().to_string();
    EXPECT_EQ(std::get<Hello>(*f), empty);
  }
  {
    auto f = decode_frame(encode(sample_welcome()));
    ASSERT_TRUE(f.ok()) << f.status().to_string();
    EXPECT_EQ(std::get<Welcome>(*f), sample_welcome());
  }
  for (uint8_t reason = 1; reason <= 7; ++reason) {
    Reject r{.reason = static_cast<RejectReason>(reason), .leader_epoch = 41, .message = "no: not the leader"};
    auto f = decode_frame(encode(r));
    ASSERT_TRUE(f.ok()) << f.status().to_string();
    EXPECT_EQ(std::get<Reject>(*f), r);
  }
  {
    Ack a{.written_end = 7'000'000'123, .durable_end = 7'000'000'000};
    auto f = decode_frame(encode(a));
    ASSERT_TRUE(f.ok()) << f.status().to_string();
    EXPECT_EQ(std::get<Ack>(*f), a);
  }
  for (size_t n : {size_t{0}, size_t{1}, size_t{4096}, kDataFrameBytes}) {
    const auto bytes = blob(n, 3);
    DataHeader h{.epoch = 9, .from_pos = 5'000'000'000, .confirm_pos = 4'999'000'000, .leader_end = 6'000'000'000};
    const auto frame = encode_data(h, bytes);
    EXPECT_EQ(frame.size(), kHeaderBytes + kDataFixedBytes + n);
    auto f = decode_frame(frame);
    ASSERT_TRUE(f.ok()) << f.status().to_string();
    const auto& d = std::get<Data>(*f);
    EXPECT_EQ(d.header, h);
    ASSERT_EQ(d.bytes.size(), n);
    EXPECT_TRUE(std::equal(d.bytes.begin(), d.bytes.end(), bytes.begin()));
    // The scatter-gather prefix is the same bytes as the whole frame's start.
    const auto prefix = encode_data_prefix(h, bytes);
    EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), frame.begin()));
  }
}

TEST(ReplicationProtocol, SnapshotPiecesRoundTripAndLyingOnesAreRefused) {
  const auto bytes = blob(4096, 5);
  const SnapshotHeader h{.epoch = 9, .total_bytes = 10'000, .offset = 5'904};  // the last piece
  auto f = decode_frame(encode_snapshot_piece(h, bytes));
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  const auto& p = std::get<SnapshotPiece>(*f);
  EXPECT_EQ(p.header, h);
  EXPECT_TRUE(std::equal(p.bytes.begin(), p.bytes.end(), bytes.begin(), bytes.end()));
  auto refused = [&](SnapshotHeader bad, size_t n) {
    const auto frame = encode_snapshot_piece(bad, blob(n, 1));
    return decode_frame(frame).status().code() == StatusCode::kMalformed;
  };
  EXPECT_TRUE(refused({9, 10'000, 5'905}, 4096));                     // past its total
  EXPECT_TRUE(refused({9, kMaxSnapshotBytes + 1, 0}, 4096));          // a total over the bound
  EXPECT_TRUE(refused({9, 0, 0}, 0));                                 // empty
  EXPECT_TRUE(refused({-1, 10'000, 0}, 16));                          // negative epoch
  EXPECT_TRUE(refused({9, 10'000, -1}, 16));                          // negative offset
  EXPECT_TRUE(refused({9, 10'000, INT64_MAX - 8}, 16));               // overflowing
  EXPECT_TRUE(refused({9, 4 * int64_t{kSnapshotChunkBytes}, 0}, kSnapshotChunkBytes + 1));  // a piece over the bound
  // A payload size over SNAPSHOT's bound is refused on the header, before the payload is read.
  auto big = encode_snapshot_piece({9, 100, 0}, blob(100, 1));
  const uint32_t lie = static_cast<uint32_t>(kSnapshotChunkBytes + kSnapshotFixedBytes + 1);
  for (int i = 0; i < 4; ++i) big[i] = std::byte{static_cast<uint8_t>(lie >> (8 * i))};
  reseal_header(big);
  EXPECT_EQ(decode_header(big).status().code(), StatusCode::kMalformed);
  // The byte count must be what the frame holds.
  auto wrong = encode_snapshot_piece({9, 100, 0}, blob(100, 1));
  wrong[kHeaderBytes + 20] = std::byte{99};
  reseal(wrong);
  EXPECT_EQ(decode_frame(wrong).status().code(), StatusCode::kMalformed);
}

TEST(ReplicationProtocol, HeaderFieldsAreAsDocumented) {
  const auto f = encode(Ack{.written_end = 1, .durable_end = 2});
  ASSERT_EQ(f.size(), kHeaderBytes + 16);
  EXPECT_EQ(std::to_integer<int>(f[0]), 16);  // payload_bytes, little-endian
  EXPECT_EQ(std::to_integer<int>(f[1]) | std::to_integer<int>(f[2]) | std::to_integer<int>(f[3]), 0);
  EXPECT_EQ(std::to_integer<int>(f[4]), kProtocolVersion);
  EXPECT_EQ(std::to_integer<int>(f[5]), static_cast<int>(FrameType::kAck));
  EXPECT_EQ(std::to_integer<int>(f[16]), 1);  // written_end's low byte
  EXPECT_EQ(std::to_integer<int>(f[24]), 2);  // durable_end's low byte
}

TEST(ReplicationProtocol, TruncatedFramesAreRefused) {
  const std::vector<std::vector<std::byte>> frames = {encode(sample_hello()), encode(sample_welcome()),
                                                      encode(Reject{RejectReason::kNotLeader, 3, "x"}),
                                                      encode(Ack{1, 1}), encode_data(DataHeader{1, 0, 0, 8}, blob(8, 1)),
                                                      encode_snapshot_piece({1, 64, 0}, blob(8, 1))};
  for (const auto& frame : frames) {
    for (size_t n = 0; n < frame.size(); ++n) {
      auto f = decode_frame(std::span(frame).first(n));
      ASSERT_FALSE(f.ok()) << n;
      EXPECT_EQ(f.status().code(), StatusCode::kMalformed);
    }
    // Truncated payload with the header resealed to the shorter length: the payload decoder refuses it.
    for (size_t n = kHeaderBytes; n < frame.size(); ++n) {
      std::vector<std::byte> cut(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(n));
      reseal(cut);
      auto f = decode_frame(cut);
      ASSERT_FALSE(f.ok()) << n;
      EXPECT_EQ(f.status().code(), StatusCode::kMalformed);
    }
  }
}

TEST(ReplicationProtocol, TrailingBytesAreRefused) {
  for (auto frame : {encode(sample_hello()), encode(sample_welcome()), encode(Ack{1, 1}),
                     encode(Reject{RejectReason::kInvalid, -1, ""})}) {
    frame.push_back(std::byte{0});
    reseal(frame);
    auto f = decode_frame(frame);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.status().code(), StatusCode::kMalformed);
  }
}

TEST(ReplicationProtocol, OversizedFramesAreRefusedFromTheHeader) {
  // A DATA header announcing more than 1 MiB + its fields: refused before any payload is read.
  auto data = encode_data(DataHeader{1, 0, 0, 0}, {});
  uint32_t big = static_cast<uint32_t>((kDataFrameBytes + kDataFixedBytes) + 1);
  for (int i = 0; i < 4; ++i) data[i] = std::byte{static_cast<uint8_t>(big >> (8 * i))};
  reseal_header(data);
  auto h = decode_header(data);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), StatusCode::kMalformed);
  // The largest DATA passes the header check.
  big = static_cast<uint32_t>((kDataFrameBytes + kDataFixedBytes));
  for (int i = 0; i < 4; ++i) data[i] = std::byte{static_cast<uint8_t>(big >> (8 * i))};
  reseal_header(data);
  EXPECT_TRUE(decode_header(data).ok());
  // A control frame over 64 KiB is refused.
  auto ack = encode(Ack{1, 1});
  big = static_cast<uint32_t>(kMaxControlPayloadBytes + 1);
  for (int i = 0; i < 4; ++i) ack[i] = std::byte{static_cast<uint8_t>(big >> (8 * i))};
  reseal_header(ack);
  EXPECT_FALSE(decode_header(ack).ok());
  // 4 GiB - 1.
  for (int i = 0; i < 4; ++i) ack[i] = std::byte{0xff};
  reseal_header(ack);
  EXPECT_FALSE(decode_header(ack).ok());
  // DATA whose inner byte count says more than 1 MiB (the frame itself within bounds).
  auto d = encode_data(DataHeader{1, 0, 0, 0}, blob(16, 0));
  big = static_cast<uint32_t>(kDataFrameBytes + 1);
  for (int i = 0; i < 4; ++i) d[kHeaderBytes + 28 + i] = std::byte{static_cast<uint8_t>(big >> (8 * i))};
  reseal(d);
  EXPECT_EQ(decode_frame(d).status().code(), StatusCode::kMalformed);
}

TEST(ReplicationProtocol, TheDataBoundIsAnOption) {
  // data_bound: never below the frame size, the store's largest entry above it, capped.
  EXPECT_EQ(data_bound(0), kDataFrameBytes);
  EXPECT_EQ(data_bound(1000), kDataFrameBytes);
  EXPECT_EQ(data_bound((64 << 20) + 44), size_t{(64 << 20) + 44});
  EXPECT_EQ(data_bound(INT64_MAX), kMaxDataBytesCeiling);
  // A 4 MiB entry: refused under the default bound (from the header), decoded under a bound of its size.
  const size_t n = size_t{4} << 20;
  const auto frame = encode_data(DataHeader{3, 4096, 0, 4096 + static_cast<int64_t>(n)}, blob(n, 9));
  EXPECT_EQ(decode_header(frame).status().code(), StatusCode::kMalformed);
  EXPECT_EQ(decode_frame(frame).status().code(), StatusCode::kMalformed);
  EXPECT_EQ(decode_frame(frame, n - 1).status().code(), StatusCode::kMalformed);
  auto f = decode_frame(frame, n);
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  const auto& d = std::get<Data>(*f);
  EXPECT_EQ(d.bytes.size(), n);
  EXPECT_EQ(d.header.from_pos, 4096);
  // The inner byte count is held to the same bound as the header.
  const auto payload = std::span(frame).subspan(kHeaderBytes);
  EXPECT_EQ(decode_data(payload, n - 1).status().code(), StatusCode::kMalformed);
  EXPECT_TRUE(decode_data(payload, n).ok());
  // A header announcing more than the ceiling is refused whatever the option says.
  auto big = encode_data(DataHeader{1, 0, 0, 0}, {});
  const uint32_t over = static_cast<uint32_t>(kMaxDataBytesCeiling + kDataFixedBytes + 1);
  for (int i = 0; i < 4; ++i) big[i] = std::byte{static_cast<uint8_t>(over >> (8 * i))};
  reseal_header(big);
  EXPECT_EQ(decode_header(big, SIZE_MAX).status().code(), StatusCode::kMalformed);
}

TEST(ReplicationProtocol, BadCrcsAreRefused) {
  const auto frame = encode(sample_hello());
  for (size_t i = 0; i < frame.size(); ++i) {
    auto bad = frame;
    bad[i] ^= std::byte{0x01};
    auto f = decode_frame(bad);
    ASSERT_FALSE(f.ok()) << "flipped byte " << i;
    EXPECT_EQ(f.status().code(), StatusCode::kMalformed);
  }
  auto bad = encode_data(DataHeader{1, 0, 0, 8}, blob(8, 1));
  bad.back() ^= std::byte{0x80};
  auto f = decode_frame(bad);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("payload CRC"), std::string::npos) << f.status().message();
}

TEST(ReplicationProtocol, UnknownTypeVersionAndFlagsAreRefused) {
  for (uint8_t t : {0, 7, 0x80, 0xff}) {
    auto f = encode(Ack{1, 1});
    f[5] = std::byte{t};
    reseal_header(f);
    EXPECT_EQ(decode_frame(f).status().code(), StatusCode::kMalformed) << int{t};
  }
  for (uint8_t version : {1, 3}) {  // version 1 (before SNAPSHOT) and a future one
    auto v = encode(Ack{1, 1});
    v[4] = std::byte{version};
    reseal_header(v);
    EXPECT_NE(decode_frame(v).status().message().find("version"), std::string::npos) << int{version};
  }
  auto fl = encode(Ack{1, 1});
  fl[6] = std::byte{1};
  reseal_header(fl);
  EXPECT_EQ(decode_frame(fl).status().code(), StatusCode::kMalformed);
  auto r = encode(Reject{RejectReason::kNotLeader, 1, ""});
  r[kHeaderBytes] = std::byte{99};  // unknown reject reason
  reseal(r);
  EXPECT_EQ(decode_frame(r).status().code(), StatusCode::kMalformed);
}

TEST(ReplicationProtocol, AbsurdCountsAndValuesAreRefused) {
  // The epoch count sits after the fixed fields of WELCOME: 4+4+8+8+8 = 32 bytes in.
  auto w = encode(Welcome{.epoch = 1, .epochs = {{1, 0}}});
  auto set_count = [&](uint32_t count) {
    auto f = w;
    for (int i = 0; i < 4; ++i) f[kHeaderBytes + 32 + i] = std::byte{static_cast<uint8_t>(count >> (8 * i))};
    reseal(f);
    return f;
  };
  for (uint32_t count : {uint32_t{2}, uint32_t{kMaxEpochs}, uint32_t{kMaxEpochs + 1}, 0xffffffffu}) {
    auto f = decode_frame(set_count(count));
    ASSERT_FALSE(f.ok()) << count;
    EXPECT_EQ(f.status().code(), StatusCode::kMalformed);
  }
  // Epoch lists out of order, negative values.
  for (const auto& list : std::vector<std::vector<EpochStart>>{
           {{2, 0}, {2, 10}}, {{3, 0}, {2, 10}}, {{1, 10}, {2, 5}}, {{-1, 0}}, {{1, -5}}}) {
    EXPECT_EQ(decode_frame(encode(Welcome{.epoch = 1, .epochs = list})).status().code(), StatusCode::kMalformed);
    Hello h = sample_hello();
    h.epochs = list;
    EXPECT_EQ(decode_frame(encode(h)).status().code(), StatusCode::kMalformed);
  }
  // A name longer than 255 announced by its length.
  auto h = encode(Hello{.cluster_id = "c", .group = "g", .segment_bytes = 1});
  h[kHeaderBytes] = std::byte{0xff};
  h[kHeaderBytes + 1] = std::byte{0xff};
  reseal(h);
  EXPECT_EQ(decode_frame(h).status().code(), StatusCode::kMalformed);
  // HELLO with log_end below log_begin; zero segment size; ACK and DATA with negative positions.
  Hello bad = sample_hello();
  bad.log_end = bad.log_begin - 1;
  EXPECT_EQ(decode_frame(encode(bad)).status().code(), StatusCode::kMalformed);
  bad = sample_hello();
  bad.segment_bytes = 0;
  EXPECT_EQ(decode_frame(encode(bad)).status().code(), StatusCode::kMalformed);
  bad = sample_hello();
  bad.max_entry_bytes = -1;
  EXPECT_EQ(decode_frame(encode(bad)).status().code(), StatusCode::kMalformed);
  EXPECT_EQ(decode_frame(encode(Ack{-1, 0})).status().code(), StatusCode::kMalformed);
  EXPECT_EQ(decode_frame(encode_data(DataHeader{1, -8, 0, 0}, {})).status().code(), StatusCode::kMalformed);
  EXPECT_EQ(decode_frame(encode_data(DataHeader{1, INT64_MAX - 2, 0, 0}, blob(8, 0))).status().code(),
            StatusCode::kMalformed);
}

// Random mutations of valid frames: byte flips, insertions, deletions, length-field and count
// rewrites, with the CRCs resealed half of the time so the payload decoders see the damage.
// Nothing may crash; what decodes must re-encode to a frame that decodes the same way.
TEST(ReplicationProtocol, RandomMutationsNeverCrash) {
  std::mt19937_64 rng(20261206);
  const std::vector<std::vector<std::byte>> seeds = {
      encode(sample_hello()), encode(sample_welcome()), encode(Reject{RejectReason::kTooFarBehind, 4, "behind"}),
      encode(Ack{10, 5}), encode_data(DataHeader{9, 100, 50, 200}, blob(100, 9)), encode_data(DataHeader{}, {}),
      encode_snapshot_piece({9, 300, 100}, blob(100, 4))};
  size_t decoded = 0;
  size_t refused = 0;
  for (int iter = 0; iter < 200'000; ++iter) {
    auto f = seeds[rng() % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      switch (rng() % 5) {
        case 0:
          if (!f.empty()) f[rng() % f.size()] ^= std::byte{static_cast<uint8_t>(1u << (rng() % 8))};
          break;
        case 1:
          if (!f.empty()) f[rng() % f.size()] = std::byte{static_cast<uint8_t>(rng())};
          break;
        case 2:
          f.insert(f.begin() + static_cast<std::ptrdiff_t>(rng() % (f.size() + 1)), std::byte{static_cast<uint8_t>(rng())});
          break;
        case 3:
          if (!f.empty()) f.erase(f.begin() + static_cast<std::ptrdiff_t>(rng() % f.size()));
          break;
        case 4:  // a 32-bit field set to an extreme value
          if (f.size() >= 4) {
            const size_t at = rng() % (f.size() - 3);
            const uint32_t v = (rng() & 1) ? 0xffffffffu : static_cast<uint32_t>(rng() % 70000);
            for (int i = 0; i < 4; ++i) f[at + i] = std::byte{static_cast<uint8_t>(v >> (8 * i))};
          }
          break;
      }
    }
    if (f.size() >= kHeaderBytes && (rng() & 1)) reseal(f);
    auto r = decode_frame(f);
    if (!r.ok()) {
      ASSERT_EQ(r.status().code(), StatusCode::kMalformed);
      ++refused;
      continue;
    }
    ++decoded;
    // Whatever decoded is a valid frame: encoding it again gives a frame that decodes equal.
    std::visit(
        [&](const auto& m) {
          using M = std::decay_t<decltype(m)>;
          if constexpr (std::is_same_v<M, Data>) {
            auto again = decode_frame(encode_data(m.header, m.bytes));
            ASSERT_TRUE(again.ok());
            EXPECT_EQ(std::get<Data>(*again).header, m.header);
          } else if constexpr (std::is_same_v<M, SnapshotPiece>) {
            auto again = decode_frame(encode_snapshot_piece(m.header, m.bytes));
            ASSERT_TRUE(again.ok());
            EXPECT_EQ(std::get<SnapshotPiece>(*again).header, m.header);
          } else {
            auto again = decode_frame(encode(m));
            ASSERT_TRUE(again.ok());
            EXPECT_EQ(std::get<M>(*again), m);
          }
        },
        *r);
  }
  EXPECT_GT(refused, 100'000u);
  EXPECT_GT(decoded, 0u);  // some resealed mutations are valid frames (a changed value)
}

}  // namespace
}  // namespace rokka::cluster::repl
