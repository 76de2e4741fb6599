#include "cluster/watcher.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "cluster/log.h"

namespace rokka::cluster {

namespace asio = boost::asio;

std::shared_ptr<Watcher> Watcher::start(std::shared_ptr<EtcdClient> client, Options options, EventsFn on_events,
                                        CompactedFn on_compacted) {
  std::shared_ptr<Watcher> w(
      new Watcher(std::move(client), std::move(options), std::move(on_events), std::move(on_compacted)));
  asio::co_spawn(w->client_->executor(), [w]() { return w->run(); }, asio::detached);
  return w;
}

Watcher::Watcher(std::shared_ptr<EtcdClient> client, Options options, EventsFn on_events, CompactedFn on_compacted)
    : client_(std::move(client)),
      options_(std::move(options)),
      on_events_(std::move(on_events)),
      on_compacted_(std::move(on_compacted)),
      wake_(client_->executor()),
      next_revision_(options_.start_revision) {}

Watcher::~Watcher() = default;

void Watcher::stop() {
  stopped_ = true;
  if (stream_) stream_->close();
  wake_.notify();
}

void Watcher::break_stream_for_test() {
  if (stream_) stream_->close();
}

asio::awaitable<void> Watcher::run() {
  auto self = shared_from_this();
  while (!stopped_) {
    WatchCreate req{options_.key, options_.range_end, next_revision_, options_.prev_kv, true};
    auto opened = co_await client_->watch(req);
    if (stopped_) break;
    if (!opened.ok()) {
      if (opened.status().code() == StatusCode::kShutdown) break;
      log().warn("etcd watch: open failed: key={} from_revision={} error={}", options_.key, next_revision_,
                 opened.status().to_string());
      co_await wake_.wait(Clock::now() + options_.retry_backoff);
      continue;
    }
    stream_ = std::shared_ptr<WatchStream>(std::move(*opened));
    ++streams_opened_;
    if (next_revision_ == 0) next_revision_ = stream_->created_revision() + 1;
    Status broke;
    while (!stopped_) {
      auto msg = co_await stream_->next();
      if (stopped_) break;
      if (!msg.ok()) {
        broke = msg.status();
        break;
      }
      if (msg->canceled) {
        if (msg->compact_revision > 0) {
          stopped_ = true;
          stream_->close();
          log().info("etcd watch: revision compacted: key={} from_revision={} compact_revision={}", options_.key,
                     next_revision_, msg->compact_revision);
          if (on_compacted_) on_compacted_(msg->compact_revision);
          co_return;
        }
        broke = Status::io_error("watch canceled by etcd: " + msg->cancel_reason);
        break;
      }
      if (msg->events.empty()) {
        // A progress notice: nothing at or below header.revision is still to come.
        if (!msg->created && msg->header.revision >= next_revision_) next_revision_ = msg->header.revision + 1;
        continue;
      }
      // Events below next_revision_ were delivered by an earlier stream.
      std::erase_if(msg->events, [&](const WatchEvent& e) { return e.kv.mod_revision < next_revision_; });
      if (msg->events.empty()) continue;
      next_revision_ = msg->events.back().kv.mod_revision + 1;
      if (on_events_) on_events_(*msg);
    }
    stream_->close();
    stream_.reset();
    if (stopped_) break;
    log().info("etcd watch: stream broke, resuming: key={} from_revision={} error={}", options_.key, next_revision_,
               broke.to_string());
    co_await wake_.wait(Clock::now() + options_.retry_backoff);
  }
}

}  // namespace rokka::cluster
