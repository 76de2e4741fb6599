// DurableWriter: MetaStore writes whose completion comes back on the coordinator's strand.
//
// storage::MetaStore::write() reports on the store's writer thread; the coordinator is
// single-threaded, so every completion is handed to `post`, which must run it later on
// the coordinator's strand -- never inline, never on another thread.
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "storage/meta_store.h"

namespace rokka::coordinator {

// Runs a function later on the coordinator's strand (never inline).
using Post = std::function<void(std::function<void()>)>;
using DurableCallback = std::function<void(storage::Status)>;

class DurableWriter {
 public:
  DurableWriter(storage::MetaStore& meta, Post post) : meta_(meta), post_(std::move(post)) {}

  // Applies `batch` atomically; `done` runs on the strand once it is durable (ok) or failed.
  void write(std::vector<storage::MetaStore::Mutation> batch, DurableCallback done) {
    meta_.write(std::move(batch), [post = post_, done = std::move(done)](storage::Status status) {
      post([done, status = std::move(status)]() mutable { done(std::move(status)); });
    });
  }

  storage::MetaStore& meta() { return meta_; }

 private:
  storage::MetaStore& meta_;
  Post post_;
};

}  // namespace rokka::coordinator
