// Request header v1/v2 and response header v0/v1, and the frame size check.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "protocol/api_keys.h"
#include "protocol/codec.h"

namespace rokka::protocol {

struct RequestHeader {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string_view> client_id;  // points into the frame

  ApiKey key() const { return static_cast<ApiKey>(api_key); }
};

// Decodes the header at the front of a frame (after the size). The header version
// follows the API and version: v2 (tagged fields) when the request is flexible.
// client_id keeps the classic int16 string form even in v2. False if truncated or
// malformed; the caller closes the connection.
bool decode_request_header(Reader& r, RequestHeader& h);
void encode_request_header(Writer& w, const RequestHeader& h);

// Response header: correlation id, plus an empty tagged-field section in v1.
void encode_response_header(Writer& w, ApiKey key, int16_t version, int32_t correlation_id);
// The bytes that go before an encoded response body of `body_size` bytes: the frame's size,
// then the response header (as encode_response_header writes it). Written into `out`, for a
// connection that sends them and the body's chunks as one scatter-gather write; returns how
// many bytes of `out` they take (8 or 9).
inline constexpr size_t kMaxResponsePrefix = 9;
size_t write_response_prefix(std::span<std::byte, kMaxResponsePrefix> out, ApiKey key, int16_t version,
                             int32_t correlation_id, size_t body_size);
// Only the frame's size (4 bytes; returns 4): a SaslHandshake v0 exchange's raw tokens.
size_t write_size_prefix(std::span<std::byte, kMaxResponsePrefix> out, size_t body_size);
// Decodes a response header (clients and tests).
bool decode_response_header(Reader& r, ApiKey key, int16_t version, int32_t& correlation_id);

// A frame is an int32 size then that many bytes. The smallest valid request
// (api key, version, correlation id, null client id) is 10 bytes.
inline constexpr int32_t kMinRequestFrame = 10;
enum class FrameSizeCheck { kOk, kTooSmall, kTooLarge };
inline FrameSizeCheck check_frame_size(int32_t size, int32_t max_bytes) {
  if (size < kMinRequestFrame) return FrameSizeCheck::kTooSmall;  // includes negatives
  if (size > max_bytes) return FrameSizeCheck::kTooLarge;
  return FrameSizeCheck::kOk;
}

}  // namespace rokka::protocol
