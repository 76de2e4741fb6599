// The etcd v3 messages Rokka uses, as plain structs (etcd-io/etcd v3.4
// etcdserver/etcdserverpb/rpc.proto and mvcc/mvccpb/kv.proto name the fields).
// Keys and values are raw bytes here; cluster/etcd_json.* turns them into the JSON
// gateway's form (base64, int64 as decimal strings) and back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace rokka::cluster {

// Every answer's header. `revision` is the store revision when the request was applied.
struct ResponseHeader {
  uint64_t cluster_id = 0;
  uint64_t member_id = 0;
  int64_t revision = 0;
  uint64_t raft_term = 0;
};

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;  // revision of the put that created the key (since its last delete)
  int64_t mod_revision = 0;     // revision of its last put
  int64_t version = 0;          // puts since creation; 0 = deleted
  int64_t lease = 0;            // 0 = no lease
};

// The end of the range that holds every key starting with `prefix` (etcd's "prefix + 1").
// An empty or all-0xff prefix gets "\0": every key from `prefix` on.
std::string prefix_range_end(const std::string& prefix);

struct RangeRequest {
  std::string key;
  std::string range_end;      // empty: only `key`
  int64_t revision = 0;       // 0: the newest
  int64_t limit = 0;          // 0: no limit
  bool keys_only = false;
  bool count_only = false;
  bool serializable = false;  // member-local read (never for decisions: SCALE-OUT §1.3)
};
struct RangeResult {
  ResponseHeader header;
  std::vector<KeyValue> kvs;
  bool more = false;  // a limit cut the answer short
  int64_t count = 0;  // keys in the range
};

struct PutRequest {
  std::string key;
  std::string value;
  int64_t lease = 0;
  bool prev_kv = false;
};
struct PutResult {
  ResponseHeader header;
  std::optional<KeyValue> prev_kv;
};

struct DeleteRequest {
  std::string key;
  std::string range_end;
  bool prev_kv = false;
};
struct DeleteResult {
  ResponseHeader header;
  int64_t deleted = 0;
  std::vector<KeyValue> prev_kvs;
};

// One predicate of a transaction. The helpers build the ones Rokka uses.
struct Compare {
  enum class Target { kVersion, kCreate, kMod, kValue, kLease };
  enum class Op { kEqual, kGreater, kLess, kNotEqual };
  std::string key;
  Target target = Target::kCreate;
  Op op = Op::kEqual;
  int64_t number = 0;   // version, create/mod revision or lease
  std::string value;    // kValue only

  static Compare absent(std::string key) { return {std::move(key), Target::kCreate, Op::kEqual, 0, {}}; }
  static Compare created_at(std::string key, int64_t revision) {
    return {std::move(key), Target::kCreate, Op::kEqual, revision, {}};
  }
  static Compare modified_at(std::string key, int64_t revision) {
    return {std::move(key), Target::kMod, Op::kEqual, revision, {}};
  }
  static Compare value_is(std::string key, std::string value) {
    return {std::move(key), Target::kValue, Op::kEqual, 0, std::move(value)};
  }
};

using TxnOp = std::variant<RangeRequest, PutRequest, DeleteRequest>;
struct Txn {
  std::vector<Compare> compare;  // all must hold
  std::vector<TxnOp> success;    // applied when they do
  std::vector<TxnOp> failure;    // applied when one does not
};
using TxnOpResult = std::variant<RangeResult, PutResult, DeleteResult>;
struct TxnResult {
  ResponseHeader header;  // header.revision: the txn's revision when it wrote
  bool succeeded = false;
  std::vector<TxnOpResult> responses;  // one per op of the branch that ran
};

struct LeaseGrant {
  ResponseHeader header;
  int64_t id = 0;
  int64_t ttl = 0;  // seconds, as the server granted it (its minimum may raise it)
};
// A keepalive answer: ttl 0 means the lease no longer exists.
struct LeaseKeepAlive {
  ResponseHeader header;
  int64_t id = 0;
  int64_t ttl = 0;
};

struct WatchCreate {
  std::string key;
  std::string range_end;
  int64_t start_revision = 0;  // 0: from now
  bool prev_kv = false;
  bool progress_notify = true;
};
struct WatchEvent {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  KeyValue kv;  // for a delete: key and mod_revision (the delete's revision) only
  std::optional<KeyValue> prev_kv;
};
struct WatchResponse {
  ResponseHeader header;
  int64_t watch_id = 0;
  bool created = false;
  bool canceled = false;
  int64_t compact_revision = 0;  // set (with canceled) when start_revision was compacted away
  std::string cancel_reason;
  std::vector<WatchEvent> events;  // revision order
};

}  // namespace rokka::cluster
