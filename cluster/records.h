// The JSON values stored under cluster/keys.h's keys, with their codecs. Values are written
// by other brokers (or an operator with etcdctl): decoding checks every field and its range,
// and a value that does not decode is kMalformed (the view skips that key and says so).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/status.h"

namespace rokka::cluster {

using storage::Result;

inline constexpr size_t kMaxListeners = 64;
inline constexpr int32_t kMaxPartitions = 1'000'000;

// One advertised listener, as Metadata reports it to clients that came in on `name`.
struct Listener {
  std::string name;               // PLAINTEXT, SASL_PLAINTEXT, an operator's name
  std::string host;
  int32_t port = 0;
  std::string security_protocol;  // PLAINTEXT, SASL_PLAINTEXT, ...
  bool operator==(const Listener&) const = default;
};

// <root>/brokers/<id>:
//   {"listeners":[{"name":"PLAINTEXT","host":"h","port":9092,"security_protocol":"PLAINTEXT"}],
//    "rack":null,"incarnation":"<random u64>"}
// Listeners are objects rather than SCALE-OUT's "PLAINTEXT://h:9092" strings, so that no
// reader has to parse URLs. The incarnation tells a restart apart from the same process.
struct BrokerRegistration {
  std::vector<Listener> listeners;
  std::optional<std::string> rack;
  std::string incarnation;
  bool operator==(const BrokerRegistration&) const = default;
};
std::string encode_broker_registration(const BrokerRegistration& reg);
Result<BrokerRegistration> decode_broker_registration(std::string_view json);

// <root>/controller: {"broker":1}
std::string encode_controller(int32_t broker_id);
Result<int32_t> decode_controller(std::string_view json);

// <root>/cluster_id: a JSON string.
std::string encode_cluster_id(std::string_view id);
Result<std::string> decode_cluster_id(std::string_view json);

// <root>/topics/<name>:
//   {"id":"<uuid>","partitions":3,"placement":<any JSON>,"configs":{"retention.ms":"1000"}}
// The placement's schema is the integration's (SCALE-OUT.md §3.2 proposes groups); the view
// keeps it as JSON text.
struct TopicRecord {
  std::string id;                             // Kafka topic id, as the broker formats it
  int32_t partitions = 0;                     // 1 .. kMaxPartitions
  std::string placement = "null";             // JSON text (written as null if it is not JSON)
  std::map<std::string, std::string> configs; // set explicitly on the topic
  bool operator==(const TopicRecord&) const = default;
};
std::string encode_topic(const TopicRecord& topic);
Result<TopicRecord> decode_topic(std::string_view json);

// <root>/producer_id_block: {"next":124000,"broker":1,"nonce":"<random u64>"}
// `next` is the first id not yet handed out. SCALE-OUT.md has a bare number; the writer's
// broker id and a nonce per attempt let an allocator whose CAS answer was lost see, on
// re-reading, whether the block it asked for became its own.
struct ProducerIdBlockRecord {
  int64_t next = 0;
  int32_t broker = -1;
  std::string nonce;
};
std::string encode_producer_id_block(const ProducerIdBlockRecord& rec);
Result<ProducerIdBlockRecord> decode_producer_id_block(std::string_view json);

// <root>/meta/<MetaStore key>: one record of the broker state the brokers share (ACLs, SCRAM
// credentials, dynamic broker configs, client quotas; broker/meta/etcd_shared_meta.h), the
// MetaStore value unchanged, as a JSON string of its bytes in padded base64 ("AAE=" for the
// bytes 00 01; "" for none). Base64 because the values are binary (a SCRAM record, a float64)
// and a JSON string holds only UTF-8.
std::string encode_meta_value(std::string_view bytes);
Result<std::string> decode_meta_value(std::string_view json);

}  // namespace rokka::cluster
