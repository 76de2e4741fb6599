// Request/response encode and decode for any message type in protocol/messages/.
// A message type declares its API and its fields once:
//
//   struct HeartbeatRequest {
//     static constexpr ApiKey kApiKey = ApiKey::kHeartbeat;
//     std::string_view group_id;
//     int32_t generation_id = -1;
//     ...
//     template <class M, class S> static void fields(M& m, S& s) {
//       s.str(m.group_id);
//       s.i32(m.generation_id);
//       if (s.version >= 3) s.nstr(m.group_instance_id);
//       s.tags();
//     }
//   };
//
// Requests hold string_views into the frame (zero-copy decode; the frame outlives
// the request). Responses may hold std::string where the broker builds values.
#pragma once

#include "protocol/api_keys.h"
#include "protocol/codec.h"

namespace rokka::protocol {

// Decodes a whole body: every field must decode and no byte may be left over.
template <typename M>
bool decode(M& m, Bytes body, int16_t version) {
  Reader r(body);
  return decode_message(m, r, version, is_flexible(M::kApiKey, version)) && r.at_end();
}

// Decodes a request body as Kafka's brokers read one: every field, in order, must decode;
// bytes after the last field are left unread, not an error (Kafka never checks that a
// request was consumed). Clients rely on it: librdkafka 2.14.2 writes the null topics
// array of an all-topics Metadata v12 request as four zero bytes, and librdkafka before
// 2.1 writes a flexible ListGroups request's empty tagged-field section twice.
template <typename M>
bool decode_request(M& m, Bytes body, int16_t version) {
  Reader r(body);
  return decode_message(m, r, version, is_flexible(M::kApiKey, version)) && r.ok();
}

template <typename M>
void encode(const M& m, Writer& w, int16_t version) {
  encode_message(m, w, version, is_flexible(M::kApiKey, version));
}

// encode(), and where `field` (an int32 member of `m`, e.g. throttle_time_ms) was
// written, to be patched later with Writer::patch_int32; nullopt if not at `version`.
template <typename M>
std::optional<Writer::Mark> encode_marking(const M& m, Writer& w, int16_t version, const int32_t& field) {
  return encode_message_marking(m, w, version, is_flexible(M::kApiKey, version), field);
}

template <typename M>
std::vector<std::byte> encode_to_bytes(const M& m, int16_t version) {
  Writer w;
  encode(m, w, version);
  return std::move(w).take();
}

}  // namespace rokka::protocol
