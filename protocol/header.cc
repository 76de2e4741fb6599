#include "protocol/header.h"

namespace rokka::protocol {

bool decode_request_header(Reader& r, RequestHeader& h) {
  h.api_key = r.read_int16();
  h.api_version = r.read_int16();
  h.correlation_id = r.read_int32();
  h.client_id = r.read_nullable_string(/*compact=*/false);
  if (!r.ok()) return false;
  if (h.api_key < 0 || h.api_key > kMaxApiKey) return false;
  if (request_header_version(h.key(), h.api_version) >= 2) r.skip_tagged_fields();
  return r.ok();
}

void encode_request_header(Writer& w, const RequestHeader& h) {
  w.write_int16(h.api_key);
  w.write_int16(h.api_version);
  w.write_int32(h.correlation_id);
  w.write_nullable_string(h.client_id, false);
  if (request_header_version(h.key(), h.api_version) >= 2) w.write_empty_tagged_fields();
}

void encode_response_header(Writer& w, ApiKey key, int16_t version, int32_t correlation_id) {
  w.write_int32(correlation_id);
  if (response_header_version(key, version) >= 1) w.write_empty_tagged_fields();
}

size_t write_response_prefix(std::span<std::byte, kMaxResponsePrefix> out, ApiKey key, int16_t version,
                             int32_t correlation_id, size_t body_size) {
  const bool tagged = response_header_version(key, version) >= 1;
  const size_t header = 4 + (tagged ? 1 : 0);
  const auto size = static_cast<uint32_t>(header + body_size);
  const auto cid = static_cast<uint32_t>(correlation_id);
  for (int i = 0; i < 4; ++i) {
    out[static_cast<size_t>(i)] = static_cast<std::byte>(size >> (24 - 8 * i));
    out[static_cast<size_t>(4 + i)] = static_cast<std::byte>(cid >> (24 - 8 * i));
  }
  if (tagged) out[8] = std::byte{0};  // an empty tagged-field section
  return 4 + header;
}

size_t write_size_prefix(std::span<std::byte, kMaxResponsePrefix> out, size_t body_size) {
  const auto size = static_cast<uint32_t>(body_size);
  for (int i = 0; i < 4; ++i) out[static_cast<size_t>(i)] = static_cast<std::byte>(size >> (24 - 8 * i));
  return 4;
}

bool decode_response_header(Reader& r, ApiKey key, int16_t version, int32_t& correlation_id) {
  correlation_id = r.read_int32();
  if (response_header_version(key, version) >= 1) r.skip_tagged_fields();
  return r.ok();
}

}  // namespace rokka::protocol
