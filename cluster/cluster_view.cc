#include "cluster/cluster_view.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "cluster/log.h"

namespace rokka::cluster {

namespace asio = boost::asio;

const BrokerInfo* ClusterSnapshot::broker(int32_t id) const {
  auto it = brokers.find(id);
  return it == brokers.end() ? nullptr : &it->second;
}

const TopicInfo* ClusterSnapshot::topic(std::string_view name) const {
  auto it = topics.find(name);
  return it == topics.end() ? nullptr : &it->second;
}

const GroupInfo* ClusterSnapshot::group(std::string_view name) const {
  auto it = groups.find(name);
  return it == groups.end() ? nullptr : &it->second;
}

std::vector<const KeyValue*> ClusterSnapshot::with_prefix(std::string_view prefix) const {
  std::vector<const KeyValue*> out;
  for (auto it = raw.lower_bound(prefix); it != raw.end() && it->first.starts_with(prefix); ++it) {
    out.push_back(&it->second);
  }
  return out;
}

std::shared_ptr<const ClusterSnapshot> build_snapshot(const Keys& keys, KeyMap kvs, int64_t revision) {
  auto s = std::make_shared<ClusterSnapshot>();
  s->revision = revision;
  const std::string cluster_id_key = keys.cluster_id();
  const std::string controller_key = keys.controller();
  const std::string epoch_counter_key = keys.epoch_counter();
  const std::string meta_prefix = keys.meta_prefix();
  for (const auto& [key, kv] : kvs) {
    bool ok = true;
    if (key == cluster_id_key) {
      auto id = decode_cluster_id(kv.value);
      ok = id.ok();
      if (ok) s->cluster_id = std::move(*id);
    } else if (key == controller_key) {
      auto broker = decode_controller(kv.value);
      ok = broker.ok();
      if (ok) s->controller = ControllerInfo{*broker, kv.create_revision};
    } else if (auto id = keys.broker_id_of(key)) {
      auto reg = decode_broker_registration(kv.value);
      ok = reg.ok();
      if (ok) s->brokers.emplace(*id, BrokerInfo{*id, kv.create_revision, kv.lease, std::move(*reg)});
    } else if (auto name = keys.topic_of(key)) {
      auto topic = decode_topic(kv.value);
      ok = topic.ok();
      if (ok) {
        std::string n(*name);
        s->topics.emplace(n, TopicInfo{n, std::move(*topic), kv.create_revision, kv.mod_revision});
      }
    } else if (key == epoch_counter_key) {
      auto counter = decode_epoch_counter(kv.value);
      ok = counter.ok();
      if (ok) s->epoch_counter = *counter;
      s->epoch_counter_mod_revision = kv.mod_revision;
    } else if (auto g = keys.group_of(key)) {
      auto [it, fresh] = s->groups.try_emplace(std::string(g->group));
      GroupInfo& info = it->second;
      if (fresh) info.name = it->first;
      if (g->part == Keys::GroupKey::Part::kSpec) {
        auto spec = decode_group_spec(kv.value);
        ok = spec.ok();
        if (ok) info.spec = std::move(*spec);
        info.spec_mod_revision = kv.mod_revision;
      } else {
        auto state = decode_group_state(kv.value);
        ok = state.ok();
        if (ok) info.state = std::move(*state);
        info.state_mod_revision = kv.mod_revision;
      }
    } else if (key.starts_with(meta_prefix)) {
      ok = decode_meta_value(kv.value).ok();  // listed here; its readers skip it
    }
    if (!ok) s->malformed.push_back(key);
  }
  s->raw = std::move(kvs);
  return s;
}

std::shared_ptr<ClusterView> ClusterView::create(std::shared_ptr<EtcdClient> client, Keys keys,
                                                 ClusterViewOptions options) {
  return std::shared_ptr<ClusterView>(new ClusterView(std::move(client), std::move(keys), options));
}

ClusterView::ClusterView(std::shared_ptr<EtcdClient> client, Keys keys, ClusterViewOptions options)
    : client_(std::move(client)), keys_(std::move(keys)), options_(options), wake_(client_->executor()),
      snapshot_(std::make_shared<const ClusterSnapshot>()) {}

ClusterView::~ClusterView() = default;

void ClusterView::start() {
  if (started_) return;
  started_ = true;
  auto self = shared_from_this();
  asio::co_spawn(client_->executor(), [self] { return self->run(); }, asio::detached);
}

void ClusterView::stop() {
  stopped_ = true;
  if (watcher_) watcher_->stop();
  wake_.notify();
}

void ClusterView::pause_watch_for_test() {
  paused_ = true;
  wake_.notify();
}

void ClusterView::resume_watch_for_test() {
  paused_ = false;
  wake_.notify();
}

void ClusterView::publish() {
  auto snap = build_snapshot(keys_, kvs_, revision_);
  // Each malformed value is logged once (again only when it is rewritten), not at every snapshot.
  std::map<std::string, int64_t> warned;
  for (const auto& key : snap->malformed) {
    auto kv = kvs_.find(key);
    const int64_t rev = kv == kvs_.end() ? 0 : kv->second.mod_revision;
    auto seen = warned_.find(key);
    if (seen == warned_.end() || seen->second != rev)
      log().warn("cluster view: value does not decode, ignored: key={} mod_revision={}", key, rev);
    warned.emplace(key, rev);
  }
  warned_ = std::move(warned);
  snapshot_.store(snap, std::memory_order_release);
  for (auto& fn : subscribers_) fn(snap);
}

void ClusterView::apply(const WatchResponse& msg) {
  for (const WatchEvent& e : msg.events) {
    if (e.type == WatchEvent::Type::kDelete) kvs_.erase(e.kv.key);
    else kvs_[e.kv.key] = e.kv;
  }
  revision_ = std::max(msg.header.revision, msg.events.back().kv.mod_revision);
  publish();
}

// One consistent read of every key under the root. False if stopped.
asio::awaitable<bool> ClusterView::read_all() {
  const std::string prefix = keys_.prefix();
  const std::string end = prefix_range_end(prefix);
  while (!stopped_) {
    KeyMap kvs;
    int64_t revision = 0;
    std::string from = prefix;
    Status failed;
    for (;;) {
      RangeRequest req{.key = from, .range_end = end, .revision = revision, .limit = options_.page_size};
      auto page = co_await client_->range(std::move(req));
      if (stopped_) co_return false;
      if (!page.ok()) {
        failed = page.status();  // kOutOfRange: R was compacted between pages: start over
        break;
      }
      if (revision == 0) revision = page->header.revision;
      for (KeyValue& kv : page->kvs) {
        std::string key = kv.key;
        kvs.emplace(std::move(key), std::move(kv));
      }
      if (!page->more || kvs.empty()) break;
      from = kvs.rbegin()->first + '\0';  // the next key after the last one read
    }
    if (failed.ok()) {
      kvs_ = std::move(kvs);
      revision_ = revision;
      log().info("cluster view read: keys={} revision={}", kvs_.size(), revision_);
      publish();
      ++full_reads_;  // after the snapshot is out: whoever sees the count sees the read
      co_return true;
    }
    log().warn("cluster view read failed: error={}", failed.to_string());
    co_await wake_.wait(Clock::now() + options_.retry_backoff);
  }
  co_return false;
}

asio::awaitable<void> ClusterView::run() {
  auto self = shared_from_this();
  const std::string prefix = keys_.prefix();
  while (!stopped_) {
    if (!co_await read_all()) break;
    compacted_ = false;
    int64_t next = revision_ + 1;
    std::weak_ptr<ClusterView> weak = self;
    while (!stopped_ && !compacted_) {
      if (paused_) {
        if (watcher_) {
          next = watcher_->next_revision();
          watcher_->stop();
          watcher_.reset();
        }
        co_await wake_.wait();
        continue;
      }
      if (!watcher_) {
        watcher_ = Watcher::start(
            client_, {prefix, prefix_range_end(prefix), next},
            [weak](const WatchResponse& msg) {
              if (auto s = weak.lock()) s->apply(msg);
            },
            [weak](int64_t) {
              if (auto s = weak.lock()) {
                s->compacted_ = true;  // events were lost to compaction: read everything again
                s->wake_.notify();
              }
            });
      }
      co_await wake_.wait();
    }
    if (watcher_) {
      watcher_->stop();
      watcher_.reset();
    }
  }
}

}  // namespace rokka::cluster
