#include "broker/link/group_controller.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <set>
#include <utility>

#include "broker/logging.h"

namespace rokka::broker {
namespace asio = boost::asio;
using cluster::ClusterSnapshot;
using cluster::GroupSpec;
using cluster::GroupState;
using storage::StatusCode;

namespace {

std::string ids(const std::vector<int32_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out + "]";
}

std::string describe(const GroupState& s) {
  return "leader=" + std::to_string(s.leader) + " leader_broker_epoch=" + std::to_string(s.leader_broker_epoch) +
         " epoch=" + std::to_string(s.epoch) + " sss=" + ids(s.sss) + " sss_version=" + std::to_string(s.sss_version);
}

const char* kind_name(GroupStep::Kind k) {
  switch (k) {
    case GroupStep::Kind::kWriteSpec: return "spec";
    case GroupStep::Kind::kBootstrap: return "bootstrap";
    case GroupStep::Kind::kElect: return "election";
    case GroupStep::Kind::kNothing: break;
  }
  return "nothing";
}

}  // namespace

GroupStep next_group_step(const ClusterSnapshot& snap, std::string_view group, const GroupSpec* configured,
                          bool unclean_allowed) {
  GroupStep step;
  const cluster::GroupInfo* info = snap.group(group);
  if (info == nullptr || info->spec_mod_revision == 0) {
    if (configured != nullptr) {
      step.kind = GroupStep::Kind::kWriteSpec;
      step.spec = *configured;
    } else if (info != nullptr) {
      step.note = "a state without a spec: left alone";
    }
    return step;
  }
  if (!info->spec) {
    step.note = "the spec does not decode: left alone";
    return step;
  }
  if (configured != nullptr && *configured != *info->spec)
    step.note = "etcd's spec " + ids(info->spec->members) + " differs from rokka.replication.groups " +
                ids(configured->members) + ": etcd's is used";
  if (snap.epoch_counter_mod_revision != 0 && !snap.epoch_counter) {
    step.note = "the epoch counter does not decode: no election until it does";
    return step;
  }
  const cluster::LiveMembers live = cluster::live_members(snap, group);
  const cluster::SeenRevisions seen{info->state_mod_revision, snap.epoch_counter_mod_revision};
  if (info->state_mod_revision == 0) {
    auto first = cluster::bootstrap(*info->spec, live, snap.epoch_counter);
    if (!first.ok()) {
      if (step.note.empty())
        step.note = first.status().code() == StatusCode::kNotFound
                        ? "no leader yet: no live member has published a hint for the group (opened its store)"
                        : "no bootstrap: " + first.status().to_string();
      return step;
    }
    step.kind = GroupStep::Kind::kBootstrap;
    step.state = std::move(*first);
    step.seen = seen;
    return step;
  }
  if (!info->state) {
    step.note = "the state does not decode: left alone";
    return step;
  }
  auto next = cluster::elect(*info->spec, *info->state, live, unclean_allowed, snap.epoch_counter);
  if (!next.ok()) {
    step.note = "no election: " + next.status().to_string();
    return step;
  }
  if (*next) {
    step.kind = GroupStep::Kind::kElect;
    step.state = std::move(**next);
    step.seen = seen;
  } else if (info->state->leader == cluster::kNoLeader && step.note.empty()) {
    step.note = "offline: no member of its sss " + ids(info->state->sss) + " is registered";
  }
  return step;
}

GroupController::Options GroupController::options_from(const BrokerConfig& config) {
  Options o;
  for (const ReplicationGroup& g : config.replication_groups) o.configured[g.name] = GroupSpec{g.members};
  o.unclean_allowed = config.unclean_leader_election_enable;
  return o;
}

std::shared_ptr<GroupController> GroupController::create(std::shared_ptr<cluster::EtcdClient> client,
                                                         cluster::Keys keys, Options options) {
  return std::shared_ptr<GroupController>(new GroupController(std::move(client), std::move(keys), std::move(options)));
}

GroupController::GroupController(std::shared_ptr<cluster::EtcdClient> client, cluster::Keys keys, Options options)
    : client_(std::move(client)), keys_(std::move(keys)), options_(std::move(options)), retry_(client_->executor()) {}

void GroupController::on_controller(const cluster::ControllerEvent& e) {
  groups_.clear();  // a txn of the old epoch in flight no longer counts: it fails its guard
  if (e.kind == cluster::ControllerEvent::Kind::kElected) {
    epoch_ = e.epoch;
    decide();
  } else if (epoch_ == e.epoch) {
    epoch_ = 0;
  }
}

void GroupController::on_snapshot(const cluster::ClusterView::SnapshotPtr& snap) {
  latest_ = snap;
  decide();
}

void GroupController::stop() {
  stopped_ = true;
  epoch_ = 0;
  retry_.cancel();
}

void GroupController::decide() {
  if (stopped_ || epoch_ == 0 || !latest_ || latest_->revision == 0) return;
  const ClusterSnapshot& snap = *latest_;
  std::set<std::string, std::less<>> names;
  for (const auto& [name, spec] : options_.configured) names.insert(name);
  for (const auto& [name, info] : snap.groups) names.insert(name);
  for (const std::string& name : names) {
    Group& g = groups_[name];
    if (g.in_flight || snap.revision < g.settle_revision) continue;
    auto it = options_.configured.find(name);
    GroupStep step = next_group_step(snap, name, it == options_.configured.end() ? nullptr : &it->second,
                                     options_.unclean_allowed);
    if (step.note != g.note) {
      if (!step.note.empty()) broker_log().warn("replication group: group={} reason={}", name, step.note);
      g.note = step.note;
    }
    if (step.kind != GroupStep::Kind::kNothing) send(name, std::move(step));
  }
}

void GroupController::send(const std::string& group, GroupStep step) {
  cluster::Txn txn = step.kind == GroupStep::Kind::kWriteSpec
                         ? cluster::controller_guard(keys_, epoch_, cluster::create_spec_txn(keys_, group, step.spec))
                         : cluster::election_txn(keys_, epoch_, group, step.state, step.seen);
  groups_[group].in_flight = true;
  const int64_t epoch = epoch_;
  const int64_t decided_at = latest_->revision;
  auto self = shared_from_this();
  auto work = [self, group, epoch, decided_at, step = std::move(step),
               txn = std::move(txn)]() mutable -> asio::awaitable<void> {
    auto r = co_await self->client_->txn(std::move(txn));
    self->done(group, epoch, decided_at, step, r);
  };
  asio::co_spawn(client_->executor(), std::move(work), asio::detached);
}

void GroupController::done(const std::string& group, int64_t epoch, int64_t decided_at, const GroupStep& step,
                           const storage::Result<cluster::TxnResult>& r) {
  if (stopped_ || epoch != epoch_) return;  // no longer this controller's
  Group& g = groups_[group];
  g.in_flight = false;
  const char* what = kind_name(step.kind);
  if (!r.ok()) {
    // Perhaps applied ("outcome unknown"): the retry's compares settle it.
    broker_log().warn("replication group write failed, retrying: group={} write={} error={}", group, what,
                      r.status().to_string());
    retry_later();
    return;
  }
  if (!r->succeeded) {
    // The state, the counter or the controller key moved (or the spec exists) after the
    // snapshot decided on: the view brings the change, and a newer snapshot decides again (it
    // may be here already).
    broker_log().info("replication group write did not apply, re-reading: group={} write={} decided_at={}", group,
                      what, decided_at);
    g.settle_revision = decided_at + 1;
    decide();
    return;
  }
  g.settle_revision = r->header.revision;
  if (step.kind == GroupStep::Kind::kWriteSpec)
    broker_log().info("replication group spec written: group={} members={} revision={}", group,
                      ids(step.spec.members), r->header.revision);
  else
    broker_log().info("replication group state written: group={} write={} {} controller_epoch={} revision={}", group,
                      what, describe(step.state), epoch, r->header.revision);
  decide();  // the snapshot with this write may have come while it was in flight
}

void GroupController::retry_later() {
  if (retry_pending_) return;
  retry_pending_ = true;
  retry_.expires_after(options_.retry_backoff);
  retry_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    self->retry_pending_ = false;
    if (!ec) self->decide();
  });
}

}  // namespace rokka::broker
