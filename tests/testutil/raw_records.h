// Record bytes written by hand, for malformed shapes (the well-formed ones come from
// RecordBatchBuilder), and a Produce request carrying one partition's records.
#pragma once

#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "protocol/codec.h"
#include "protocol/messages/produce.h"

namespace rokka::testutil {

inline std::vector<std::byte> bytes_of(std::initializer_list<int> b) {
  std::vector<std::byte> out;
  for (int x : b) out.push_back(static_cast<std::byte>(x));
  return out;
}

inline std::vector<std::byte> cat(std::initializer_list<std::vector<std::byte>> parts) {
  std::vector<std::byte> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// A zig-zag varint (varlong: the same encoding for values that fit 32 bits).
inline std::vector<std::byte> varint(int64_t v) {
  protocol::Writer w;
  w.write_varlong(v);
  return std::move(w).take();
}

// A record: attributes 0, timestamp delta 0, `offset_delta`, then `fields` (key,
// value, headers as bytes), behind its true length unless `length` is given.
inline std::vector<std::byte> raw_record(int32_t offset_delta, const std::vector<std::byte>& fields,
                                         std::optional<std::vector<std::byte>> length = std::nullopt) {
  const auto body = cat({bytes_of({0, 0}), varint(offset_delta), fields});
  return cat({length ? *length : varint(static_cast<int64_t>(body.size())), body});
}

// Key "k", value "v", no headers.
inline std::vector<std::byte> good_fields() {
  return cat({varint(1), bytes_of({'k'}), varint(1), bytes_of({'v'}), varint(0)});
}
inline std::vector<std::byte> good_record(int32_t offset_delta) { return raw_record(offset_delta, good_fields()); }

// acks=all, partition 0 of `topic` carrying `records` (which must outlive the request).
inline protocol::ProduceRequest produce_request(std::string_view topic, const std::vector<std::byte>& records,
                                                std::optional<std::string_view> transactional_id = std::nullopt) {
  protocol::ProduceRequest req;
  req.transactional_id = transactional_id;
  req.acks = -1;
  req.timeout_ms = 10000;
  auto& t = req.topic_data.emplace_back();
  t.name = topic;
  t.partition_data.emplace_back().records.data = protocol::Bytes(records);
  return req;
}

}  // namespace rokka::testutil
