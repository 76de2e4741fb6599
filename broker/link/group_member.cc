#include "broker/link/group_member.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/logging.h"
#include "cluster/group_decisions.h"
#include "cluster/replication_client.h"
#include "cluster/replication_io.h"
#include "cluster/replication_server.h"
#include "cluster/store_log.h"

namespace rokka::broker {
namespace asio = boost::asio;
using asio::ip::tcp;
using storage::Role;
using storage::Status;

namespace {

constexpr auto kRetryMin = std::chrono::milliseconds(100);
constexpr auto kRetryMax = std::chrono::seconds(10);

std::string ids(const std::vector<int32_t>& v) {
  std::string out;
  for (int32_t id : v) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

bool contains(const std::vector<int32_t>& v, int32_t id) { return std::find(v.begin(), v.end(), id) != v.end(); }

}  // namespace

std::optional<SssChange> next_sss_change(const SssInputs& in) {
  auto progress = [&](int32_t id) -> const cluster::FollowerProgress* {
    for (const auto& f : in.followers)
      if (f.follower_id == id) return &f;
    return nullptr;
  };
  for (const int32_t m : in.sss) {
    if (m == in.leader) continue;
    const cluster::FollowerProgress* p = progress(m);
    const auto caught = std::max(p != nullptr ? p->caught_up_at : std::chrono::steady_clock::time_point{},
                                 in.leading_since);
    if (in.now - caught > in.lag_max) return SssChange{SssChange::Kind::kShrink, m};
  }
  for (const int32_t m : in.members) {
    if (m == in.leader || contains(in.sss, m)) continue;
    const cluster::FollowerProgress* p = progress(m);
    if (p == nullptr || p->caught_up_at == std::chrono::steady_clock::time_point{}) continue;
    if (in.now - p->caught_up_at > in.lag_max / 2) continue;
    const int64_t acked = in.confirm_written ? p->written_end : p->durable_end;
    if (acked >= in.confirmed) return SssChange{SssChange::Kind::kExpand, m};
  }
  return std::nullopt;
}

const char* group_role_name(GroupRole role) {
  switch (role) {
    case GroupRole::kLeader:
      return "leader";
    case GroupRole::kFollower:
      return "follower";
    case GroupRole::kFenced:
      break;
  }
  return "fenced";
}

std::shared_ptr<GroupMember> GroupMember::create(asio::any_io_executor control, asio::any_io_executor stream,
                                                 storage::Store& store,
                                                 std::shared_ptr<cluster::Membership> membership,
                                                 std::shared_ptr<cluster::EtcdClient> etcd, cluster::Keys keys,
                                                 GroupMemberOptions options) {
  return std::shared_ptr<GroupMember>(new GroupMember(std::move(control), std::move(stream), store,
                                                      std::move(membership), std::move(etcd), std::move(keys),
                                                      std::move(options)));
}

GroupMember::GroupMember(asio::any_io_executor control, asio::any_io_executor stream, storage::Store& store,
                         std::shared_ptr<cluster::Membership> membership, std::shared_ptr<cluster::EtcdClient> etcd,
                         cluster::Keys keys, GroupMemberOptions options)
    : control_(control),
      stream_(std::move(stream)),
      store_(store),
      membership_(std::move(membership)),
      etcd_(std::move(etcd)),
      keys_(std::move(keys)),
      options_(std::move(options)),
      // The broker owns the store and closes it only after stop(): the StoreLog does not own it.
      log_(std::make_shared<cluster::StoreLog>(std::shared_ptr<storage::Store>(std::shared_ptr<void>(), &store),
                                               options_.max_append_bytes)),
      wake_(control),
      ended_(control) {}

GroupMember::~GroupMember() = default;

void GroupMember::start() {
  if (started_) return;
  started_ = true;
  running_ = true;
  asio::co_spawn(control_, [self = shared_from_this()] { return self->run(); }, asio::detached);
}

void GroupMember::on_snapshot(const std::shared_ptr<const cluster::ClusterSnapshot>& snap) {
  snapshot_ = snap;
  wake_.notify();
}

void GroupMember::on_membership(const cluster::MembershipEvent&) { wake_.notify(); }

asio::awaitable<void> GroupMember::stop() {
  stopping_ = true;
  leading_epoch_ = -1;
  wake_.notify();
  if (running_) co_await ended_.wait();
  stop_server();
  co_await stop_client();
}

// What the inputs say this store should be. Checked on every wake-up: the latest snapshot and
// the membership as they are now.
GroupMember::Target GroupMember::target() const {
  Target t;
  const int64_t me = membership_->epoch();
  if (me == 0) {
    t.why = "not registered";
    return t;
  }
  if (membership_->fenced()) {
    t.why = "this broker is fenced (its lease may have ended)";
    return t;
  }
  const cluster::GroupInfo* g = snapshot_ ? snapshot_->group(options_.group) : nullptr;
  if (g == nullptr || !g->state) {
    t.why = "the group has no state in etcd";
    return t;
  }
  const cluster::GroupState& s = *g->state;
  t.state_revision = g->state_mod_revision;
  if (g->spec) t.members = g->spec->members;
  if (s.leader == cluster::kNoLeader) {
    t.why = "the group has no leader";
    return t;
  }
  if (s.leader == options_.self && s.leader_broker_epoch != me) {
    t.why = "the state names broker epoch " + std::to_string(s.leader_broker_epoch) + " of this broker, now " +
            std::to_string(me);
    return t;
  }
  t.epoch = s.epoch;
  t.leader = s.leader;
  t.sss = s.sss;
  if (s.leader == options_.self) {
    t.role = GroupRole::kLeader;
    return t;
  }
  t.role = GroupRole::kFollower;
  if (const cluster::BrokerInfo* b = snapshot_->broker(s.leader); b != nullptr) t.leader_at = b->registration.replication;
  return t;
}

asio::awaitable<void> GroupMember::run() {
  auto self = shared_from_this();
  auto retry = std::chrono::milliseconds(kRetryMin);
  while (!stopping_) {
    const Target t = target();
    bool done = false;
    switch (t.role) {
      case GroupRole::kFenced:
        done = co_await become_fenced(t);
        break;
      case GroupRole::kFollower:
        done = co_await become_follower(t);
        break;
      case GroupRole::kLeader:
        done = co_await become_leader(t);
        break;
    }
    if (stopping_) break;
    if (!done) {  // refused or not reachable: again after a while, or when something changes
      co_await wake_.wait(std::chrono::steady_clock::now() + retry);
      retry = std::min<std::chrono::milliseconds>(retry * 2, kRetryMax);
      continue;
    }
    retry = kRetryMin;
    if (role_.load() == GroupRole::kLeader && server_) {
      tend_sss(t);
      // A leader wakes every heartbeat (the SSS), and at its fence deadline, in case the fence event is late.
      const auto tick = std::chrono::steady_clock::now() + options_.heartbeat;
      co_await wake_.wait(std::min(membership_->fence_deadline(), tick));
    } else {
      co_await wake_.wait(std::chrono::steady_clock::time_point::max());
    }
  }
  running_ = false;
  update_stats(Target{});
  ended_.notify();
}

asio::awaitable<bool> GroupMember::become_fenced(const Target& t) {
  leading_epoch_ = -1;  // first: nothing may route to this store as leader from here on
  stop_server();
  update_stats(t);
  co_await stop_client();
  if (role_.load() == GroupRole::kFenced) co_return true;
  // With the epoch it had: a leader fenced at E may lead E again (its lease renewed, the state unchanged).
  const int32_t epoch = std::max(epoch_.load(), 0);
  const Status s = co_await set_role(Role::kFenced, epoch);
  if (!s.ok()) {
    broker_log().error("group {}: fencing the store failed: error={}", options_.group, s.to_string());
    co_return false;
  }
  role_ = GroupRole::kFenced;
  broker_log().warn("group {}: store fenced at epoch {}: {}", options_.group, epoch, t.why);
  if (role_listener_) role_listener_();
  co_return true;
}

asio::awaitable<bool> GroupMember::become_follower(const Target& t) {
  leading_epoch_ = -1;
  stop_server();
  update_stats(t);
  if (role_.load() != GroupRole::kFollower || epoch_.load() != t.epoch) {
    const Status s = co_await set_role(Role::kFollower, t.epoch);
    if (!s.ok()) {
      broker_log().error("group {}: following epoch {} failed: error={}", options_.group, t.epoch, s.to_string());
      co_return false;
    }
    epoch_ = t.epoch;  // before the role: a reader of both never sees the new role with the old epoch
    role_ = GroupRole::kFollower;
    broker_log().info("group {}: follows broker {} at epoch {}", options_.group, t.leader, t.epoch);
    if (role_listener_) role_listener_();
  }
  if (!t.leader_at) {
    // The leader is not registered (or publishes no endpoint): a client keeps trying where it was.
    if (client_) client_->observe_epoch(t.epoch);
    co_return true;
  }
  const std::optional<tcp::endpoint> at = co_await resolve(*t.leader_at);
  if (stopping_) co_return true;
  if (!at) co_return false;
  if (!client_) {
    cluster::ReplicationClientOptions o;
    o.cluster_id = options_.cluster_id;
    o.group = options_.group;
    o.follower_id = options_.self;
    o.broker_epoch = membership_->epoch();
    o.segment_bytes = options_.segment_bytes;
    o.leader = *at;
    o.max_entry_bytes = log_->max_entry_bytes();
    o.idle_timeout = options_.idle_timeout;
    client_ = cluster::ReplicationClient::create(stream_, log_, std::move(o));
    client_->observe_epoch(t.epoch);  // posted before the loop starts: the first HELLO knows it
    client_->start();
  } else {
    client_->observe_epoch(t.epoch);
    if (client_leader_ != at) client_->set_leader(*at);
  }
  client_leader_ = at;
  co_return true;
}

asio::awaitable<bool> GroupMember::become_leader(const Target& t) {
  if (role_.load() == GroupRole::kLeader && epoch_.load() == t.epoch && server_) {
    std::vector<int32_t> want = server_sss(t);
    if (in_sync_ != want) {
      broker_log().info("group {}: in-sync set {} (was {})", options_.group, ids(want), ids(in_sync_));
      in_sync_ = want;
      server_->set_in_sync(std::move(want));
    }
    co_return true;
  }
  leading_epoch_ = -1;
  stop_server();  // a server of an earlier epoch
  update_stats(Target{});
  // The client must be gone before the store leads: a late append_replicated would be refused,
  // and nothing else may write the log meanwhile.
  const int64_t client_confirmed = client_ ? client_->confirmed() : 0;
  co_await stop_client();
  if (stopping_) co_return true;
  // The view may be behind etcd (a fenced leader whose lease was renewed, a promotion seen late):
  // lead only what etcd says now.
  const auto fresh = co_await reread(t);
  if (stopping_) co_return true;
  if (!fresh) co_return false;
  // An SSS change of an earlier leadership of this epoch whose write may still land (the state has
  // not moved since it was decided): an expand is counted from the start.
  if (pending_ && pending_->seen_state != fresh->second) pending_.reset();
  std::vector<int32_t> sss = fresh->first.sss;
  if (pending_ && pending_->change.kind == SssChange::Kind::kExpand && !contains(sss, pending_->change.member))
    sss.push_back(pending_->change.member);
  if (role_.load() != GroupRole::kLeader || epoch_.load() != t.epoch) {
    const Status s = co_await set_role(Role::kLeader, t.epoch);
    if (!s.ok()) {
      broker_log().error("group {}: leading epoch {} refused by the store: error={}", options_.group, t.epoch,
                         s.to_string());
      co_return false;
    }
    epoch_ = t.epoch;
    role_ = GroupRole::kLeader;
  }
  if (stopping_) co_return true;
  cluster::ReplicationServerOptions o;
  o.cluster_id = options_.cluster_id;
  o.group = options_.group;
  o.leader_id = options_.self;
  o.epoch = t.epoch;
  o.segment_bytes = options_.segment_bytes;
  o.in_sync = sss;
  o.confirmed = std::max(client_confirmed, store_.confirmed_position());
  o.confirm_written = options_.confirm_written;
  o.heartbeat = options_.heartbeat;
  o.idle_timeout = options_.idle_timeout;
  o.max_entry_bytes = log_->max_entry_bytes();
  auto server = cluster::ReplicationServer::create(stream_, log_, std::move(o));
  const tcp::endpoint at = options_.listen_at;
  // listen() on the server's executor (its threading contract).
  auto listen = [server, at]() -> asio::awaitable<Status> {
    auto r = server->listen(at);
    co_return r.ok() ? Status() : r.status();
  };
  const Status bound = co_await asio::co_spawn(stream_, std::move(listen), asio::use_awaitable);
  if (!bound.ok()) {
    broker_log().error("group {}: leads epoch {} but its replication listener failed: error={}", options_.group,
                       t.epoch, bound.to_string());
    server->stop(cluster::ConfirmOutcome::Kind::kNotLeader, "replication listener failed");
    co_return false;
  }
  server_ = std::move(server);
  in_sync_ = sss;
  leading_since_ = std::chrono::steady_clock::now();
  state_seen_ = fresh->second;
  leading_epoch_ = t.epoch;
  broker_log().info("group {}: leads epoch {} (in-sync {}), confirmed {}; the state re-read at revision {}",
                    options_.group, t.epoch, ids(sss), server_->confirmed(), fresh->second);
  update_stats(t);
  if (role_listener_) role_listener_();
  co_return true;
}

asio::awaitable<std::optional<std::pair<cluster::GroupState, int64_t>>> GroupMember::reread(const Target& t) {
  const int64_t me = membership_->epoch();
  cluster::RangeRequest req{.key = keys_.group_state(options_.group)};  // linearizable
  auto r = co_await etcd_->range(std::move(req));
  if (!r.ok()) {
    broker_log().warn("group {}: reading the group state before leading epoch {} failed: error={}", options_.group,
                      t.epoch, r.status().to_string());
    co_return std::nullopt;
  }
  std::string why;
  if (r->kvs.empty()) {
    why = "the group has no state";
  } else if (auto s = cluster::decode_group_state(r->kvs[0].value); !s.ok()) {
    why = "the state does not decode: " + s.status().to_string();
  } else if (s->leader != options_.self || s->leader_broker_epoch != me || s->epoch != t.epoch) {
    why = "it names broker " + std::to_string(s->leader) + " (broker epoch " + std::to_string(s->leader_broker_epoch) +
          ") at epoch " + std::to_string(s->epoch);
  } else if (membership_->fenced() || membership_->epoch() != me) {
    why = "this broker is fenced";
  } else {
    co_return std::pair{*s, r->kvs[0].mod_revision};
  }
  broker_log().info("group {}: does not lead epoch {}: the state in etcd at revision {}: {}", options_.group, t.epoch,
                    r->header.revision, why);
  co_return std::nullopt;
}

// What the server counts: the state's SSS, and the change in flight on top (an expand is counted
// before it is written, a shrink once it is) until the view shows the state moved.
std::vector<int32_t> GroupMember::server_sss(const Target& t) {
  if (t.state_revision < state_seen_) return in_sync_;  // the view is older than what this leader read
  if (pending_ && t.state_revision != pending_->seen_state) pending_.reset();  // the view has the outcome
  std::vector<int32_t> want = t.sss;
  if (pending_) {
    const int32_t m = pending_->change.member;
    if (pending_->change.kind == SssChange::Kind::kExpand && !contains(want, m)) want.push_back(m);
    if (pending_->change.kind == SssChange::Kind::kShrink && pending_->applied) std::erase(want, m);
  }
  return want;
}

void GroupMember::tend_sss(const Target& t) {
  update_stats(t);
  const auto now = std::chrono::steady_clock::now();
  // A leader that did not run for a while (stopped, starved) heard no acks meanwhile: its
  // followers' catch-up times are as old as its own pause, so they count from its return.
  if (now - last_tend_ > std::max(options_.heartbeat * 10, options_.lag_max / 4))
    leading_since_ = std::max(leading_since_, now);
  last_tend_ = now;
  if (pending_ || t.role != GroupRole::kLeader || t.epoch != epoch_.load() || !server_ ||
      t.state_revision < state_seen_)
    return;
  SssInputs in;
  in.now = now;
  in.lag_max = options_.lag_max;
  in.leading_since = leading_since_;
  in.leader = options_.self;
  in.members = t.members;
  in.sss = t.sss;
  in.confirmed = server_->confirmed();
  in.confirm_written = options_.confirm_written;
  in.followers = server_->followers();
  const std::optional<SssChange> change = next_sss_change(in);
  if (!change) return;
  const cluster::GroupInfo* g = snapshot_ ? snapshot_->group(options_.group) : nullptr;
  if (g == nullptr || !g->state) return;
  const bool expand = change->kind == SssChange::Kind::kExpand;
  auto next = expand ? cluster::expand(*g->state, change->member) : cluster::shrink(*g->state, change->member);
  if (!next.ok()) {
    broker_log().warn("group {}: sss change refused: error={}", options_.group, next.status().to_string());
    return;
  }
  pending_ = SssPending{++next_change_id_, *change, t.state_revision, false};
  if (expand) {  // counted first: from now on C waits for it too, so the state never names more than C counts
    in_sync_ = server_sss(t);
    server_->set_in_sync(in_sync_);
  }
  broker_log().info("group {}: {} broker {} {} the sss {} (sss_version {})", options_.group,
                    expand ? "caught up:" : "lagging:", change->member, expand ? "joins" : "leaves", ids(g->state->sss),
                    next->sss_version);
  asio::co_spawn(control_,
                 [self = shared_from_this(), id = pending_->id, st = *next, seen = t.state_revision] {
                   return self->write_sss(id, st, seen);
                 },
                 asio::detached);
}

asio::awaitable<void> GroupMember::write_sss(uint64_t id, cluster::GroupState next, int64_t seen_state) {
  auto self = shared_from_this();
  auto txn = cluster::sss_change_txn(keys_, options_.group, next, seen_state);
  if (!txn.ok()) {
    broker_log().error("group {}: sss change: error={}", options_.group, txn.status().to_string());
    co_return;  // pending stays until the view moves: no further change from this state
  }
  asio::steady_timer timer(control_);
  for (;;) {
    auto r = co_await etcd_->txn(*txn);
    if (stopping_ || !pending_ || pending_->id != id) co_return;
    if (!r.ok()) {
      // Perhaps applied: the same txn again settles it (its compare fails once it has).
      broker_log().warn("group {}: writing the sss failed, retrying: error={}", options_.group, r.status().to_string());
      timer.expires_after(kRetryMax / 20);
      co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
      if (stopping_ || !pending_ || pending_->id != id) co_return;
      continue;
    }
    if (!r->succeeded) {
      // The state moved (a new epoch, another leader) or this broker's registration did: the view
      // brings it, and the roles follow it.
      broker_log().info("group {}: the sss write did not apply: the state moved since revision {}", options_.group,
                        seen_state);
      co_return;
    }
    pending_->applied = true;
    broker_log().info("group {}: sss {} (sss_version {}) written at revision {}", options_.group, ids(next.sss),
                      next.sss_version, r->header.revision);
    wake_.notify();  // a shrink: the server stops counting the member now
    co_return;
  }
}

void GroupMember::update_stats(const Target& t) {
  std::optional<LeaderStats> stats;
  if (server_ && leading_epoch_.load() >= 0) {
    stats.emplace();
    stats->in_sync = in_sync_.size();
    const int64_t end = store_.log_end();
    const auto followers = server_->followers();
    for (const int32_t m : t.members) {
      if (m == options_.self) continue;
      int64_t acked = 0;
      for (const auto& f : followers)
        if (f.follower_id == m) acked = f.written_end;
      stats->lag_bytes.emplace_back(m, std::max<int64_t>(0, end - acked));
    }
  }
  std::lock_guard lock(stats_mu_);
  stats_ = std::move(stats);
}

std::optional<GroupMember::LeaderStats> GroupMember::leader_stats() const {
  std::lock_guard lock(stats_mu_);
  return stats_;
}

void GroupMember::stop_server() {
  if (!server_) return;
  server_->stop(cluster::ConfirmOutcome::Kind::kNotLeader, "group " + options_.group + ": no longer its leader");
  server_.reset();
}

asio::awaitable<void> GroupMember::stop_client() {
  if (!client_) co_return;
  client_->stop();
  asio::steady_timer timer(control_);
  while (client_->running()) {
    timer.expires_after(std::chrono::milliseconds(5));
    co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  client_.reset();
  client_leader_.reset();
}

asio::awaitable<Status> GroupMember::set_role(Role role, int32_t epoch) {
  std::function<void(storage::StatusCallback)> op = [this, role, epoch](storage::StatusCallback done) {
    store_.set_role(role, epoch, std::move(done));
  };
  Status s = co_await cluster::repl::await_status(std::move(op));
  co_return s;
}

asio::awaitable<std::optional<tcp::endpoint>> GroupMember::resolve(cluster::ReplicationEndpoint at) {
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(at.host, ec);
  if (!ec) co_return tcp::endpoint(address, static_cast<uint16_t>(at.port));
  tcp::resolver resolver(control_);
  const std::string service = std::to_string(at.port);
  auto [rec, results] = co_await resolver.async_resolve(at.host, service, asio::as_tuple(asio::use_awaitable));
  if (rec || results.empty()) {
    broker_log().warn("group {}: the leader's replication endpoint {}:{} does not resolve: {}", options_.group,
                      at.host, at.port, rec ? rec.message() : "no address");
    co_return std::nullopt;
  }
  co_return results.begin()->endpoint();
}

}  // namespace rokka::broker
