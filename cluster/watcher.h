// Watcher: one etcd watch that outlives its streams. When a stream breaks (a member died,
// the connection was cut, a member lost its leader) it opens a new one, on the next endpoint
// if need be, from the revision after the last one it delivered, so the caller sees every
// event once, in revision order. If that revision has been compacted away, etcd can no
// longer say what happened in between: the watcher reports ErrCompacted through
// `on_compacted` and stops; the caller re-reads and starts a new watcher.
//
// Threading: the client's executor; callbacks run there. stop() from that executor.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "cluster/etcd_client.h"
#include "cluster/signal.h"

namespace rokka::cluster {

class Watcher : public std::enable_shared_from_this<Watcher> {
 public:
  struct Options {
    std::string key;
    std::string range_end;       // prefix_range_end(prefix) for a prefix
    int64_t start_revision = 0;  // 0: from the revision the first stream is created at
    bool prev_kv = false;
    std::chrono::milliseconds retry_backoff{200};
  };
  // A message with events (never empty), in revision order, each revision delivered once.
  using EventsFn = std::function<void(const WatchResponse&)>;
  // Terminal: the revision to resume from was compacted (compact_revision: the oldest kept).
  using CompactedFn = std::function<void(int64_t compact_revision)>;

  static std::shared_ptr<Watcher> start(std::shared_ptr<EtcdClient> client, Options options, EventsFn on_events,
                                        CompactedFn on_compacted);
  ~Watcher();

  void stop();
  bool stopped() const { return stopped_; }
  // The revision the next stream would start from.
  int64_t next_revision() const { return next_revision_; }
  uint64_t streams_opened() const { return streams_opened_; }
  // Test hook: cuts the current stream (as a broken connection would); the watcher resumes.
  void break_stream_for_test();

 private:
  Watcher(std::shared_ptr<EtcdClient> client, Options options, EventsFn on_events, CompactedFn on_compacted);
  boost::asio::awaitable<void> run();

  std::shared_ptr<EtcdClient> client_;
  Options options_;
  EventsFn on_events_;
  CompactedFn on_compacted_;
  Signal wake_;
  std::shared_ptr<WatchStream> stream_;
  int64_t next_revision_ = 0;
  uint64_t streams_opened_ = 0;
  bool stopped_ = false;
};

}  // namespace rokka::cluster
