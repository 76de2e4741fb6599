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

bool decode_response_header(Reader& r, ApiKey key, int16_t version, int32_t& correlation_id) {
  correlation_id = r.read_int32();
  if (response_header_version(key, version) >= 1) r.skip_tagged_fields();
  return r.ok();
}

}  // namespace rokka::protocol
