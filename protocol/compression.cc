#include "protocol/compression.h"

#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace rokka::protocol {
namespace {

// A snappy block buffer above this is given back once its section is done.
constexpr size_t kKeptBlockBytes = 8u << 20;
// Snappy's densest element is a 3-byte copy of 64 bytes: a block inflates at most
// 64/3 times (plus its length varint); a larger claim cannot be true.
constexpr size_t kSnappyMaxRatio = 22;

// The xerial framing of the Java client: an 8-byte magic, int32 version, int32
// minimum compatible version, then blocks of int32 length + raw snappy.
constexpr unsigned char kXerialMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kXerialHeader = 16;

bool is_xerial(Bytes in) {
  return in.size() >= kXerialHeader && std::memcmp(in.data(), kXerialMagic, sizeof kXerialMagic) == 0;
}

int32_t load_be32(const std::byte* p) {
  return static_cast<int32_t>(std::to_integer<uint32_t>(p[0]) << 24 | std::to_integer<uint32_t>(p[1]) << 16 |
                              std::to_integer<uint32_t>(p[2]) << 8 | std::to_integer<uint32_t>(p[3]));
}

}  // namespace

struct Decompressor::State {
  explicit State(size_t chunk) : chunk_bytes(chunk) {}
  const size_t chunk_bytes;  // what gzip, lz4 and zstd inflate into per next()
  Compression codec = Compression::kNone;
  Bytes in;
  size_t pos = 0;     // next input byte
  size_t budget = 0;  // output bytes still allowed (snappy checks it before allocating)
  bool done = false;
  bool header_read = false;  // lz4: the frame descriptor was checked

  std::vector<std::byte> chunk;  // gzip, lz4, zstd output
  std::vector<std::byte> block;  // one inflated snappy block

  z_stream* zs = nullptr;
  LZ4F_dctx* lz4 = nullptr;
  ZSTD_DStream* zstd = nullptr;

  ~State() {
    if (zs) {
      inflateEnd(zs);
      delete zs;
    }
    if (lz4) LZ4F_freeDecompressionContext(lz4);
    if (zstd) ZSTD_freeDStream(zstd);
  }

  // Prepares the codec's context for a new section; false if it cannot be made.
  bool reset() {
    switch (codec) {
      case Compression::kNone:
      case Compression::kSnappy:
        if (block.capacity() > kKeptBlockBytes) std::vector<std::byte>().swap(block);
        return true;
      case Compression::kGzip:
        if (!zs) {
          zs = new z_stream{};
          if (inflateInit2(zs, 16 + MAX_WBITS) != Z_OK) {  // gzip wrapper only, as GZIPInputStream
            delete zs;
            zs = nullptr;
            return false;
          }
        } else if (inflateReset(zs) != Z_OK) {
          return false;
        }
        zs->next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
        zs->avail_in = static_cast<uInt>(in.size());
        return true;
      case Compression::kLz4:
        if (!lz4 && LZ4F_isError(LZ4F_createDecompressionContext(&lz4, LZ4F_VERSION))) {
          lz4 = nullptr;
          return false;
        }
        LZ4F_resetDecompressionContext(lz4);
        header_read = false;
        return true;
      case Compression::kZstd:
        if (!zstd) {
          zstd = ZSTD_createDStream();
          if (!zstd) return false;
          if (ZSTD_isError(ZSTD_DCtx_setParameter(zstd, ZSTD_d_windowLogMax, std::countr_zero(kMaxZstdWindowBytes))))
            return false;
        }
        return !ZSTD_isError(ZSTD_DCtx_reset(zstd, ZSTD_reset_session_only));
    }
    return false;
  }

  Bytes next(DecompressStatus& st) {
    if (done) return {};
    switch (codec) {
      case Compression::kNone:
        done = true;
        return in;
      case Compression::kGzip: return next_gzip(st);
      case Compression::kSnappy: return next_snappy(st);
      case Compression::kLz4: return next_lz4(st);
      case Compression::kZstd: return next_zstd(st);
    }
    st = DecompressStatus::kMalformed;
    return {};
  }

  std::byte* chunk_data() {
    if (chunk.size() < chunk_bytes) chunk.resize(chunk_bytes);
    return chunk.data();
  }

