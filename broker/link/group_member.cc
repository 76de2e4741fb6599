#include "broker/link/group_member.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/logging.h"
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

}  // namespace

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
                                                 GroupMemberOptions options) {
  return std::shared_ptr<GroupMember>(
      new GroupMember(std::move(control), std::move(stream), store, std::move(membership), std::move(options)));
}

GroupMember::GroupMember(asio::any_io_executor control, asio::any_io_executor stream, storage::Store& store,
                         std::shared_ptr<cluster::Membership> membership, GroupMemberOptions options)
    : control_(control),
      stream_(std::move(stream)),
      store_(store),
      membership_(std::move(membership)),
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
    // A leader also wakes at its fence deadline, in case the fence event is late.
    co_await wake_.wait(role_.load() == GroupRole::kLeader ? membership_->fence_deadline()
                                                           : std::chrono::steady_clock::time_point::max());
  }
  running_ = false;
  ended_.notify();
}

asio::awaitable<bool> GroupMember::become_fenced(const Target& t) {
  leading_epoch_ = -1;  // first: nothing may route to this store as leader from here on
  stop_server();
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
    if (in_sync_ != t.sss) {
      in_sync_ = t.sss;
      server_->set_in_sync(t.sss);
    }
    co_return true;
  }
  leading_epoch_ = -1;
  stop_server();  // a server of an earlier epoch
  // The client must be gone before the store leads: a late append_replicated would be refused,
  // and nothing else may write the log meanwhile.
  const int64_t client_confirmed = client_ ? client_->confirmed() : 0;
  co_await stop_client();
  if (stopping_) co_return true;
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
  o.in_sync = t.sss;
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
  in_sync_ = t.sss;
  leading_epoch_ = t.epoch;
  broker_log().info("group {}: leads epoch {} (in-sync {}), confirmed {}", options_.group, t.epoch, ids(t.sss),
                    server_->confirmed());
  if (role_listener_) role_listener_();
  co_return true;
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
