#include "cluster/membership.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "cluster/log.h"
#include "wire/random_id.h"

namespace rokka::cluster {

namespace asio = boost::asio;
using namespace std::chrono_literals;

std::shared_ptr<Membership> Membership::create(std::shared_ptr<EtcdClient> client, Keys keys,
                                               MembershipOptions options) {
  return std::shared_ptr<Membership>(new Membership(std::move(client), std::move(keys), std::move(options)));
}

Membership::Membership(std::shared_ptr<EtcdClient> client, Keys keys, MembershipOptions options)
    : client_(std::move(client)),
      keys_(std::move(keys)),
      options_(std::move(options)),
      run_wake_(client_->executor()),
      keepalive_wake_(client_->executor()),
      fence_changed_(client_->executor()) {
  const auto ttl = std::chrono::duration_cast<std::chrono::milliseconds>(options_.lease_ttl);
  if (options_.fence_margin <= 0ms) options_.fence_margin = ttl / 4;
  if (options_.keepalive_interval <= 0ms) options_.keepalive_interval = ttl / 3;
  if (options_.keepalive_timeout <= 0ms) options_.keepalive_timeout = options_.keepalive_interval;
  incarnation_ = std::to_string(wire::random_u64());
}

Membership::~Membership() = default;

void Membership::start() {
  if (started_) return;
  started_ = true;
  auto self = shared_from_this();
  asio::co_spawn(client_->executor(), [self] { return self->run(); }, asio::detached);
  asio::co_spawn(client_->executor(), [self] { return self->keepalive_loop(); }, asio::detached);
  asio::co_spawn(client_->executor(), [self] { return self->fence_clock(); }, asio::detached);
}

asio::awaitable<void> Membership::stop(bool revoke) {
  auto self = shared_from_this();
  if (stopped_) co_return;
  stopped_ = true;
  run_wake_.notify();
  keepalive_wake_.notify();
  fence_changed_.notify();
  if (waiting_) waiting_->close();
  const int64_t lease = current_lease_;
  if (serving_) fence("stopped");
  fence_deadline_ns_ = 0;
  epoch_ = 0;
  registered_ = false;
  if (revoke && lease != 0) {
    Status s = co_await client_->lease_revoke(lease, Clock::now() + 2s);
    if (!s.ok()) log().warn("broker lease revoke failed: lease={} error={}", lease, s.to_string());
  }
}

Clock::time_point Membership::compute_deadline() const {
  return answered_send_ + std::chrono::seconds(ttl_seconds_) - options_.fence_margin;
}

void Membership::emit(const MembershipEvent& e) {
  for (auto& fn : subscribers_) fn(e);
}

void Membership::fence(std::string reason) {
  fence_deadline_ns_ = 0;
  if (!serving_) return;
  serving_ = false;
  log().warn("broker fenced: broker_id={} epoch={} lease={} reason={}", options_.broker_id, epoch_.load(),
             current_lease_, reason);
  emit({MembershipEvent::Kind::kFenced, epoch_.load(), current_lease_, std::move(reason)});
}

// A keepalive sent at `sent` was answered: etcd's expiry is at least sent + ttl.
void Membership::answered(Clock::time_point sent, int64_t ttl) {
  if (sent > answered_send_) answered_send_ = sent;
  answered_send_ns_ = answered_send_.time_since_epoch().count();
  ttl_seconds_ = ttl;
  if (!registered_) return;
  const Clock::time_point deadline = compute_deadline();
  fence_deadline_ns_ = deadline.time_since_epoch().count();
  fence_changed_.notify();
  if (!serving_ && Clock::now() < deadline) {
    serving_ = true;
    log().info("broker serving: broker_id={} epoch={} lease={}", options_.broker_id, epoch_.load(), current_lease_);
    emit({MembershipEvent::Kind::kServing, epoch_.load(), current_lease_, {}});
  }
}

asio::awaitable<void> Membership::run() {
  auto self = shared_from_this();
  while (!stopped_) {
    const Clock::time_point sent = Clock::now();
    auto grant = co_await client_->lease_grant(options_.lease_ttl.count());
    if (stopped_) break;
    if (!grant.ok()) {
      log().warn("broker lease grant failed: broker_id={} error={}", options_.broker_id, grant.status().to_string());
      co_await run_wake_.wait(Clock::now() + options_.retry_backoff);
      continue;
    }
    current_lease_ = grant->id;
    lease_id_ = grant->id;
    lease_gone_ = false;
    answered_send_ = Clock::time_point{};
    answered(sent, grant->ttl);
    keepalive_wake_.notify();

    const int64_t epoch = co_await register_key(grant->id);
    if (epoch > 0 && !stopped_ && !lease_gone_) {
      epoch_ = epoch;
      registered_ = true;
      log().info("broker registered: broker_id={} epoch={} lease={} incarnation={}", options_.broker_id, epoch,
                 grant->id, incarnation_);
      answered(answered_send_, ttl_seconds_);  // serving now, unless the deadline already passed
      while (!stopped_ && !lease_gone_) co_await run_wake_.wait();
    }
    if (stopped_) break;
    // The lease is gone: whatever it held is deleted, and the next registration is a new epoch.
    fence("lease expired");
    registered_ = false;
    epoch_ = 0;
    current_lease_ = 0;
  }
}

asio::awaitable<int64_t> Membership::register_key(int64_t lease) {
  const std::string key = keys_.broker(options_.broker_id);
  BrokerRegistration reg{options_.listeners, options_.rack, incarnation_};
  reg.replication = options_.replication;
  if (options_.group_hints) reg.groups = options_.group_hints();
  const std::string value = encode_broker_registration(reg);
  while (!stopped_ && !lease_gone_) {
    Txn txn{{Compare::absent(key)}, {PutRequest{key, value, lease}}, {RangeRequest{.key = key}}};
    auto r = co_await client_->txn(std::move(txn));
    if (stopped_ || lease_gone_) break;
    if (!r.ok()) {
      log().warn("broker registration failed: broker_id={} error={}", options_.broker_id, r.status().to_string());
      co_await run_wake_.wait(Clock::now() + options_.retry_backoff);
      continue;
    }
    if (r->succeeded) co_return r->header.revision;
    const auto* seen = r->responses.empty() ? nullptr : std::get_if<RangeResult>(&r->responses[0]);
    if (seen == nullptr || seen->kvs.empty()) continue;  // deleted meanwhile: try again
    const KeyValue& kv = seen->kvs[0];
    if (kv.lease == lease) co_return kv.create_revision;  // an earlier try whose answer was lost
    log().info("broker id held by an earlier incarnation, waiting for its lease to end: broker_id={} lease={}",
               options_.broker_id, kv.lease);
    co_await wait_for_delete(key, r->header.revision + 1);
  }
  co_return 0;
}

// Returns when `key` was deleted, the watch broke, or two TTLs passed (the caller re-checks).
asio::awaitable<void> Membership::wait_for_delete(const std::string& key, int64_t from_revision) {
  const Clock::time_point until = Clock::now() + 2 * options_.lease_ttl + 1s;
  // A named request: GCC 12 mishandles braced temporaries inside co_await expressions.
  WatchCreate req{key, {}, from_revision, false, false};
  auto opened = co_await client_->watch(std::move(req));
  if (!opened.ok()) {
    co_await run_wake_.wait(Clock::now() + options_.retry_backoff);
    co_return;
  }
  waiting_ = std::shared_ptr<WatchStream>(std::move(*opened));
  while (!stopped_ && !lease_gone_) {
    auto msg = co_await waiting_->next(until);
    if (!msg.ok() || msg->canceled) break;
    bool deleted = false;
    for (const WatchEvent& e : msg->events) deleted = deleted || e.type == WatchEvent::Type::kDelete;
    if (deleted) break;
  }
  waiting_->close();
  waiting_.reset();
}

asio::awaitable<void> Membership::keepalive_loop() {
  auto self = shared_from_this();
  Clock::time_point next_send = Clock::now();
  while (!stopped_) {
    const int64_t lease = current_lease_;
    if (lease == 0 || lease_gone_) {
      co_await keepalive_wake_.wait();
      next_send = Clock::now();
      continue;
    }
    if (Clock::now() < next_send) {
      co_await keepalive_wake_.wait(next_send);
      continue;
    }
    if (keepalives_paused_) {
      next_send = Clock::now() + options_.keepalive_interval;
      continue;
    }
    const Clock::time_point sent = Clock::now();
    auto r = co_await client_->lease_keepalive(lease, sent + options_.keepalive_timeout);
    if (stopped_ || lease != current_lease_) continue;
    if (r.ok() && r->ttl > 0) {
      answered(sent, r->ttl);
      next_send = sent + options_.keepalive_interval;
    } else if (r.ok()) {
      log().warn("broker lease expired: broker_id={} lease={}", options_.broker_id, lease);
      lease_gone_ = true;
      fence("lease expired");
      if (waiting_) waiting_->close();
      run_wake_.notify();
    } else {
      log().warn("broker keepalive failed: broker_id={} lease={} error={}", options_.broker_id, lease,
                 r.status().to_string());
      next_send = Clock::now() + std::min(options_.retry_backoff, options_.keepalive_interval);
    }
  }
}

asio::awaitable<void> Membership::fence_clock() {
  auto self = shared_from_this();
  while (!stopped_) {
    co_await fence_changed_.wait(serving_ ? fence_deadline() : Clock::time_point::max());
    if (stopped_) break;
    if (serving_ && fenced()) {
      fence("no keepalive answered within ttl - margin of its sending");
    }
  }
}

}  // namespace rokka::cluster