  Bytes next_gzip(DecompressStatus& st) {
    zs->next_out = reinterpret_cast<Bytef*>(chunk_data());
    zs->avail_out = static_cast<uInt>(chunk_bytes);
    while (zs->avail_out > 0) {
      const int rc = inflate(zs, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        done = true;
        // A second member (or anything) after the first: librdkafka stops at the
        // first member's end, so its consumers would miss whatever follows.
        if (zs->avail_in != 0) st = DecompressStatus::kUnsupported;
        break;
      }
      if (rc != Z_OK) {  // Z_BUF_ERROR here: the input ended inside the member
        st = DecompressStatus::kMalformed;
        return {};
      }
    }
    if (st != DecompressStatus::kOk) return {};
    return Bytes(chunk).first(chunk_bytes - zs->avail_out);
  }

  Bytes next_snappy(DecompressStatus& st) {
    const bool xerial = is_xerial(in);
    if (xerial && pos == 0) pos = kXerialHeader;
    for (;;) {
      Bytes compressed;
      if (!xerial) {
        compressed = in;  // one raw block: librdkafka's producer
        done = true;
      } else {
        if (pos == in.size()) {
          done = true;
          return {};
        }
        const int32_t n = in.size() - pos >= 4 ? load_be32(in.data() + pos) : -1;
        if (n < 0 || static_cast<size_t>(n) > in.size() - pos - 4) {
          st = DecompressStatus::kMalformed;
          return {};
        }
        compressed = in.subspan(pos + 4, static_cast<size_t>(n));
        pos += 4 + static_cast<size_t>(n);
      }
      const char* src = reinterpret_cast<const char*>(compressed.data());
      size_t n = 0;
      if (snappy_uncompressed_length(src, compressed.size(), &n) != SNAPPY_OK ||
          n > compressed.size() * kSnappyMaxRatio) {
        st = DecompressStatus::kMalformed;
        return {};
      }
      if (n > budget) {
        st = DecompressStatus::kTooLarge;
        return {};
      }
      block.resize(n);
      size_t got = n;
      if (snappy_uncompress(src, compressed.size(), reinterpret_cast<char*>(block.data()), &got) != SNAPPY_OK ||
          got != n) {
        st = DecompressStatus::kMalformed;
        return {};
      }
      if (n > 0) return Bytes(block).first(n);
      if (done) return {};
    }
  }

  Bytes next_lz4(DecompressStatus& st) {
    if (!header_read) {
      // The Java client reads only a frame of independent blocks (linked blocks and
      // skippable frames fail there); check the descriptor before any block.
      LZ4F_frameInfo_t info{};
      size_t consumed = in.size();
      if (LZ4F_isError(LZ4F_getFrameInfo(lz4, &info, in.data(), &consumed))) {
        st = DecompressStatus::kMalformed;
        return {};
      }
      if (info.frameType != LZ4F_frame || info.blockMode != LZ4F_blockIndependent) {
        st = DecompressStatus::kUnsupported;
        return {};
      }
      pos = consumed;
      header_read = true;
    }
    std::byte* out = chunk_data();
    size_t produced = 0;
    while (produced < chunk_bytes && !done) {
      size_t dst = chunk_bytes - produced, src = in.size() - pos;
      const size_t hint = LZ4F_decompress(lz4, out + produced, &dst, in.data() + pos, &src, nullptr);
      if (LZ4F_isError(hint)) {
        st = DecompressStatus::kMalformed;
        return {};
      }
      produced += dst;
      pos += src;
      if (hint == 0) {
        done = true;
        // The Java client stops at the end of the first frame.
        if (pos != in.size()) st = DecompressStatus::kUnsupported;
      } else if (dst == 0 && src == 0) {
        st = DecompressStatus::kMalformed;  // the input ended inside the frame
      }
      if (st != DecompressStatus::kOk) return {};
    }
    return Bytes(chunk).first(produced);
  }

  Bytes next_zstd(DecompressStatus& st) {
    ZSTD_inBuffer input{in.data(), in.size(), pos};
    ZSTD_outBuffer output{chunk_data(), chunk_bytes, 0};
    while (output.pos < output.size) {
      const size_t in_before = input.pos, out_before = output.pos;
      const size_t hint = ZSTD_decompressStream(zstd, &output, &input);
      if (ZSTD_isError(hint)) {
        st = ZSTD_getErrorCode(hint) == ZSTD_error_frameParameter_windowTooLarge ? DecompressStatus::kUnsupported
                                                                                 : DecompressStatus::kMalformed;
        return {};
      }
      if (hint == 0 && input.pos == input.size) {  // the last frame is complete and flushed
        done = true;
        break;
      }
      if (input.pos == in_before && output.pos == out_before) {  // the input ended inside a frame
        st = DecompressStatus::kMalformed;
        return {};
      }
    }
    pos = input.pos;
    return Bytes(chunk).first(output.pos);
  }
};

