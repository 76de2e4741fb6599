#include "broker/link/cluster_link.h"

#include <pthread.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <future>
#include <set>

#include "broker/link/group_controller.h"
#include "broker/link/group_member.h"
#include "broker/logging.h"
#include "cluster/placement.h"
#include "cluster/replication_server.h"
#include "wire/random_id.h"

namespace rokka::broker {
namespace asio = boost::asio;
using protocol::ErrorCode;
using storage::Result;
using storage::Status;

namespace {

// How long a topic change may take to come back through this broker's view.
constexpr auto kSyncDeadline = std::chrono::seconds(30);

TopicError topic_error(ErrorCode code, std::string message) { return {code, std::move(message)}; }

// An etcd failure, as a client sees it: retriable.
TopicError etcd_error(const Status& s) {
  return topic_error(ErrorCode::kRequestTimedOut, "the cluster's metadata store (etcd) did not answer: " + s.to_string());
}

std::string uuid_hex(const protocol::Uuid& id) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : id) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

std::optional<protocol::Uuid> parse_uuid_hex(std::string_view text) {
  if (text.size() != 32) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  protocol::Uuid id{};
  for (size_t i = 0; i < id.size(); ++i) {
    const int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    id[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return id;
}

// Where a new topic's round-robin starts, so that topics' first partitions spread over brokers.
int32_t placement_start(std::string_view name) { return cluster::coordinator_shard(name, 1 << 30); }

// One placement range per assigned partition.
void add_assignment(cluster::Placement& p, int32_t first, const std::vector<int32_t>& brokers) {
  for (size_t i = 0; i < brokers.size(); ++i) p.ranges.push_back({first + static_cast<int32_t>(i), 0, {brokers[i]}});
}

// `done`, called once: by the function returned, or with `late` after kSyncDeadline.
template <typename E>
std::function<void(E)> within_deadline(asio::io_context& io, std::function<void(E)> done, E late) {
  auto once = std::make_shared<std::function<void(E)>>(std::move(done));
  auto timer = std::make_shared<asio::steady_timer>(io, kSyncDeadline);
  timer->async_wait([once, late = std::move(late)](const boost::system::error_code& ec) {
    if (!ec && *once) std::exchange(*once, nullptr)(late);
  });
  return [once, timer](E e) {
    timer->cancel();
    if (*once) std::exchange(*once, nullptr)(std::move(e));
  };
}

// Runs (with success) and drops the waiters of the revisions up to `revision`.
template <typename E>
void complete_up_to(std::multimap<int64_t, std::function<void(E)>>& waiters, int64_t revision) {
  while (!waiters.empty() && waiters.begin()->first <= revision) {
    auto done = std::move(waiters.begin()->second);
    waiters.erase(waiters.begin());
    done({});
  }
}

// Whether a txn changed a key: etcd gives a txn that changed nothing the store's current
// revision, which may be a write outside this cluster's root that the view never sees.
bool changed_a_key(const cluster::TxnResult& r) {
  for (const auto& op : r.responses) {
    if (std::holds_alternative<cluster::PutResult>(op)) return true;
    if (const auto* d = std::get_if<cluster::DeleteResult>(&op); d != nullptr && d->deleted > 0) return true;
  }
  return false;
}

// Blocks the calling (non-cluster) thread on a coroutine run on `io`.
template <typename T>
T run_on(asio::io_context& io, asio::awaitable<T> aw) {
  // Through an optional: co_spawn's future wants a default-constructible result.
  auto wrapped = [](asio::awaitable<T> a) -> asio::awaitable<std::optional<T>> {
    co_return std::optional<T>(co_await std::move(a));
  };
  return *asio::co_spawn(io, wrapped(std::move(aw)), asio::use_future).get();
}

}  // namespace

const cluster::Listener* ClusterBroker::listener(std::string_view name) const {
  for (const auto& l : listeners)
    if (l.name == name) return &l;
  return nullptr;
}

ClusterLink::ClusterLink(const BrokerConfig& config)
    : config_(config),
      self_(config.broker_id),
      keys_(config.cluster_root),
      work_(asio::make_work_guard(io_)),
      stream_work_(asio::make_work_guard(stream_io_)) {
  picture_.store(std::make_shared<const ClusterPicture>());
}

ClusterLink::~ClusterLink() { stop(); }

Result<std::unique_ptr<ClusterLink>> ClusterLink::connect(const BrokerConfig& config) {
  auto endpoints = cluster::parse_endpoints(config.cluster_etcd_endpoints);
  if (!endpoints.ok())
    return Status::invalid_argument("rokka.cluster.etcd.endpoints: " + endpoints.status().message());
  std::unique_ptr<ClusterLink> link(new ClusterLink(config));
  link->thread_ = std::thread([io = &link->io_] {
    pthread_setname_np(pthread_self(), "rokka-cluster");
    io->run();
  });
  cluster::EtcdClientOptions options;
  options.endpoints = std::move(endpoints).value();
  link->client_ = cluster::EtcdClient::create(link->io_.get_executor(), std::move(options));
  link->view_ = cluster::ClusterView::create(link->client_, link->keys_);
  link->producer_ids_ = std::make_unique<cluster::ProducerIdBlocks>(link->client_, link->keys_, link->self_);
  link->group_controller_ =
      GroupController::create(link->client_, link->keys_, GroupController::options_from(config));
  link->view_->subscribe([l = link.get()](const cluster::ClusterView::SnapshotPtr& s) { l->on_snapshot(s); });
  asio::post(link->io_, [view = link->view_] { view->start(); });

  const auto wait = std::max<std::chrono::milliseconds>(std::chrono::seconds(60),
                                                        std::chrono::milliseconds(5 * config.cluster_session_timeout_ms));
  const auto deadline = std::chrono::steady_clock::now() + wait;
  auto next_note = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (link->view_->full_reads() == 0) {
    if (std::chrono::steady_clock::now() >= deadline)
      return Status::io_error("etcd at " + config.cluster_etcd_endpoints + " did not answer within " +
                              std::to_string(wait.count() / 1000) + " s");
    if (std::chrono::steady_clock::now() >= next_note) {
      broker_log().warn("waiting for etcd: endpoints={}", config.cluster_etcd_endpoints);
      next_note += std::chrono::seconds(5);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  broker_log().info("cluster view read: root={} revision={}", link->keys_.root(), link->view_->snapshot()->revision);
  return link;
}

Result<std::string> ClusterLink::agree_cluster_id(const std::string& local) {
  auto agree = [this, &local]() -> asio::awaitable<Result<std::string>> {
    const std::string mine = local.empty() ? wire::random_cluster_id() : local;
    const std::string key = keys_.cluster_id();
    cluster::Txn txn{{cluster::Compare::absent(key)},
                     {cluster::PutRequest{key, cluster::encode_cluster_id(mine)}},
                     {cluster::RangeRequest{.key = key}}};
    for (int attempt = 0;; ++attempt) {
      auto r = co_await client_->txn(txn);
      if (!r.ok()) {
        if (attempt >= 20) co_return r.status();
        asio::steady_timer t(co_await asio::this_coro::executor, std::chrono::milliseconds(500));
        co_await t.async_wait(asio::use_awaitable);
        continue;  // an unknown outcome is settled by the next attempt's compare
      }
      if (r->succeeded) {
        founded_ = true;
        co_return mine;
      }
      const auto* range = r->responses.empty() ? nullptr : std::get_if<cluster::RangeResult>(&r->responses[0]);
      if (range == nullptr || range->kvs.empty()) continue;  // deleted in between: try again
      co_return cluster::decode_cluster_id(range->kvs[0].value);
    }
  };
  auto id = run_on(io_, agree());
  if (!id.ok()) return id.status();
  if (!local.empty() && *id != local)
    return Status::invalid_argument("this broker's data (log.dirs) belongs to cluster " + local + ", but " +
                                    keys_.cluster_id() + " in etcd is " + *id +
                                    ": use an empty log.dirs to join this cluster");
  broker_log().info("{} cluster: cluster_id={} root={}", founded_ ? "founded" : "joined", *id, keys_.root());
  cluster_id_ = *id;
  return id;
}

std::vector<std::string> ClusterLink::member_groups() const {
  const auto snap = view_->snapshot();
  std::vector<std::string> out;
  for (const auto& [name, info] : snap->groups) {
    if (!info.spec) continue;
    const auto& members = info.spec->members;
    if (std::find(members.begin(), members.end(), self_) != members.end()) out.push_back(name);
  }
  for (const ReplicationGroup& g : config_.replication_groups) {
    const cluster::GroupInfo* info = snap->group(g.name);
    if (info != nullptr && info->spec) {
      if (info->spec->members != g.members)
        broker_log().warn("replication group {}: etcd's spec has members {}, rokka.replication.groups says {}; "
                          "etcd's is used", g.name, cluster::encode_group_spec(*info->spec),
                          cluster::encode_group_spec(cluster::GroupSpec{g.members}));
      continue;
    }
    if (std::find(g.members.begin(), g.members.end(), self_) != g.members.end()) out.push_back(g.name);
  }
  return out;
}

void ClusterLink::add_group_store(std::string group, StoreSlot slot, storage::Store& store,
                                  const storage::StoreOptions& options) {
  group_stores_.push_back({std::move(group), slot, &store, options.segment_bytes, options.max_append_bytes,
                           options.flush_mode == storage::FlushMode::kAsync});
}

GroupMember* ClusterLink::member_of(StoreSlot slot) const {
  // members_[i] is group_stores_[i]'s (start_group_members).
  for (size_t i = 0; i < group_stores_.size() && i < members_.size(); ++i) {
    if (group_stores_[i].slot == slot) return members_[i].get();
  }
  return nullptr;
}

std::optional<std::shared_ptr<cluster::ConfirmWaiters>> ClusterLink::confirm_waiters(StoreSlot slot) const {
  GroupMember* member = member_of(slot);
  if (member == nullptr) return std::nullopt;
  std::shared_ptr<cluster::ReplicationServer> server = member->server();
  if (!server) return std::shared_ptr<cluster::ConfirmWaiters>();
  cluster::ConfirmWaiters* waiters = &server->waiters();
  return std::shared_ptr<cluster::ConfirmWaiters>(std::move(server), waiters);
}

// On the cluster thread, before the membership starts: a member per group store, following
// the view and the membership from now on.
Status ClusterLink::start_group_members() {
  if (group_stores_.empty()) return {};
  if (!config_.replication_listener) return Status::invalid_argument("rokka.replication.listener is not set");
  boost::system::error_code ec;
  const std::string& host = config_.replication_listener->host;
  const auto address = host.empty() ? asio::ip::address(asio::ip::address_v4::any()) : asio::ip::make_address(host, ec);
  if (ec)
    return Status::invalid_argument("rokka.replication.listener: " + host + " is not an IP address: " + ec.message());
  for (const GroupStore& g : group_stores_) {
    GroupMemberOptions o;
    o.cluster_id = cluster_id_;
    o.group = g.group;
    o.self = self_;
    o.listen_at = asio::ip::tcp::endpoint(address, config_.replication_listener->port);
    o.segment_bytes = g.segment_bytes;
    o.max_append_bytes = g.max_append_bytes;
    o.confirm_written = g.flush_async;
    o.heartbeat = std::chrono::milliseconds(config_.replication_heartbeat_ms);
    o.idle_timeout = std::chrono::milliseconds(config_.replication_idle_timeout_ms);
    o.lag_max = std::chrono::milliseconds(config_.replica_lag_time_max_ms);
    auto member = GroupMember::create(io_.get_executor(), stream_io_.get_executor(), *g.store, membership_, client_,
                                      keys_, std::move(o));
    // The registry follows the member's role and, on a follower, the topics replication brings.
    member->set_role_listener([this, m = member.get()] {
      resync();
      if (group_role_listener_) group_role_listener_(*m);
    });
    g.store->set_replicated_meta_listener([this] { asio::post(io_, [this] { resync(); }); });
    member->on_snapshot(view_->snapshot());
    member->start();
    members_.push_back(std::move(member));
  }
  membership_->subscribe([this](const cluster::MembershipEvent& e) {
    for (auto& m : members_) m->on_membership(e);
  });
  return {};
}

Status ClusterLink::join(const std::vector<Listener>& advertised, TopicRegistry& topics) {
  if (auto s = check_coordinators_record(); !s.ok()) return s;
  cluster::MembershipOptions options;
  options.broker_id = self_;
  for (const Listener& l : advertised)
    options.listeners.push_back({l.name, l.host, l.port, l.security_protocol});
  if (!config_.broker_rack.empty()) options.rack = config_.broker_rack;
  if (!group_stores_.empty()) {  // a group member: where its stream listens, what its stores hold
    if (auto at = config_.effective_replication_advertised_listener())
      options.replication = cluster::ReplicationEndpoint{at->host, at->port};
    options.group_hints = [this] {
      std::map<std::string, cluster::GroupHint, std::less<>> hints;
      for (const GroupStore& g : group_stores_) {
        const auto epochs = g.store->epochs();
        hints[g.group] = cluster::GroupHint{epochs.empty() ? -1 : epochs.back().epoch, g.store->log_end()};
      }
      return hints;
    };
    stream_thread_ = std::thread([io = &stream_io_] {
      pthread_setname_np(pthread_self(), "rokka-repl");
      io->run();
    });
  }
  options.lease_ttl = std::chrono::seconds(std::max<int64_t>(2, config_.cluster_session_timeout_ms / 1000));

  auto serving = std::make_shared<std::promise<void>>();
  auto served = std::make_shared<std::once_flag>();
  membership_ = cluster::Membership::create(client_, keys_, options);
  membership_->subscribe([serving, served](const cluster::MembershipEvent& e) {
    if (e.kind == cluster::MembershipEvent::Kind::kServing) {
      broker_log().info("registered in the cluster: broker_epoch={} lease={}", e.epoch, e.lease);
      std::call_once(*served, [&serving] { serving->set_value(); });
    } else {
      broker_log().warn("fenced: this broker leads nothing until its lease is renewed: reason={}", e.reason);
    }
  });
  election_ = cluster::ControllerElection::create(client_, keys_, membership_);
  election_->subscribe([](const cluster::ControllerEvent& e) {
    if (e.kind == cluster::ControllerEvent::Kind::kElected)
      broker_log().info("elected controller: controller_epoch={}", e.epoch);
    else
      broker_log().warn("no longer controller: controller_epoch={}", e.epoch);
  });
  election_->subscribe([gc = group_controller_](const cluster::ControllerEvent& e) { gc->on_controller(e); });

  // The registry follows the view from here on; a founding broker's own topics go to etcd first.
  stores_ = &topics.stores();
  std::promise<void> first_sync;
  Status members_started;
  asio::post(io_, [this, &topics, &first_sync, &members_started] {
    asio::co_spawn(
        io_,
        [this, &topics, &first_sync, &members_started]() -> asio::awaitable<void> {
          members_started = start_group_members();
          if (founded_) co_await publish_local_topics(topics);
          topics_ = &topics;
          topics.set_authority(this);
          // The registry matches the view as it is now (the founder's topics in it), then follows it.
          const int64_t revision = view_->snapshot()->revision;
          when_synced(revision, [&first_sync](TopicError) { first_sync.set_value(); });
          sync_topics();
        },
        asio::detached);
  });
  first_sync.get_future().wait();
  if (!members_started.ok()) return members_started;

  asio::post(io_, [m = membership_, e = election_] {
    m->start();
    e->start();
  });
  const auto wait = std::chrono::milliseconds(std::max<int64_t>(60000, 5 * config_.cluster_session_timeout_ms));
  if (serving->get_future().wait_for(wait) != std::future_status::ready)
    return Status::io_error("not registered in etcd within " + std::to_string(wait.count() / 1000) + " s");
  return {};
}

void ClusterLink::stop() {
  if (stopped_ || !thread_.joinable()) return;
  stopped_ = true;
  for (const GroupStore& g : group_stores_) g.store->set_replicated_meta_listener({});
  auto shutdown = [this]() -> asio::awaitable<void> {
    group_controller_->stop();
    for (auto& m : members_) co_await m->stop();  // the group stores are not used after this
    if (election_) co_await election_->stop(true);
    if (membership_) co_await membership_->stop(true);
    view_->stop();
    client_->shutdown();
  };
  try {
    auto done = asio::co_spawn(io_, shutdown(), asio::use_future);
    if (done.wait_for(std::chrono::seconds(10)) != std::future_status::ready)
      broker_log().warn("cluster: leaving etcd took over 10 s; the lease will end by itself");
  } catch (const std::exception& e) {
    broker_log().warn("cluster: leaving etcd failed: error={}", e.what());
  }
  work_.reset();
  io_.stop();
  thread_.join();
  stream_work_.reset();
  stream_io_.stop();
  if (stream_thread_.joinable()) stream_thread_.join();
}

// ---- the view ----

void ClusterLink::on_snapshot(const cluster::ClusterView::SnapshotPtr& snap) {
  auto p = std::make_shared<ClusterPicture>();
  for (const auto& [id, b] : snap->brokers)
    p->brokers[id] = ClusterBroker{id, b.epoch, b.registration.listeners, b.registration.rack};
  for (const auto& [name, g] : snap->groups) p->groups.emplace(name, picture_group(g, p->brokers));
  if (snap->controller) p->controller = snap->controller->broker_id;
  if (auto it = snap->raw.find(keys_.coordinators()); it != snap->raw.end()) {
    auto rec = cluster::decode_coordinators(it->second.value);
    if (rec.ok()) {
      p->coordinator_shards = rec->shards;
      if (rec->on_groups())
        p->coordinator_groups = rec->groups;
      else
        p->coordinators = rec->placement.leaders(rec->shards);
    } else {
      broker_log().warn("cluster: {} does not decode: {}", keys_.coordinators(), rec.status().to_string());
    }
  }
  picture_.store(std::move(p), std::memory_order_release);
  latest_ = snap;
  complete_up_to(seen_waiters_, snap->revision);  // the writers first: followers may reload over their changes
  for (auto& fn : view_followers_) fn(snap);
  group_controller_->on_snapshot(snap);
  for (auto& m : members_) m->on_snapshot(snap);
  sync_topics();
}

ClusterGroup picture_group(const cluster::GroupInfo& info, const std::map<int32_t, ClusterBroker>& brokers) {
  ClusterGroup g;
  if (info.spec) g.members = info.spec->members;
  if (info.state) {
    const cluster::GroupState& s = *info.state;
    auto leader = brokers.find(s.leader);
    if (leader != brokers.end() && leader->second.epoch == s.leader_broker_epoch) g.leader = s.leader;
    g.epoch = s.epoch;
    g.sss = s.sss;
  }
  for (int32_t m : g.members)
    if (brokers.count(m) == 0) g.offline.push_back(m);
  return g;
}

std::vector<int32_t> ClusterLink::live_brokers() const {
  std::vector<int32_t> out;
  for (const auto& [id, b] : picture()->brokers) out.push_back(id);
  return out;
}

// Brings the registry to the latest snapshot, one change at a time (each is durable locally
// before the next starts); a snapshot that arrives meanwhile is applied after.
//
// A replicated topic's partitions are in its group's store: the member leading the group
// creates, grows, reconfigures and deletes them there as for a topic of one copy (its writes
// reach the other members' stores through replication); a follower (or fenced member) never
// writes its store: it publishes the topics of etcd its store holds (the leader's `t/`
// records, replicated), with the partitions the leader allocated, and drops from its registry
// those its store or etcd no longer has. A new leader reconciles both ways: it creates what
// etcd has and its store lacks, and deletes what its store has and etcd no longer has.
void ClusterLink::sync_topics() {
  if (topics_ == nullptr || syncing_ || !latest_) return;
  if (latest_->revision <= synced_revision_ && !resync_) return;
  syncing_ = true;
  resync_ = false;
  const auto snap = latest_;
  using Step = std::function<void(std::function<void(TopicError)>)>;
  auto steps = std::make_shared<std::vector<std::pair<std::string, Step>>>();
  TopicRegistry& reg = *topics_;
  auto step_now = [](std::function<void()> fn) {  // a change made at once, in order with the others
    return [fn = std::move(fn)](std::function<void(TopicError)> done) {
      fn();
      done({});
    };
  };

  // Each group store of this broker: whether it leads, and the topics it holds.
  struct GroupSide {
    bool leading = false;
    std::map<std::string, Topic> stored;
  };
  std::map<StoreSlot, GroupSide> sides;
  for (size_t slot = 1; slot < reg.stores().size(); ++slot) {
    const GroupMember* m = member_of(static_cast<StoreSlot>(slot));
    if (m == nullptr) continue;
    GroupSide& side = sides[static_cast<StoreSlot>(slot)];
    side.leading = m->leading_epoch() >= 0;
    side.stored = reg.stored_topics(static_cast<StoreSlot>(slot));
  }
  auto in_group_store = [](const Topic& t) { return !t.partitions.empty() && t.partitions[0].slot != kRootSlot; };

  // A topic unpublished while etcd still had it: deleted once etcd has no topic of its id (before a
  // new topic of its name is published below, so the offsets removed are the old topic's only).
  for (auto it = unpublished_.begin(); it != unpublished_.end();) {
    const cluster::TopicInfo* info = snap->topic(it->first);
    const auto id = info != nullptr ? parse_uuid_hex(info->record.id) : std::nullopt;
    if (id && *id == it->second) {
      ++it;
      continue;
    }
    steps->emplace_back("unpublish " + it->first, [&reg, n = it->first](auto done) { reg.forget(n, true, done); });
    it = unpublished_.erase(it);
  }

  for (const auto& [name, info] : snap->topics) {
    const auto id = parse_uuid_hex(info.record.id);
    auto placement = cluster::decode_placement(info.record.placement, info.record.partitions);
    if (!id || !placement.ok()) {
      broker_log().warn("cluster: topic record not applied: topic={} error={}", name,
                        !id ? std::string("bad id") : placement.status().to_string());
      continue;
    }
    const int32_t partitions = info.record.partitions;
    const auto& configs = info.record.configs;
    TopicPtr local = reg.find(name);

    if (placement->replicated()) {
      const std::vector<std::string> groups = placement->groups(partitions);
      if (std::any_of(groups.begin(), groups.end(), [&](const std::string& g) { return g != groups[0]; })) {
        broker_log().warn("cluster: topic record not applied: topic={} error=its partitions are in several "
                          "replication groups, which this broker does not serve yet", name);
        continue;
      }
      const std::optional<StoreSlot> slot = slot_of(groups[0]);
      if (!slot || !sides.count(*slot)) continue;  // not a member of its group: nothing of it is here
      GroupSide& side = sides[*slot];
      const cluster::GroupInfo* group = snap->group(groups[0]);
      const int32_t leader = group != nullptr && group->state ? group->state->leader : -1;
      auto stored = side.stored.find(name);
      const bool stored_same = stored != side.stored.end() && stored->second.id == *id;
      if (!side.leading) {
        if (stored_same) {
          Topic t = stored->second;
          t.leaders.assign(t.partitions.size(), leader);
          unpublished_.erase(name);
          if (!local || local->id != t.id || local->partitions != t.partitions || local->configs != t.configs ||
              local->leaders != t.leaders)
            steps->emplace_back("publish " + name, step_now([&reg, t] { reg.adopt(t); }));
        } else if (local && local->id != *id) {  // etcd deleted the one published (and has a new one)
          steps->emplace_back("unpublish " + name, [&reg, n = name](auto done) { reg.forget(n, true, done); });
        } else if (local) {  // the store lost it first: etcd's deletion decides about its offsets
          unpublished_[name] = local->id;
          steps->emplace_back("unpublish " + name, step_now([&reg, n = name] { reg.forget(n); }));
        }
        continue;
      }
      const std::vector<int32_t> leaders(static_cast<size_t>(partitions), leader);
      if (local && local->id != *id) {
        steps->emplace_back("replace " + name, [&reg, n = name](auto done) { reg.apply_remove(n, done); });
        local = nullptr;
      }
      if (!local && stored != side.stored.end() && !stored_same) {
        steps->emplace_back("drop stored " + name, [&reg, t = stored->second](auto done) { reg.drop_stored(t, done); });
      } else if (!local && stored_same) {  // it led before, or followed: the store has it already
        Topic t = stored->second;
        t.leaders.assign(t.partitions.size(), leader);
        steps->emplace_back("publish " + name, step_now([&reg, t] { reg.adopt(t); }));
        local = std::make_shared<const Topic>(std::move(t));
      }
      if (!local) {
        steps->emplace_back("create " + name, [&reg, n = name, id = *id, partitions, configs, leaders,
                                               slot = *slot](auto done) {
          reg.apply_create(n, id, partitions, configs, leaders, done, slot);
        });
        continue;
      }
      if (static_cast<int32_t>(local->partitions.size()) < partitions)
        steps->emplace_back("grow " + name, [&reg, n = name, partitions, leaders, slot = *slot](auto done) {
          reg.apply_grow(n, partitions, leaders, done, slot);
        });
      if (local->configs != configs || local->leaders != leaders)
        steps->emplace_back("update " + name, [&reg, n = name, configs, leaders](auto done) {
          reg.apply_update(n, configs, leaders, done);
        });
      continue;
    }

    std::vector<int32_t> leaders = placement->leaders(partitions);
    if (local && local->id != *id) {
      if (in_group_store(*local) && !sides[local->partitions[0].slot].leading) {  // etcd deleted it
        steps->emplace_back("unpublish " + name, [&reg, n = name](auto done) { reg.forget(n, true, done); });
      } else {
        steps->emplace_back("replace " + name, [&reg, n = name](auto done) { reg.apply_remove(n, done); });
      }
      local = nullptr;
    }
    if (!local) {
      steps->emplace_back("create " + name, [&reg, n = name, id = *id, partitions, configs, leaders](auto done) {
        reg.apply_create(n, id, partitions, configs, leaders, done);
      });
      continue;
    }
    if (static_cast<int32_t>(local->partitions.size()) < partitions)
      steps->emplace_back("grow " + name, [&reg, n = name, partitions, leaders](auto done) {
        reg.apply_grow(n, partitions, leaders, done);
      });
    if (local->configs != configs || local->leaders != leaders)
      steps->emplace_back("update " + name, [&reg, n = name, configs, leaders](auto done) {
        reg.apply_update(n, configs, leaders, done);
      });
  }
  for (const TopicPtr& t : reg.all()) {
    if (t->internal || snap->topic(t->name) != nullptr) continue;
    if (in_group_store(*t) && !sides[t->partitions[0].slot].leading) {  // its leader deletes the data
      steps->emplace_back("unpublish " + t->name, [&reg, n = t->name](auto done) { reg.forget(n, true, done); });
      continue;
    }
    steps->emplace_back("delete " + t->name, [&reg, n = t->name](auto done) { reg.apply_remove(n, done); });
  }
  // A leader's store may hold topics etcd no longer has that its registry never published (it
  // was deleted while another member led, and that deletion did not reach this store).
  for (const auto& [slot, side] : sides) {
    if (!side.leading) continue;
    for (const auto& [name, t] : side.stored) {
      const cluster::TopicInfo* info = snap->topic(name);
      const TopicPtr local = reg.find(name);
      if (info != nullptr || (local && local->id == t.id)) continue;  // etcd's (handled above), or deleted above
      steps->emplace_back("drop stored " + name, [&reg, t = t](auto done) { reg.drop_stored(t, done); });
    }
  }

  auto next = std::make_shared<std::function<void(size_t)>>();
  *next = [this, steps, snap, next](size_t i) {
    if (i == steps->size()) {
      syncing_ = false;
      asio::post(io_, [next] { *next = nullptr; });  // breaks the cycle once this call has returned
      synced(snap->revision);
      sync_topics();
      return;
    }
    (*steps)[i].second([this, steps, next, i](TopicError e) {
      if (!e.ok()) broker_log().error("cluster: {} failed: {}", (*steps)[i].first, e.message);
      asio::post(io_, [next, i] { (*next)(i + 1); });
    });
  };
  (*next)(0);
}

void ClusterLink::resync() {
  resync_ = true;
  sync_topics();
}

void ClusterLink::synced(int64_t revision) {
  synced_revision_ = std::max(synced_revision_, revision);
  const auto now = std::chrono::steady_clock::now();
  for (auto it = sync_waiters_.begin(); it != sync_waiters_.end() && it->first <= synced_revision_;) {
    if (it->second.expires > now && it->second.ready && !it->second.ready()) {
      ++it;
      continue;
    }
    auto done = std::move(it->second.done);
    it = sync_waiters_.erase(it);
    done({});  // past its deadline, it has answered already: this does nothing
  }
}

void ClusterLink::when_synced(int64_t revision, std::function<void(TopicError)> done, std::function<bool()> ready) {
  if (revision <= synced_revision_ && (!ready || ready())) return done({});
  // Whichever comes first: the registry catches up, or the deadline.
  sync_waiters_.emplace(revision,
                        SyncWaiter{std::move(ready),
                                   within_deadline(io_, std::move(done),
                                                   topic_error(ErrorCode::kRequestTimedOut,
                                                               "the change was written to etcd but this broker has "
                                                               "not applied it yet")),
                                   std::chrono::steady_clock::now() + kSyncDeadline});
}

bool ClusterLink::settled(const std::string& name) const {
  const TopicPtr local = topics_->find(name);
  const cluster::TopicInfo* info = latest_ ? latest_->topic(name) : nullptr;
  const bool local_in_group = local && !local->partitions.empty() && local->partitions[0].slot != kRootSlot;
  if (info == nullptr) return !local_in_group;
  auto placement = cluster::decode_placement(info->record.placement, info->record.partitions);
  if (!placement.ok() || !placement->replicated()) return true;  // applied with the revision
  if (!slot_of(placement->groups(1)[0])) return true;            // not a member of its group
  const auto id = parse_uuid_hex(info->record.id);
  return local && id && local->id == *id &&
         static_cast<int32_t>(local->partitions.size()) >= info->record.partitions &&
         local->configs == info->record.configs;
}

std::optional<StoreSlot> ClusterLink::slot_of(std::string_view group) const {
  if (stores_ == nullptr) return std::nullopt;
  for (size_t slot = 1; slot < stores_->size(); ++slot)
    if (stores_->entries()[slot].name == group && member_of(static_cast<StoreSlot>(slot)) != nullptr)
      return static_cast<StoreSlot>(slot);
  return std::nullopt;
}

std::map<std::string, std::vector<int32_t>> ClusterLink::replication_groups() const {
  std::map<std::string, std::vector<int32_t>> out;
  const auto snap = view_->snapshot();
  for (const auto& [name, info] : snap->groups)
    if (info.spec) out[name] = info.spec->members;
  for (const ReplicationGroup& g : config_.replication_groups) out.try_emplace(g.name, g.members);
  return out;
}

std::pair<TopicError, std::string> ClusterLink::group_for(int32_t replication_factor, std::string_view topic) const {
  std::vector<std::string> fit;
  std::set<size_t> sizes;
  for (const auto& [name, members] : replication_groups()) {
    sizes.insert(members.size());
    if (static_cast<int64_t>(members.size()) == replication_factor) fit.push_back(name);
  }
  if (!fit.empty())
    return {{}, fit[static_cast<size_t>(placement_start(topic)) % fit.size()]};
  std::string have;
  for (size_t n : sizes) have += (have.empty() ? "" : ", ") + std::to_string(n);
  return {topic_error(ErrorCode::kInvalidReplicationFactor,
                      "replication factor " + std::to_string(replication_factor) +
                          " cannot be met: a topic has 1 copy or as many as a replication group has members " +
                          (have.empty() ? std::string("(this cluster has no replication group)")
                                        : "(this cluster's groups have " + have + ")")),
          {}};
}

std::pair<TopicError, std::string> ClusterLink::group_with(std::vector<int32_t> brokers) const {
  std::sort(brokers.begin(), brokers.end());
  for (auto [name, members] : replication_groups()) {
    std::sort(members.begin(), members.end());
    if (members == brokers) return {{}, name};
  }
  return {topic_error(ErrorCode::kInvalidReplicaAssignment,
                      "a partition with more than one replica must be assigned exactly the members of a "
                      "replication group"),
          {}};
}

// ---- the shared broker state ----

void ClusterLink::when_seen(int64_t revision, std::function<void(Status)> done) {
  if (revision <= view_->snapshot()->revision) return done({});
  seen_waiters_.emplace(revision, within_deadline(io_, std::move(done),
                                                  Status::io_error("written to etcd, but this broker's view has not "
                                                                   "seen it yet")));
}

void ClusterLink::follow_view(std::function<void(const SnapshotPtr&)> fn) {
  asio::post(io_, [this, fn = std::move(fn)]() mutable {
    fn(view_->snapshot());
    view_followers_.push_back(std::move(fn));
  });
}

void ClusterLink::commit(cluster::Txn txn, TxnCallback done) {
  auto work = [this, txn = std::move(txn), done = std::move(done)]() mutable -> asio::awaitable<void> {
    auto r = co_await client_->txn(std::move(txn));
    if (!r.ok()) co_return done(r.status());
    if (!changed_a_key(*r)) co_return done(std::move(r));
    const int64_t revision = r->header.revision;
    when_seen(revision, [r = std::move(r), done = std::move(done)](Status s) {
      if (!s.ok()) return done(s);
      done(r);
    });
  };
  asio::co_spawn(io_, std::move(work), asio::detached);
}

// A founding broker that served topics as a single broker keeps them: each becomes a record
// placed on this broker alone.
asio::awaitable<void> ClusterLink::publish_local_topics(TopicRegistry& topics) {
  for (const TopicPtr& t : topics.all()) {
    if (t->internal) continue;
    cluster::TopicRecord rec;
    rec.id = uuid_hex(t->id);
    rec.partitions = static_cast<int32_t>(t->partitions.size());
    cluster::Placement p;
    p.add_round_robin(0, {self_}, 0);
    rec.placement = cluster::encode_placement(p);
    rec.configs = t->configs;
    const std::string key = keys_.topic(t->name);
    cluster::Txn txn{{cluster::Compare::absent(key)}, {cluster::PutRequest{key, cluster::encode_topic(rec)}}, {}};
    auto r = co_await client_->txn(std::move(txn));
    if (!r.ok()) broker_log().error("cluster: topic {} not published: {}", t->name, r.status().to_string());
    else broker_log().info("cluster: published this broker's topic: topic={}", t->name);
  }
}

// ---- topic changes ----

void ClusterLink::create(std::string name, int32_t partitions, std::map<std::string, std::string> configs,
                         std::vector<int32_t> assignment, std::string group, std::function<void(TopicError)> done) {
  auto work = [this, name = std::move(name), partitions, configs = std::move(configs),
               assignment = std::move(assignment), group = std::move(group),
               done = std::move(done)]() -> asio::awaitable<void> {
    cluster::Placement placement;
    if (!group.empty()) {
      placement.group_ranges.push_back({0, 0, {group}});
    } else if (assignment.empty()) {
      const auto live = live_brokers();
      if (live.empty()) {
        done(topic_error(ErrorCode::kBrokerNotAvailable, "no broker is registered in the cluster"));
        co_return;
      }
      placement.add_round_robin(0, live, placement_start(name));
    } else {
      add_assignment(placement, 0, assignment);
    }
    cluster::TopicRecord rec;
    rec.id = uuid_hex(TopicRegistry::new_topic_id());
    rec.partitions = partitions;
    rec.placement = cluster::encode_placement(placement);
    rec.configs = configs;
    const std::string key = keys_.topic(name);
    cluster::Txn txn{{cluster::Compare::absent(key)}, {cluster::PutRequest{key, cluster::encode_topic(rec)}}, {}};
    auto r = co_await client_->txn(std::move(txn));
    if (!r.ok()) co_return done(etcd_error(r.status()));
    if (!r->succeeded) co_return done(topic_error(ErrorCode::kTopicAlreadyExists, "topic '" + name + "' already exists"));
    broker_log().info("cluster: created topic: name={} partitions={} group={} revision={}", name, partitions,
                      group.empty() ? "-" : group, r->header.revision);
    when_synced(r->header.revision, done, [this, name] { return settled(name); });
  };
  asio::co_spawn(io_, std::move(work), asio::detached);
}

void ClusterLink::remove(std::string name, std::function<void(TopicError)> done) {
  auto work = [this, name = std::move(name), done = std::move(done)]() -> asio::awaitable<void> {
    cluster::DeleteRequest req{.key = keys_.topic(name)};
    auto r = co_await client_->delete_range(std::move(req));
    if (!r.ok()) co_return done(etcd_error(r.status()));
    if (r->deleted == 0) co_return done(topic_error(ErrorCode::kUnknownTopicOrPartition, "no topic '" + name + "'"));
    broker_log().info("cluster: deleted topic: name={} revision={}", name, r->header.revision);
    when_synced(r->header.revision, done, [this, name] { return settled(name); });
  };
  asio::co_spawn(io_, std::move(work), asio::detached);
}

void ClusterLink::update_topic(std::string name, std::function<TopicError(cluster::TopicRecord&)> change,
                               std::function<void(TopicError)> done) {
  auto work = [this, name = std::move(name), change = std::move(change),
               done = std::move(done)]() -> asio::awaitable<void> {
    const std::string key = keys_.topic(name);
    for (int attempt = 0; attempt < 10; ++attempt) {
      cluster::RangeRequest read{.key = key};
      auto current = co_await client_->range(std::move(read));
      if (!current.ok()) co_return done(etcd_error(current.status()));
      if (current->kvs.empty()) co_return done(topic_error(ErrorCode::kUnknownTopicOrPartition, "no topic '" + name + "'"));
      const cluster::KeyValue& kv = current->kvs[0];
      auto rec = cluster::decode_topic(kv.value);
      if (!rec.ok()) co_return done(topic_error(ErrorCode::kUnknownServerError, rec.status().to_string()));
      if (TopicError e = change(*rec); !e.ok()) co_return done(std::move(e));
      cluster::Txn txn{{cluster::Compare::modified_at(key, kv.mod_revision)},
                       {cluster::PutRequest{key, cluster::encode_topic(*rec)}},
                       {}};
      auto r = co_await client_->txn(std::move(txn));
      if (!r.ok()) co_return done(etcd_error(r.status()));
      if (r->succeeded) {
        when_synced(r->header.revision, done, [this, name] { return settled(name); });
        co_return;
      }
      // Another broker changed the topic in between: read it again.
    }
    done(topic_error(ErrorCode::kRequestTimedOut, "topic '" + name + "' kept changing; try again"));
  };
  asio::co_spawn(io_, std::move(work), asio::detached);
}

void ClusterLink::add_partitions(std::string name, int32_t new_total, std::vector<int32_t> assignment,
                                 std::function<void(TopicError)> done) {
  auto change = [this, new_total, assignment = std::move(assignment), name](cluster::TopicRecord& rec) -> TopicError {
    const int32_t have = rec.partitions;
    if (new_total <= have)
      return topic_error(ErrorCode::kInvalidPartitions, "topic '" + name + "' already has " + std::to_string(have) +
                                                            " partitions; the count can only grow");
    auto placement = cluster::decode_placement(rec.placement, have);
    if (!placement.ok()) return topic_error(ErrorCode::kUnknownServerError, placement.status().to_string());
    if (placement->replicated()) {
      // The last group range covers the new partitions: they go where the topic's others are.
    } else if (assignment.empty()) {
      const auto live = live_brokers();
      if (live.empty()) return topic_error(ErrorCode::kBrokerNotAvailable, "no broker is registered in the cluster");
      placement->add_round_robin(have, live, placement_start(name) + have);
    } else {
      add_assignment(*placement, have, assignment);
    }
    rec.partitions = new_total;
    rec.placement = cluster::encode_placement(*placement);
    return {};
  };
  update_topic(std::move(name), std::move(change), std::move(done));
}

void ClusterLink::set_configs(std::string name, std::map<std::string, std::string> configs,
                              std::function<void(TopicError)> done) {
  update_topic(
      std::move(name),
      [configs = std::move(configs)](cluster::TopicRecord& rec) {
        rec.configs = configs;
        return TopicError{};
      },
      std::move(done));
}

// ---- coordinators and producer ids ----

// Coordinator shards placed on brokers (a v1 record, written before the cluster had replication
// groups) stay there: their offsets and transactions are in those brokers' root stores, and
// nothing moves them into the groups' stores. Such a cluster refuses groups.
Status ClusterLink::check_coordinators_record() const {
  const auto groups = replication_groups();
  if (groups.empty()) return {};
  const auto snap = view_->snapshot();
  auto it = snap->raw.find(keys_.coordinators());
  if (it == snap->raw.end()) return {};
  auto rec = cluster::decode_coordinators(it->second.value);
  if (!rec.ok() || rec->on_groups()) return {};  // one that does not decode is logged by the view
  return Status::invalid_argument(
      keys_.coordinators() + " places the coordinator shards on brokers (written before this cluster had "
      "replication groups), but the cluster now has replication group " + groups.begin()->first +
      ": committed offsets and transactions are not moved from the brokers' stores into a group's. Start "
      "without rokka.replication.groups, or use a new rokka.cluster.root");
}

int32_t ClusterLink::coordinator_of(std::string_view key) {
  const auto p = picture();
  if (p->coordinator_shards == 0) {
    asio::post(io_, [this] {
      if (placing_coordinators_) return;
      placing_coordinators_ = true;
      asio::co_spawn(io_, place_coordinators(), asio::detached);
    });
    return -1;
  }
  const int32_t shard = cluster::coordinator_shard(key, p->coordinator_shards);
  if (!p->coordinator_groups.empty()) {
    const ClusterGroup* g = p->group(p->coordinator_groups[static_cast<size_t>(shard) % p->coordinator_groups.size()]);
    return g == nullptr ? -1 : g->leader;  // -1 unless the incarnation the state names is registered
  }
  const int32_t broker = p->coordinators[static_cast<size_t>(shard)];
  return p->live(broker) ? broker : -1;
}

std::string ClusterLink::coordinator_group(std::string_view key) const {
  const auto p = picture();
  if (p->coordinator_shards == 0 || p->coordinator_groups.empty()) return {};
  const int32_t shard = cluster::coordinator_shard(key, p->coordinator_shards);
  return p->coordinator_groups[static_cast<size_t>(shard) % p->coordinator_groups.size()];
}

// The coordinator shards are placed once, at the first FindCoordinator, as Kafka creates
// __consumer_offsets then: over the cluster's replication groups when it has any (a shard's
// state is in its group's store and fails over with the group), else over the brokers alive
// then (each shard's groups and transactions stay with that broker).
asio::awaitable<void> ClusterLink::place_coordinators() {
  const auto live = live_brokers();
  std::vector<std::string> groups;
  for (const auto& [name, members] : replication_groups()) groups.push_back(name);
  if (!live.empty()) {
    cluster::CoordinatorsRecord rec;
    rec.shards = kCoordinatorShards;
    if (!groups.empty())
      rec.groups = groups;
    else
      rec.placement.add_round_robin(0, live, 0);
    const std::string key = keys_.coordinators();
    cluster::Txn txn{{cluster::Compare::absent(key)}, {cluster::PutRequest{key, cluster::encode_coordinators(rec)}}, {}};
    auto r = co_await client_->txn(std::move(txn));
    if (!r.ok()) broker_log().warn("cluster: placing the coordinators failed: {}", r.status().to_string());
    else if (r->succeeded && rec.on_groups())
      broker_log().info("cluster: placed {} coordinator shards over {} replication groups", rec.shards, groups.size());
    else if (r->succeeded)
      broker_log().info("cluster: placed {} coordinator shards over {} brokers", rec.shards, live.size());
  }
  placing_coordinators_ = false;  // the view brings the record (ours or another broker's)
}

void ClusterLink::reserve_producer_ids(std::function<void(Result<std::pair<int64_t, int64_t>>)> done) {
  auto work = [this, done = std::move(done)]() -> asio::awaitable<void> {
    auto block = co_await producer_ids_->allocate();
    if (!block.ok()) co_return done(block.status());
    done(std::pair{block->first, block->end});
  };
  asio::co_spawn(io_, std::move(work), asio::detached);
}

}  // namespace rokka::broker
