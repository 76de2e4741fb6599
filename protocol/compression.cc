#include "protocol/compression.h"

#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace rokka::protocol {
namespace {

constexpr size_t kFirstChunk = 64 * 1024;

// Output that grows geometrically but never beyond the caller's bound.
class BoundedOutput {
 public:
  BoundedOutput(std::vector<std::byte>& out, size_t max) : out_(out), max_(max) { out_.clear(); }

  // Makes room after the `used` bytes written so far; false if the bound is reached.
  bool grow() {
    if (out_.size() >= max_) return false;
    const size_t want = out_.empty() ? kFirstChunk : out_.size() * 2;
    out_.resize(std::min(want, max_));
    return true;
  }
  std::byte* at(size_t pos) { return out_.data() + pos; }
  size_t capacity() const { return out_.size(); }
  void finish(size_t used) { out_.resize(used); }

 private:
  std::vector<std::byte>& out_;
  size_t max_;
};

DecompressStatus inflate_gzip(Bytes in, size_t max, std::vector<std::byte>& out) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return DecompressStatus::kMalformed;
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  BoundedOutput o(out, max);
  size_t used = 0;
  for (;;) {
    if (used == o.capacity() && !o.grow()) return DecompressStatus::kTooLarge;
    zs.next_out = reinterpret_cast<Bytef*>(o.at(used));
    zs.avail_out = static_cast<uInt>(o.capacity() - used);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    used = o.capacity() - zs.avail_out;
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      if (inflateReset(&zs) != Z_OK) return DecompressStatus::kMalformed;  // another gzip member follows
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_out != 0) return DecompressStatus::kMalformed;  // input ended early
    if (rc != Z_OK && rc != Z_BUF_ERROR) return DecompressStatus::kMalformed;
  }
  o.finish(used);
  return DecompressStatus::kOk;
}

// One raw snappy block appended to `out` (which already holds `used` bytes).
DecompressStatus unsnappy_block(Bytes in, size_t max, std::vector<std::byte>& out) {
  const char* src = reinterpret_cast<const char*>(in.data());
  size_t n = 0;
  if (snappy_uncompressed_length(src, in.size(), &n) != SNAPPY_OK) return DecompressStatus::kMalformed;
  if (n > max - out.size()) return DecompressStatus::kTooLarge;
  const size_t used = out.size();
  out.resize(used + n);
  size_t got = n;
  if (snappy_uncompress(src, in.size(), reinterpret_cast<char*>(out.data() + used), &got) != SNAPPY_OK || got != n) {
    return DecompressStatus::kMalformed;
  }
  return DecompressStatus::kOk;
}

// The xerial framing of the Java client: an 8-byte magic, int32 version, int32
// minimum compatible version, then blocks of int32 length + raw snappy.
constexpr unsigned char kXerialMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kXerialHeader = 16;

bool is_xerial(Bytes in) {
  return in.size() >= kXerialHeader && std::memcmp(in.data(), kXerialMagic, sizeof kXerialMagic) == 0;
}

DecompressStatus unsnappy(Bytes in, size_t max, std::vector<std::byte>& out) {
  out.clear();
  if (!is_xerial(in)) return unsnappy_block(in, max, out);
  Reader r(in.subspan(kXerialHeader));
  while (r.ok() && r.remaining() > 0) {
    const int32_t n = r.read_int32();
    if (n < 0 || static_cast<size_t>(n) > r.remaining()) return DecompressStatus::kMalformed;
    const DecompressStatus s = unsnappy_block(r.read_raw(static_cast<size_t>(n)), max, out);
    if (s != DecompressStatus::kOk) return s;
  }
  return r.ok() ? DecompressStatus::kOk : DecompressStatus::kMalformed;
}

DecompressStatus unlz4(Bytes in, size_t max, std::vector<std::byte>& out) {
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) return DecompressStatus::kMalformed;
  std::unique_ptr<LZ4F_dctx, size_t (*)(LZ4F_dctx*)> ctx(raw, LZ4F_freeDecompressionContext);
  BoundedOutput o(out, max);
  size_t used = 0, pos = 0, hint = 1;
  while (pos < in.size()) {
    if (used == o.capacity() && !o.grow()) return DecompressStatus::kTooLarge;
    size_t dst = o.capacity() - used, src = in.size() - pos;
    hint = LZ4F_decompress(ctx.get(), o.at(used), &dst, in.data() + pos, &src, nullptr);
    if (LZ4F_isError(hint)) return DecompressStatus::kMalformed;
    used += dst;
    pos += src;
    if (src == 0 && dst == 0 && used < o.capacity()) return DecompressStatus::kMalformed;  // no progress
  }
  // Flush what the context still holds once the input is consumed.
  while (hint != 0) {
    if (used == o.capacity() && !o.grow()) return DecompressStatus::kTooLarge;
    size_t dst = o.capacity() - used, src = 0;
    hint = LZ4F_decompress(ctx.get(), o.at(used), &dst, nullptr, &src, nullptr);
    if (LZ4F_isError(hint)) return DecompressStatus::kMalformed;
    used += dst;
    if (dst == 0 && hint != 0) return DecompressStatus::kMalformed;  // the frame is truncated
  }
  o.finish(used);
  return DecompressStatus::kOk;
}

DecompressStatus unzstd(Bytes in, size_t max, std::vector<std::byte>& out) {
  std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream*)> ds(ZSTD_createDStream(), ZSTD_freeDStream);
  if (!ds || ZSTD_isError(ZSTD_initDStream(ds.get()))) return DecompressStatus::kMalformed;
  BoundedOutput o(out, max);
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  size_t used = 0, hint = 1;
  while (input.pos < input.size || hint != 0) {
    if (used == o.capacity() && !o.grow()) return DecompressStatus::kTooLarge;
    ZSTD_outBuffer output{o.at(0), o.capacity(), used};
    const size_t before_in = input.pos;
    hint = ZSTD_decompressStream(ds.get(), &output, &input);
    if (ZSTD_isError(hint)) return DecompressStatus::kMalformed;
    const bool progressed = output.pos != used || input.pos != before_in;
    used = output.pos;
    if (!progressed && used < o.capacity()) return DecompressStatus::kMalformed;  // truncated frame
  }
  o.finish(used);
  return DecompressStatus::kOk;
}

}  // namespace

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

DecompressStatus decompress(Compression codec, Bytes in, size_t max_output, std::vector<std::byte>& out) {
  switch (codec) {
    case Compression::kNone:
      if (in.size() > max_output) return DecompressStatus::kTooLarge;
      out.assign(in.begin(), in.end());
      return DecompressStatus::kOk;
    case Compression::kGzip: return inflate_gzip(in, max_output, out);
    case Compression::kSnappy: return unsnappy(in, max_output, out);
    case Compression::kLz4: return unlz4(in, max_output, out);
    case Compression::kZstd: return unzstd(in, max_output, out);
  }
  return DecompressStatus::kMalformed;
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
      out.resize(LZ4F_compressFrameBound(in.size(), nullptr));
      const size_t n = LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), nullptr);
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