Decompressor::Decompressor(size_t chunk_bytes) : state_(std::make_unique<State>(std::max<size_t>(1, chunk_bytes))) {}
Decompressor::~Decompressor() = default;

void Decompressor::start(Compression codec, Bytes in, size_t max_output) {
  State& s = *state_;
  s.codec = codec;
  s.in = in;
  s.pos = 0;
  s.budget = max_output;
  s.done = false;
  produced_ = 0;
  status_ = s.reset() ? DecompressStatus::kOk : DecompressStatus::kMalformed;
}

Bytes Decompressor::next() {
  if (status_ != DecompressStatus::kOk) return {};
  const Bytes b = state_->next(status_);
  if (status_ != DecompressStatus::kOk) return {};
  if (b.size() > state_->budget) {
    status_ = DecompressStatus::kTooLarge;
    return {};
  }
  state_->budget -= b.size();
  produced_ += b.size();
  return b;
}

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::kNone: return "none";
    case Compression::kGzip: return "gzip";
    case Compression::kSnappy: return "snappy";
    case Compression::kLz4: return "lz4";
    case Compression::kZstd: return "zstd";
  }
  return "unknown";
}

const char* decompress_status_name(DecompressStatus s) {
  switch (s) {
    case DecompressStatus::kOk: return "ok";
    case DecompressStatus::kMalformed: return "not valid data for its codec";
    case DecompressStatus::kTooLarge: return "larger than allowed once decompressed";
    case DecompressStatus::kUnsupported: return "in a framing Kafka's clients cannot read";
  }
  return "unknown";
}

DecompressStatus decompress(Compression codec, Bytes in, size_t max_output, std::vector<std::byte>& out) {
  out.clear();
  Decompressor d;
  d.start(codec, in, max_output);
  for (Bytes b = d.next(); !b.empty(); b = d.next()) {
    const size_t need = out.size() + b.size();  // <= max_output: the decompressor's bound
    if (need > out.capacity()) out.reserve(std::min(max_output, std::max(need, 2 * out.capacity())));
    out.insert(out.end(), b.begin(), b.end());
  }
  return d.status();
}

bool compress(Compression codec, Bytes in, std::vector<std::byte>& out) {
  switch (codec) {
    case Compression::kNone:
      out.assign(in.begin(), in.end());
      return true;
    case Compression::kGzip: {
      z_stream zs{};
      if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        return false;
      }
      out.resize(deflateBound(&zs, static_cast<uLong>(in.size())) + 32);  // + the gzip header and trailer
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
      zs.avail_in = static_cast<uInt>(in.size());
      zs.next_out = reinterpret_cast<Bytef*>(out.data());
      zs.avail_out = static_cast<uInt>(out.size());
      const int rc = deflate(&zs, Z_FINISH);
      out.resize(zs.total_out);
      deflateEnd(&zs);
      return rc == Z_STREAM_END;
    }
    case Compression::kSnappy: {
      size_t n = snappy_max_compressed_length(in.size());
      out.resize(n);
      const bool ok = snappy_compress(reinterpret_cast<const char*>(in.data()), in.size(),
                                      reinterpret_cast<char*>(out.data()), &n) == SNAPPY_OK;
      out.resize(n);
      return ok;
    }
    case Compression::kLz4: {
      LZ4F_preferences_t prefs{};
      prefs.frameInfo.blockMode = LZ4F_blockIndependent;
      out.resize(LZ4F_compressFrameBound(in.size(), &prefs));
      const size_t n = LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs);
      if (LZ4F_isError(n)) return false;
      out.resize(n);
      return true;
    }
    case Compression::kZstd: {
      out.resize(ZSTD_compressBound(in.size()));
      const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
      if (ZSTD_isError(n)) return false;
      out.resize(n);
      return true;
    }
  }
  return false;
}

}  // namespace rokka::protocol
