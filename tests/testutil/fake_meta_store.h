// An in-memory storage::MetaStore whose writes become durable only when the test says so.
//
// write() queues the batch; nothing is visible to scan() and no callback runs until the
// test completes it: complete_next()/complete_all() apply batches in order (the
// "durable" moment) and run their callbacks; fail_next() drops a batch and reports an
// error instead. With set_auto_complete(true) every write completes inside write().
// Thread-safe, so an asio test may complete writes from any thread.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/meta_store.h"

namespace rokka::testutil {

class FakeMetaStore : public storage::MetaStore {
 public:
  void write(std::vector<Mutation> batch, storage::StatusCallback done) override {
    std::unique_lock lock(mu_);
    queue_.push_back({std::move(batch), std::move(done)});
    ++writes_;
    if (auto_complete_) {
      lock.unlock();
      complete_all();
    }
  }

  std::vector<std::pair<std::string, std::string>> scan(std::string_view prefix) const override {
    std::lock_guard lock(mu_);
    std::vector<std::pair<std::string, std::string>> out;
    for (auto it = data_.lower_bound(std::string(prefix)); it != data_.end() && it->first.starts_with(prefix); ++it) {
      out.push_back(*it);
    }
    return out;
  }

  void set_auto_complete(bool on) {
    std::lock_guard lock(mu_);
    auto_complete_ = on;
  }
  size_t pending() const {
    std::lock_guard lock(mu_);
    return queue_.size();
  }
  size_t writes() const {
    std::lock_guard lock(mu_);
    return writes_;
  }
  size_t size() const {
    std::lock_guard lock(mu_);
    return data_.size();
  }
  bool contains(const std::string& key) const {
    std::lock_guard lock(mu_);
    return data_.count(key) != 0;
  }
  // Installs a record directly, as if written and made durable long ago.
  void put(std::string key, std::string value) {
    std::lock_guard lock(mu_);
    data_[std::move(key)] = std::move(value);
  }

  // Makes the oldest queued batch durable and runs its callback. False if none queued.
  bool complete_next() { return finish_next(storage::Status()); }
  // Drops the oldest queued batch and reports `error` to its callback.
  bool fail_next(storage::Status error = storage::Status::io_error("injected write failure")) {
    return finish_next(std::move(error));
  }
  size_t complete_all() {
    size_t n = 0;
    while (complete_next()) ++n;
    return n;
  }

 private:
  struct Queued {
    std::vector<Mutation> batch;
    storage::StatusCallback done;
  };

  bool finish_next(storage::Status status) {
    Queued q;
    {
      std::lock_guard lock(mu_);
      if (queue_.empty()) return false;
      q = std::move(queue_.front());
      queue_.pop_front();
      if (status.ok()) {
        for (Mutation& m : q.batch) {
          if (m.erase) {
            data_.erase(m.key);
          } else {
            data_[std::move(m.key)] = std::move(m.value);
          }
        }
      }
    }
    q.done(std::move(status));  // outside the lock: the callback may write again
    return true;
  }

  mutable std::mutex mu_;
  std::map<std::string, std::string> data_;
  std::deque<Queued> queue_;
  size_t writes_ = 0;
  bool auto_complete_ = false;
};

}  // namespace rokka::testutil
