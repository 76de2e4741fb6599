// EtcdClient: the etcd v3 API over etcd's JSON gateway (POST /v3/kv/range, /v3/kv/put,
// /v3/kv/deleterange, /v3/kv/txn, /v3/kv/compaction, /v3/lease/grant, /v3/lease/keepalive,
// /v3/lease/revoke, /v3/watch), on asio coroutines and Boost.Beast. docs/cluster.md says why
// this and not gRPC, with the measurement.
//
// - Deadlines: every call has one (default now + request_timeout) on the steady clock; it
//   bounds connecting, retrying and reading. Past it the call fails with kIoError.
// - Endpoints: several (rokka.cluster.etcd.endpoints). The client talks to one at a time
//   and moves to the next when a connection fails, a deadline passes on it, or it answers
//   "no leader" / unavailable. Reads, lease calls and watches retry on the next endpoint
//   within the deadline. A mutation (put, delete, txn) is retried only if it surely did not
//   apply (the request never went out, or the member said "no leader"); otherwise it fails
//   with kIoError "outcome unknown" and the caller re-reads (compare-guarded writes make that
//   safe: a txn that did apply shows in its key's revision).
// - Connections: a request takes an idle keep-alive connection to the current endpoint or
//   opens one, so concurrent calls never queue behind each other (a lease keepalive never
//   waits for a slow range). At most max_idle_connections stay open when idle.
// - Sizes: an answer's body is capped at max_response_bytes before it is parsed; a watch
//   message at max_watch_message_bytes. Over the cap = kTooLarge (use limit/paging).
// - Errors: kOutOfRange = the revision was compacted (ErrCompacted: re-read), kNotFound = no
//   such lease, kIoError = unavailable / deadline / transport, kInvalidArgument = etcd refused
//   the request, kMalformed = an answer that does not decode, kShutdown after shutdown().
//
// GCC 12 bug: an aggregate built in the co_await expression itself, as in
// `co_await client->put({.key = k, .value = v})` or `co_await client->txn(Txn{...})`, is
// destroyed twice (ASan: "attempting free on address which was not malloc()-ed"). Name the
// request first (`PutRequest req{...}; co_await client->put(std::move(req));`). Outside
// coroutines (tests calling through IoThread::run) the braced form is fine.
//
// Threading: create, call and destroy on one executor (an io_context run by one thread, or
// a strand). Coroutines keep the client alive (shared_from_this) while they run.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/etcd_json.h"
#include "cluster/etcd_types.h"
#include "cluster/http_connection.h"

namespace rokka::cluster {

struct EtcdClientOptions {
  std::vector<Endpoint> endpoints;
  std::chrono::milliseconds request_timeout{2000};
  std::chrono::milliseconds connect_timeout{500};  // per connection attempt, within the deadline
  size_t max_response_bytes = 8u << 20;
  size_t max_watch_message_bytes = 8u << 20;
  size_t max_idle_connections = 4;
};

class WatchStream;

class EtcdClient : public std::enable_shared_from_this<EtcdClient> {
 public:
  using Deadline = std::optional<Clock::time_point>;  // nullopt: now + request_timeout

  static std::shared_ptr<EtcdClient> create(boost::asio::any_io_executor ex, EtcdClientOptions options);
  ~EtcdClient();

  boost::asio::awaitable<Result<RangeResult>> range(RangeRequest req, Deadline deadline = {});
  boost::asio::awaitable<Result<PutResult>> put(PutRequest req, Deadline deadline = {});
  boost::asio::awaitable<Result<DeleteResult>> delete_range(DeleteRequest req, Deadline deadline = {});
  boost::asio::awaitable<Result<TxnResult>> txn(Txn txn, Deadline deadline = {});
  boost::asio::awaitable<Result<ResponseHeader>> compact(int64_t revision, bool physical, Deadline deadline = {});

  boost::asio::awaitable<Result<LeaseGrant>> lease_grant(int64_t ttl_seconds, Deadline deadline = {});
  // One keepalive round trip (the gateway's stream carries one request and one answer).
  boost::asio::awaitable<Result<LeaseKeepAlive>> lease_keepalive(int64_t id, Deadline deadline = {});
  boost::asio::awaitable<Status> lease_revoke(int64_t id, Deadline deadline = {});

  // Opens a watch stream (rotating endpoints until `deadline`) and waits for its "created"
  // answer. For a start_revision that was compacted, the stream's first next() reports it.
  boost::asio::awaitable<Result<std::unique_ptr<WatchStream>>> watch(WatchCreate req, Deadline deadline = {});

  // Closes every connection, idle or busy (their calls fail); later calls fail with kShutdown.
  void shutdown();

  const EtcdClientOptions& options() const { return options_; }
  boost::asio::any_io_executor executor() const { return executor_; }
  // The endpoint requests go to now.
  const Endpoint& current_endpoint() const { return options_.endpoints[current_]; }
  uint64_t endpoint_switches() const { return switches_; }

 private:
  EtcdClient(boost::asio::any_io_executor ex, EtcdClientOptions options);

  enum class Retry { kIdempotent, kOnlyIfNotApplied };
  boost::asio::awaitable<Result<std::string>> call(const char* path, std::string body, Retry retry,
                                                   Deadline deadline);
  // call(), then the answer's decoder.
  template <typename T>
  boost::asio::awaitable<Result<T>> call_and_decode(const char* path, std::string body, Retry retry, Deadline deadline,
                                                    Result<T> (*decode)(std::string_view));
  std::shared_ptr<HttpConnection> take_connection();
  void give_back(std::shared_ptr<HttpConnection> conn);
  void endpoint_failed(size_t index);
  boost::asio::awaitable<void> backoff(int attempt, Clock::time_point deadline);
  Clock::time_point deadline_of(Deadline d) const { return d ? *d : Clock::now() + options_.request_timeout; }

  boost::asio::any_io_executor executor_;
  EtcdClientOptions options_;
  size_t current_ = 0;
  uint64_t switches_ = 0;
  bool shutdown_ = false;
  std::vector<std::shared_ptr<HttpConnection>> idle_;
  std::vector<std::weak_ptr<HttpConnection>> live_;  // every connection made, to close on shutdown
};

// One watch stream: messages in revision order until the stream breaks.
class WatchStream {
 public:
  WatchStream(std::shared_ptr<HttpConnection> conn, size_t max_message_bytes)
      : conn_(std::move(conn)), max_message_bytes_(max_message_bytes) {}
  ~WatchStream() { close(); }

  // The next message (events, a progress notice, or canceled + compact_revision).
  // kIoError when the stream broke or ended, kTooLarge for a message over the cap, kMalformed
  // for one that does not decode: the stream is closed after any error.
  boost::asio::awaitable<Result<WatchResponse>> next(std::optional<Clock::time_point> deadline = std::nullopt);
  void close();
  const Endpoint& endpoint() const { return conn_->endpoint(); }
  // The store revision when the watch was created (its "created" answer's header).
  int64_t created_revision() const { return created_revision_; }
  void set_created_revision(int64_t r) { created_revision_ = r; }

 private:
  std::shared_ptr<HttpConnection> conn_;
  int64_t created_revision_ = 0;
  size_t max_message_bytes_;
  std::string pending_;  // bytes after the last complete line
  bool closed_ = false;
};

}  // namespace rokka::cluster
