// Connection: one TCP connection to a Kafka broker for wiregen, speaking the wire protocol
// through protocol/ (request header, message codecs). Two ways to use it:
//   - call(): send one request and wait for its response (setup: ApiVersions, Metadata,
//     CreateTopics), every read bounded by a deadline;
//   - the non-blocking primitives (queue(), pump(), next_frame()) for a pipelined loop
//     driven by poll(): the caller queues whole frames, pumps the socket, and takes complete
//     response frames out in order.
// Responses are untrusted: a frame size above kMaxFrame, a closed connection or a frame that
// does not decode is an error with a reason in error(), never a hang or an unbounded allocation.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "protocol/header.h"
#include "protocol/message.h"

namespace rokka::bench::wiregen {

uint64_t monotonic_ns();

class Connection {
 public:
  static constexpr uint32_t kMaxFrame = 256u << 20;

  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Resolves host (numeric or name) and connects within timeout_ms; the socket is then
  // non-blocking with TCP_NODELAY.
  bool connect(const std::string& host, int port, int timeout_ms);
  void close();
  int fd() const { return fd_; }
  const std::string& error() const { return error_; }
  const std::string& peer() const { return peer_; }

  // A request frame: size, header (v1/v2 as the API and version say), body.
  static std::vector<std::byte> frame(protocol::ApiKey key, int16_t version, int32_t correlation_id,
                                      const protocol::Writer& body_writer);

  // The same, encoding `req` straight behind the header (no copy of the body), into the
  // storage of a frame already sent when there is one (spare_).
  template <typename Req>
  std::vector<std::byte> make_frame(const Req& req, int16_t version, int32_t correlation_id) {
    protocol::Writer w(take_spare());
    const auto mark = w.reserve_int32();
    encode_header(w, Req::kApiKey, version, correlation_id);
    protocol::encode(req, w, version);
    w.patch_length(mark);
    return std::move(w).take();
  }
  static void encode_header(protocol::Writer& w, protocol::ApiKey key, int16_t version, int32_t correlation_id);

  // Sends `req` and waits (at most timeout_ms) for the response with the same correlation
  // id; nullopt with error() set otherwise. Only when nothing is pipelined. Views in the
  // response (Records) point into *frame, which the caller must keep while it reads them.
  template <typename Resp, typename Req>
  std::optional<Resp> call(const Req& req, int16_t version, int timeout_ms, std::vector<std::byte>* frame = nullptr) {
    const int32_t cid = next_correlation_id();
    queue(make_frame(req, version, cid));
    std::optional<std::vector<std::byte>> f = wait_frame(timeout_ms);
    if (!f) return std::nullopt;
    std::vector<std::byte> local;
    std::vector<std::byte>& keep = frame ? *frame : local;
    keep = std::move(*f);
    Resp resp;
    if (!decode_response(keep, version, cid, &resp)) return std::nullopt;
    if (!frame) strip_views(resp);
    return resp;
  }

  // Decodes a response frame (without its size) as Resp; checks the correlation id.
  template <typename Resp>
  bool decode_response(const std::vector<std::byte>& f, int16_t version, int32_t cid, Resp* out) {
    protocol::Reader r(f);
    int32_t got = 0;
    if (!protocol::decode_response_header(r, Resp::kApiKey, version, got)) return fail("truncated response header");
    if (got != cid) {
      return fail("response correlation id " + std::to_string(got) + ", expected " + std::to_string(cid));
    }
    if (!protocol::decode(*out, protocol::Bytes(f).subspan(r.position()), version)) {
      return fail("response to api " + std::to_string(static_cast<int>(Resp::kApiKey)) + " v" +
                  std::to_string(version) + " did not decode");
    }
    return true;
  }

  // Responses without views into the frame need nothing; FetchResponse's records do.
  template <typename Resp>
  static void strip_views(Resp&) {}

  int32_t next_correlation_id() { return ++correlation_id_; }

  // Non-blocking side. queue() appends a frame; pump() writes what it can and reads what
  // is there (false once the connection failed: closed, reset, oversized frame);
  // next_frame() takes the oldest complete response frame.
  void queue(std::vector<std::byte> frame);
  bool pump(bool readable, bool writable);
  std::optional<std::vector<std::byte>> next_frame();
  bool want_write() const { return !out_.empty(); }
  // Bytes written since connect (a request is on the wire once this passes its end).
  uint64_t bytes_written() const { return written_total_; }
  uint64_t bytes_queued() const { return queued_total_; }
  // Monotonic time of the last byte read (connect time before any).
  uint64_t last_read_ns() const { return last_read_ns_; }

  bool fail(std::string why) {
    if (error_.empty()) error_ = peer_ + ": " + std::move(why);
    return false;
  }

 private:
  std::optional<std::vector<std::byte>> wait_frame(int timeout_ms);
  // An empty buffer with the capacity of a sent frame, or a new one.
  std::vector<std::byte> take_spare();

  int fd_ = -1;
  std::string peer_;
  std::string error_;
  int32_t correlation_id_ = 0;
  std::deque<std::vector<std::byte>> out_;
  size_t out_pos_ = 0;  // into out_.front()
  // Frames sent, kept for make_frame to encode the next ones into: a loop sending ~1 MiB
  // requests then allocates none, and faults no fresh pages in (freed, they would go back to
  // the kernel). At most kMaxSpare: as many as can be queued at once in a pipelined loop.
  static constexpr size_t kMaxSpare = 16;
  std::vector<std::vector<std::byte>> spare_;
  uint64_t written_total_ = 0;
  uint64_t queued_total_ = 0;
  static constexpr size_t kReadChunk = 64 * 1024;
  std::vector<std::byte> in_;
  size_t in_pos_ = 0;  // unread bytes: [in_pos_, in_end_)
  size_t in_end_ = 0;
  uint64_t last_read_ns_ = 0;
};

}  // namespace rokka::bench::wiregen
