// The JSON forms of etcd's gateway (etcd 3.4, grpc-gateway v1: proto field names as
// written in rpc.proto, bytes as padded base64, 64-bit integers as decimal strings, fields
// at their default value left out, so an absent "succeeded" is false and an event without
// "type" is a PUT). Checked against a real etcd 3.4.23 with curl; docs/cluster.md lists the
// shapes.
//
// Every answer is network input: the caller caps its size before it gets here
// (EtcdClientOptions::max_response_bytes), the parser is rapidjson's iterative one (no
// recursion, whatever the nesting), and every field is type-checked. Anything that does not
// decode is kMalformed; nothing here throws or crashes on hostile bytes.
#pragma once

#include <string>
#include <string_view>

#include "cluster/etcd_types.h"
#include "storage/status.h"

namespace rokka::cluster {

using storage::Result;
using storage::Status;
using storage::StatusCode;

// ---- request bodies ----
std::string encode_range(const RangeRequest& req);
std::string encode_put(const PutRequest& req);
std::string encode_delete(const DeleteRequest& req);
std::string encode_txn(const Txn& txn);
std::string encode_compaction(int64_t revision, bool physical);
std::string encode_lease_grant(int64_t ttl_seconds);
std::string encode_lease_id(int64_t id);  // keepalive, revoke
std::string encode_watch_create(const WatchCreate& req);

// ---- answers with HTTP 200 ----
Result<RangeResult> decode_range(std::string_view body);
Result<PutResult> decode_put(std::string_view body);
Result<DeleteResult> decode_delete(std::string_view body);
Result<TxnResult> decode_txn(std::string_view body);
Result<ResponseHeader> decode_header_only(std::string_view body);  // compaction, revoke
Result<LeaseGrant> decode_lease_grant(std::string_view body);
// The keepalive's one stream message: {"result":{...}} (or {"error":{...}}).
Result<LeaseKeepAlive> decode_lease_keepalive(std::string_view body);
// One line of the watch stream: {"result":{...}} or {"error":{...}}.
Result<WatchResponse> decode_watch_message(std::string_view line);

// ---- errors ----
// gRPC status codes the gateway reports in "code" (google.golang.org/grpc/codes).
enum class GrpcCode : int {
  kOk = 0, kCanceled = 1, kUnknown = 2, kInvalidArgument = 3, kDeadlineExceeded = 4, kNotFound = 5,
  kAlreadyExists = 6, kPermissionDenied = 7, kResourceExhausted = 8, kFailedPrecondition = 9,
  kAborted = 10, kOutOfRange = 11, kUnimplemented = 12, kInternal = 13, kUnavailable = 14,
  kDataLoss = 15, kUnauthenticated = 16,
};
struct GatewayError {
  Status status;          // kOutOfRange: revision compacted; kNotFound: lease not found;
                          // kIoError: unavailable (no leader, timed out, leader changed);
                          // kInvalidArgument: the request itself; kMalformed: no error JSON
  int grpc_code = -1;     // -1 when the body was not the gateway's error JSON
  bool no_leader = false; // "etcdserver: no leader": the request was not applied
};
// A non-200 answer's body: {"error":"...","message":"...","code":N}; `http_status` goes
// into the message.
GatewayError decode_gateway_error(unsigned http_status, std::string_view body);

}  // namespace rokka::cluster
