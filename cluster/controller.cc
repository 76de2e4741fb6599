#include "cluster/controller.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "cluster/log.h"
#include "cluster/records.h"

namespace rokka::cluster {

namespace asio = boost::asio;
using namespace std::chrono_literals;

Txn controller_guard(const Keys& keys, int64_t epoch, Txn txn) {
  txn.compare.insert(txn.compare.begin(), Compare::created_at(keys.controller(), epoch));
  return txn;
}

std::shared_ptr<ControllerElection> ControllerElection::create(std::shared_ptr<EtcdClient> client, Keys keys,
                                                               std::shared_ptr<Membership> membership) {
  return std::shared_ptr<ControllerElection>(
      new ControllerElection(std::move(client), std::move(keys), std::move(membership)));
}

ControllerElection::ControllerElection(std::shared_ptr<EtcdClient> client, Keys keys,
                                       std::shared_ptr<Membership> membership)
    : client_(std::move(client)), keys_(std::move(keys)), membership_(std::move(membership)),
      wake_(client_->executor()) {}

ControllerElection::~ControllerElection() = default;

void ControllerElection::start() {
  if (started_) return;
  started_ = true;
  std::weak_ptr<ControllerElection> weak = shared_from_this();
  membership_->subscribe([weak](const MembershipEvent& e) {
    if (auto self = weak.lock()) self->on_membership(e);
  });
  auto self = shared_from_this();
  asio::co_spawn(client_->executor(), [self] { return self->run(); }, asio::detached);
}

void ControllerElection::emit(const ControllerEvent& e) {
  for (auto& fn : subscribers_) fn(e);
}

void ControllerElection::lose(const char* why) {
  const int64_t epoch = epoch_.exchange(0);
  if (epoch == 0) return;
  log().warn("controller lost: broker_id={} epoch={} reason={}", membership_->options().broker_id, epoch, why);
  emit({ControllerEvent::Kind::kLost, epoch});
}

void ControllerElection::on_membership(const MembershipEvent& e) {
  // Fenced: the lease may end any moment, and with it the controller key. Stop at once.
  if (e.kind == MembershipEvent::Kind::kFenced) lose("broker fenced");
  wake_.notify();
}

asio::awaitable<void> ControllerElection::stop(bool resign) {
  auto self = shared_from_this();
  if (stopped_) co_return;
  stopped_ = true;
  const int64_t epoch = epoch_.load();
  lose("stopped");
  if (watcher_) watcher_->stop();
  wake_.notify();
  if (resign && epoch != 0) {
    Txn resign_txn;
    resign_txn.success.push_back(DeleteRequest{.key = keys_.controller()});
    auto r = co_await client_->txn(controller_guard(keys_, epoch, std::move(resign_txn)), Clock::now() + 2s);
    if (!r.ok()) log().warn("controller resign failed: error={}", r.status().to_string());
  }
}

asio::awaitable<void> ControllerElection::run() {
  auto self = shared_from_this();
  const std::string key = keys_.controller();
  const int32_t me = membership_->options().broker_id;
  while (!stopped_) {
    const int64_t lease = membership_->lease_id();
    if (!membership_->serving() || membership_->fenced() || lease == 0) {
      co_await wake_.wait();
      continue;
    }
    Txn campaign{{Compare::absent(key)}, {PutRequest{key, encode_controller(me), lease}}, {RangeRequest{.key = key}}};
    auto r = co_await client_->txn(std::move(campaign));
    if (stopped_) break;
    if (!r.ok()) {
      log().warn("controller campaign failed: broker_id={} error={}", me, r.status().to_string());
      co_await wake_.wait(Clock::now() + 200ms);
      continue;
    }
    int64_t created = r->header.revision;
    bool mine = r->succeeded;
    if (!mine) {
      const auto* seen = r->responses.empty() ? nullptr : std::get_if<RangeResult>(&r->responses[0]);
      if (seen == nullptr || seen->kvs.empty()) continue;  // deleted meanwhile
      created = seen->kvs[0].create_revision;
      mine = seen->kvs[0].lease == lease;  // an earlier campaign of ours (or ours before a fence)
    }
    if (mine && membership_->serving() && !membership_->fenced() && membership_->lease_id() == lease) {
      epoch_ = created;
      log().info("controller elected: broker_id={} epoch={}", me, created);
      emit({ControllerEvent::Kind::kElected, created});
    }
    // Watch the key until it is deleted or re-created by someone else; then campaign again.
    key_changed_ = false;
    std::weak_ptr<ControllerElection> weak = self;
    watcher_ = Watcher::start(
        client_, {key, {}, r->header.revision + 1},
        [weak, created](const WatchResponse& msg) {
          auto s = weak.lock();
          if (!s) return;
          for (const WatchEvent& e : msg.events) {
            if (e.type == WatchEvent::Type::kDelete || e.kv.create_revision != created) s->key_changed_ = true;
          }
          if (s->key_changed_) s->wake_.notify();
        },
        [weak](int64_t) {
          if (auto s = weak.lock()) {
            s->key_changed_ = true;  // history gone: re-read by campaigning again
            s->wake_.notify();
          }
        });
    const bool was_mine = epoch_.load() != 0;
    while (!stopped_ && !key_changed_ && (!was_mine || epoch_.load() != 0)) co_await wake_.wait();
    watcher_->stop();
    watcher_.reset();
    if (key_changed_) lose("controller key deleted or replaced");
  }
}

}  // namespace rokka::cluster
