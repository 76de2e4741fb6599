// Records sections that are small compressed and huge inflated, built cheaply (no
// huge buffer is ever made): `prefix` (the start of the records, e.g. a record header
// announcing a long value) followed by `zeros` zero bytes, in one codec's framing.
#pragma once

#include <lz4frame.h>
#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "protocol/codec.h"

namespace rokka::testutil {

// One zstd frame (window 2^window_log, no content size): a raw block holding `prefix`,
// then RLE blocks of 128 KiB zeros, 4 bytes each; 30 GiB of zeros take 960 KiB.
inline std::vector<std::byte> zstd_rle_bomb(protocol::Bytes prefix, uint64_t zeros, int window_log = 23) {
  constexpr uint32_t kBlock = 128 * 1024;
  std::vector<std::byte> out = {std::byte{0x28}, std::byte{0xb5}, std::byte{0x2f}, std::byte{0xfd},
                                std::byte{0x00},  // no content size, not single segment, no checksum
                                static_cast<std::byte>((window_log - 10) << 3)};
  auto block_header = [&](uint32_t size, int type, bool last) {
    const uint32_t h = size << 3 | static_cast<uint32_t>(type) << 1 | (last ? 1u : 0u);
    for (int i = 0; i < 3; ++i) out.push_back(static_cast<std::byte>(h >> (8 * i)));
  };
  if (prefix.size() > kBlock) throw std::invalid_argument("prefix larger than a block");
  block_header(static_cast<uint32_t>(prefix.size()), 0, zeros == 0);
  out.insert(out.end(), prefix.begin(), prefix.end());
  while (zeros > 0) {
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(zeros, kBlock));
    zeros -= n;
    block_header(n, 1, zeros == 0);
    out.push_back(std::byte{0});
  }
  return out;
}

// One gzip member: deflate over `prefix` then `zeros` zero bytes fed 1 MiB at a time.
inline std::vector<std::byte> gzip_bomb(protocol::Bytes prefix, uint64_t zeros) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2");
  std::vector<std::byte> out, buf(1 << 20);
  const std::vector<std::byte> zero_mib(1 << 20);
  auto feed = [&](protocol::Bytes in, int flush) {
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    do {
      zs.next_out = reinterpret_cast<Bytef*>(buf.data());
      zs.avail_out = static_cast<uInt>(buf.size());
      deflate(&zs, flush);
      out.insert(out.end(), buf.begin(), buf.end() - zs.avail_out);
    } while (zs.avail_out == 0);
  };
  feed(prefix, Z_NO_FLUSH);
  while (zeros > 0) {
    const auto n = std::min<uint64_t>(zeros, zero_mib.size());
    zeros -= n;
    feed(protocol::Bytes(zero_mib).first(n), Z_NO_FLUSH);
  }
  feed({}, Z_FINISH);
  deflateEnd(&zs);
  return out;
}

// One lz4 frame of independent 4 MiB blocks over `prefix` then `zeros` zero bytes.
inline std::vector<std::byte> lz4_bomb(protocol::Bytes prefix, uint64_t zeros) {
  LZ4F_cctx* ctx = nullptr;
  if (LZ4F_isError(LZ4F_createCompressionContext(&ctx, LZ4F_VERSION))) throw std::runtime_error("lz4 context");
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockMode = LZ4F_blockIndependent;
  prefs.frameInfo.blockSizeID = LZ4F_max4MB;
  const std::vector<std::byte> zero_mib(1 << 20);
  std::vector<std::byte> out, buf(LZ4F_compressBound(zero_mib.size(), &prefs) + 64);
  auto append = [&](size_t n) {
    if (LZ4F_isError(n)) throw std::runtime_error("lz4 compress");
    out.insert(out.end(), buf.begin(), buf.begin() + static_cast<ptrdiff_t>(n));
  };
  append(LZ4F_compressBegin(ctx, buf.data(), buf.size(), &prefs));
  append(LZ4F_compressUpdate(ctx, buf.data(), buf.size(), prefix.data(), prefix.size(), nullptr));
  while (zeros > 0) {
    const auto n = std::min<uint64_t>(zeros, zero_mib.size());
    zeros -= n;
    append(LZ4F_compressUpdate(ctx, buf.data(), buf.size(), zero_mib.data(), n, nullptr));
  }
  append(LZ4F_compressEnd(ctx, buf.data(), buf.size(), nullptr));
  LZ4F_freeCompressionContext(ctx);
  return out;
}

// The start of a record whose value is `value_bytes` long (null key, no headers
// once the value ends): the value's bytes are to follow.
inline std::vector<std::byte> long_record_prefix(int32_t value_bytes) {
  protocol::Writer body;
  body.write_int8(0);     // attributes
  body.write_varlong(0);  // timestamp delta
  body.write_varint(0);   // offset delta
  body.write_varint(-1);  // null key
  body.write_varint(value_bytes);
  const auto length = static_cast<int32_t>(body.size() + static_cast<size_t>(value_bytes) + 1);  // + header count
  protocol::Writer w;
  w.write_varint(length);
  w.write_raw(body.owned());
  return std::move(w).take();
}

}  // namespace rokka::testutil
