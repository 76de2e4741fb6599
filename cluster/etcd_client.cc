#include "cluster/etcd_client.h"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/as_tuple.hpp>

#include "cluster/log.h"

namespace rokka::cluster {

namespace asio = boost::asio;

std::shared_ptr<EtcdClient> EtcdClient::create(asio::any_io_executor ex, EtcdClientOptions options) {
  return std::shared_ptr<EtcdClient>(new EtcdClient(std::move(ex), std::move(options)));
}

EtcdClient::EtcdClient(asio::any_io_executor ex, EtcdClientOptions options)
    : executor_(std::move(ex)), options_(std::move(options)) {
  if (options_.endpoints.empty()) options_.endpoints.push_back({"127.0.0.1", "2379"});
}

EtcdClient::~EtcdClient() { shutdown(); }

void EtcdClient::shutdown() {
  shutdown_ = true;
  idle_.clear();
  for (auto& weak : live_) {
    if (auto conn = weak.lock()) conn->close();
  }
  live_.clear();
}

std::shared_ptr<HttpConnection> EtcdClient::take_connection() {
  while (!idle_.empty()) {
    auto conn = std::move(idle_.back());
    idle_.pop_back();
    if (conn->endpoint_index() == current_ && conn->reusable()) return conn;
  }
  auto conn = std::make_shared<HttpConnection>(executor_, options_.endpoints[current_], current_);
  if (live_.size() > 64) std::erase_if(live_, [](const auto& w) { return w.expired(); });
  live_.push_back(conn);
  return conn;
}

void EtcdClient::give_back(std::shared_ptr<HttpConnection> conn) {
  if (shutdown_ || conn->endpoint_index() != current_ || !conn->reusable()) return;
  if (idle_.size() >= options_.max_idle_connections) return;
  idle_.push_back(std::move(conn));
}

void EtcdClient::endpoint_failed(size_t index) {
  if (index != current_ || options_.endpoints.size() < 2) return;
  current_ = (current_ + 1) % options_.endpoints.size();
  ++switches_;
  idle_.clear();
  log().info("etcd endpoint switched: from={} to={}", options_.endpoints[index].to_string(),
             options_.endpoints[current_].to_string());
}

// After every endpoint failed once in a row: wait 25, 50, 100 ... 400 ms (never past the deadline).
asio::awaitable<void> EtcdClient::backoff(int attempt, Clock::time_point deadline) {
  const int n = static_cast<int>(options_.endpoints.size());
  if ((attempt + 1) % n != 0) co_return;
  const int round = std::min((attempt + 1) / n - 1, 4);
  auto wait = std::chrono::milliseconds(25 << round);
  const auto until = std::min(Clock::now() + wait, deadline);
  asio::steady_timer timer(executor_, until);
  co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
}

template <typename T>
asio::awaitable<Result<T>> EtcdClient::call_and_decode(const char* path, std::string body, Retry retry,
                                                       Deadline deadline, Result<T> (*decode)(std::string_view)) {
  auto answer = co_await call(path, std::move(body), retry, deadline);
  if (!answer.ok()) co_return answer.status();
  co_return decode(*answer);
}

asio::awaitable<Result<std::string>> EtcdClient::call(const char* path, std::string body, Retry retry,
                                                      Deadline deadline_opt) {
  auto self = shared_from_this();
  const Clock::time_point deadline = deadline_of(deadline_opt);
  Status last = Status::io_error(std::string("etcd ") + path + ": deadline exceeded before a try");
  for (int attempt = 0;; ++attempt) {
    if (shutdown_) co_return Status::shutdown("etcd client shut down");
    if (Clock::now() >= deadline) co_return last;
    auto conn = take_connection();
    const size_t index = conn->endpoint_index();
    PostOutcome out = co_await conn->post(path, body, deadline, Clock::now() + options_.connect_timeout,
                                          options_.max_response_bytes);
    if (out.answer.ok()) {
      HttpAnswer& answer = *out.answer;
      give_back(std::move(conn));
      if (answer.status == 200) co_return std::move(answer.body);
      GatewayError e = decode_gateway_error(answer.status, answer.body);
      const bool unavailable = e.status.code() == StatusCode::kIoError;
      if (!unavailable) co_return e.status;
      endpoint_failed(index);
      if (!e.no_leader && retry == Retry::kOnlyIfNotApplied) co_return e.status;
      last = e.status;
    } else {
      last = out.answer.status();
      if (last.code() == StatusCode::kTooLarge) co_return last;
      endpoint_failed(index);
      if (out.sent && retry == Retry::kOnlyIfNotApplied) {
        co_return Status::io_error("outcome unknown (the request went out): " + last.message());
      }
    }
    co_await backoff(attempt, deadline);
  }
}

asio::awaitable<Result<RangeResult>> EtcdClient::range(RangeRequest req, Deadline deadline) {
  co_return co_await call_and_decode("/v3/kv/range", encode_range(req), Retry::kIdempotent, deadline, decode_range);
}

asio::awaitable<Result<PutResult>> EtcdClient::put(PutRequest req, Deadline deadline) {
  co_return co_await call_and_decode("/v3/kv/put", encode_put(req), Retry::kOnlyIfNotApplied, deadline, decode_put);
}

asio::awaitable<Result<DeleteResult>> EtcdClient::delete_range(DeleteRequest req, Deadline deadline) {
  co_return co_await call_and_decode("/v3/kv/deleterange", encode_delete(req), Retry::kOnlyIfNotApplied, deadline,
                                     decode_delete);
}

asio::awaitable<Result<TxnResult>> EtcdClient::txn(Txn txn, Deadline deadline) {
  // A txn with no write can be retried like a read.
  bool writes = false;
  for (const auto* branch : {&txn.success, &txn.failure}) {
    for (const TxnOp& op : *branch) writes = writes || !std::holds_alternative<RangeRequest>(op);
  }
  co_return co_await call_and_decode("/v3/kv/txn", encode_txn(txn),
                                     writes ? Retry::kOnlyIfNotApplied : Retry::kIdempotent, deadline, decode_txn);
}

asio::awaitable<Result<ResponseHeader>> EtcdClient::compact(int64_t revision, bool physical, Deadline deadline) {
  co_return co_await call_and_decode("/v3/kv/compaction", encode_compaction(revision, physical), Retry::kIdempotent,
                                     deadline, decode_header_only);
}

asio::awaitable<Result<LeaseGrant>> EtcdClient::lease_grant(int64_t ttl_seconds, Deadline deadline) {
  // Retried freely: a grant whose answer was lost leaves a lease nobody keeps alive; it expires.
  co_return co_await call_and_decode("/v3/lease/grant", encode_lease_grant(ttl_seconds), Retry::kIdempotent, deadline,
                                     decode_lease_grant);
}

asio::awaitable<Result<LeaseKeepAlive>> EtcdClient::lease_keepalive(int64_t id, Deadline deadline) {
  co_return co_await call_and_decode("/v3/lease/keepalive", encode_lease_id(id), Retry::kIdempotent, deadline,
                                     decode_lease_keepalive);
}

asio::awaitable<Status> EtcdClient::lease_revoke(int64_t id, Deadline deadline) {
  auto header = co_await call_and_decode("/v3/lease/revoke", encode_lease_id(id), Retry::kIdempotent, deadline,
                                         decode_header_only);
  co_return header.ok() ? Status() : header.status();
}

asio::awaitable<Result<std::unique_ptr<WatchStream>>> EtcdClient::watch(WatchCreate req, Deadline deadline_opt) {
  auto self = shared_from_this();
  const Clock::time_point deadline = deadline_of(deadline_opt);
  const std::string body = encode_watch_create(req);
  Status last = Status::io_error("etcd watch: deadline exceeded before a try");
  for (int attempt = 0;; ++attempt) {
    if (shutdown_) co_return Status::shutdown("etcd client shut down");
    if (Clock::now() >= deadline) co_return last;
    // A stream holds its connection for as long as it lives: never one from the idle pool.
    auto conn = std::make_shared<HttpConnection>(executor_, options_.endpoints[current_], current_);
    live_.push_back(conn);
    std::string error_body;
    auto status = co_await conn->start_stream("/v3/watch", body, deadline, Clock::now() + options_.connect_timeout,
                                              error_body);
    if (status.ok() && *status == 200) {
      auto stream = std::make_unique<WatchStream>(conn, options_.max_watch_message_bytes);
      auto first = co_await stream->next(deadline);
      if (first.ok() && first->created) {
        stream->set_created_revision(first->header.revision);
        co_return stream;
      }
      last = first.ok() ? Status::malformed("etcd watch: first message is not 'created'") : first.status();
    } else if (status.ok()) {
      GatewayError e = decode_gateway_error(*status, error_body);
      if (e.status.code() != StatusCode::kIoError) co_return e.status;
      last = e.status;
    } else {
      last = status.status();
    }
    endpoint_failed(conn->endpoint_index());
    co_await backoff(attempt, deadline);
  }
}

asio::awaitable<Result<WatchResponse>> WatchStream::next(std::optional<Clock::time_point> deadline) {
  if (closed_) co_return Status::io_error("etcd watch stream closed");
  char chunk[16 * 1024];
  for (;;) {
    const size_t nl = pending_.find('\n');
    if (nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      if (line.empty() || line == "\r") continue;
      auto msg = decode_watch_message(line);
      if (!msg.ok()) close();
      co_return msg;
    }
    if (pending_.size() > max_message_bytes_) {
      close();
      co_return Status::too_large("etcd watch message over " + std::to_string(max_message_bytes_) + " bytes");
    }
    auto got = co_await conn_->read_stream(std::span<char>(chunk, sizeof chunk), deadline);
    if (!got.ok()) {
      close();
      co_return got.status();
    }
    if (*got == 0) {
      close();
      co_return Status::io_error("etcd watch stream ended by " + conn_->endpoint().to_string());
    }
    pending_.append(chunk, *got);
  }
}

void WatchStream::close() {
  if (closed_) return;
  closed_ = true;
  conn_->close();
}

}  // namespace rokka::cluster
