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
inline constexpr size_t kMaxGroupMembers = 64;      // members of one replication group (its replication factor)
inline constexpr size_t kMaxGroupHints = 1024;      // groups one registration publishes hints for
inline constexpr int32_t kNoLeader = -1;

// One advertised listener, as Metadata reports it to clients that came in on `name`.
struct Listener {
  std::string name;               // PLAINTEXT, SASL_PLAINTEXT, an operator's name
  std::string host;
  int32_t port = 0;
  std::string security_protocol;  // PLAINTEXT, SASL_PLAINTEXT, ...
  bool operator==(const Listener&) const = default;
};

// Where a group member's replication stream listens (rokka.replication.advertised.listener).
struct ReplicationEndpoint {
  std::string host;
  int32_t port = 0;  // 1 .. 65535
  bool operator==(const ReplicationEndpoint&) const = default;
};

// What a broker's group store held when it registered: the election at bootstrap and an
// unclean election read it (cluster/group_decisions.h). A hint, never updated while the
// registration lives.
struct GroupHint {
  int32_t last_epoch = -1;  // the newest epoch in the store's log, -1 if none
  int64_t log_end = 0;
  bool operator==(const GroupHint&) const = default;
};

// <root>/brokers/<id>:
//   {"listeners":[{"name":"PLAINTEXT","host":"h","port":9092,"security_protocol":"PLAINTEXT"}],
//    "rack":null,"incarnation":"<random u64>",
//    "replication":{"host":"h","port":9093},"groups":{"g1":{"last_epoch":5,"log_end":1234}}}
// Listeners are objects rather than SCALE-OUT's "PLAINTEXT://h:9092" strings, so that no
// reader has to parse URLs. The incarnation tells a restart apart from the same process.
// "replication" and "groups" are written only by a member of a replication group, and read
// as absent when missing or null: a registration without them (an older broker's) decodes.
struct BrokerRegistration {
  std::vector<Listener> listeners;
  std::optional<std::string> rack;
  std::string incarnation;
  std::optional<ReplicationEndpoint> replication;
  std::map<std::string, GroupHint, std::less<>> groups;  // by group name (keys.h valid_group_name)
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

// <root>/groups/<g>/spec: {"members":[1,2,3]}
// The group's brokers, in order: the order breaks ties in elections (cluster/group_decisions.h).
// 1 .. kMaxGroupMembers ids, each >= 0, no id twice.
struct GroupSpec {
  std::vector<int32_t> members;
  bool operator==(const GroupSpec&) const = default;
};
std::string encode_group_spec(const GroupSpec& spec);
Result<GroupSpec> decode_group_spec(std::string_view json);

// <root>/groups/<g>/state:
//   {"leader":1,"leader_broker_epoch":812,"epoch":42,"sss":[1,2,3],"sss_version":7}
// `leader` is kNoLeader (-1) while the group is offline. `leader_broker_epoch` is the leader's
// registration create_revision when it was named: a leader that restarted (a new
// registration, a new broker epoch) is not the one named, and knows it. `epoch` is the group
// (leader) epoch, from the cluster-wide counter. `sss` is the synchronous replica set (ISR):
// the members whose acks count; a leader is always in it. `sss_version` counts its changes.
// Missing leader_broker_epoch and sss_version read as 0 (SCALE-OUT §3.2's form has neither);
// leader, epoch and sss are required. Ids >= 0, none twice, at most kMaxGroupMembers.
struct GroupState {
  int32_t leader = kNoLeader;
  int64_t leader_broker_epoch = 0;
  int32_t epoch = 0;
  std::vector<int32_t> sss;
  int64_t sss_version = 0;
  bool operator==(const GroupState&) const = default;
};
std::string encode_group_state(const GroupState& state);
Result<GroupState> decode_group_state(std::string_view json);

// <root>/epoch: 42 (a JSON number, 0 .. INT32_MAX): the highest group epoch handed out.
std::string encode_epoch_counter(int32_t epoch);
Result<int32_t> decode_epoch_counter(std::string_view json);

// <root>/meta/<MetaStore key>: one record of the broker state the brokers share (ACLs, SCRAM
// credentials, dynamic broker configs, client quotas; broker/meta/etcd_shared_meta.h), the
// MetaStore value unchanged, as a JSON string of its bytes in padded base64 ("AAE=" for the
// bytes 00 01; "" for none). Base64 because the values are binary (a SCRAM record, a float64)
// and a JSON string holds only UTF-8.
std::string encode_meta_value(std::string_view bytes);
Result<std::string> decode_meta_value(std::string_view json);

}  // namespace rokka::cluster
