// The coordinator's surroundings, by hand: a FakeMetaStore whose writes complete when the
// test says, and a queue standing in for the strand (post() never runs inline).
#pragma once

#include <deque>
#include <functional>
#include <utility>

#include "coordinator/durable_writer.h"
#include "tests/testutil/fake_meta_store.h"

namespace rokka::coordinator::test {

class FakeStrand {
 public:
  // What a coordinator core takes as its `post`.
  Post post() {
    return [this](std::function<void()> fn) { posted_.push_back(std::move(fn)); };
  }
  // Runs queued strand work until there is none.
  void drain() {
    while (!posted_.empty()) {
      auto fn = std::move(posted_.front());
      posted_.pop_front();
      fn();
    }
  }
  // Makes every queued write durable and runs what follows from it, until quiet.
  void settle() {
    do {
      meta.complete_all();
      drain();
    } while (meta.pending() != 0 || !posted_.empty());
  }
  // Fails the oldest queued write and runs what follows.
  void fail_next_write() {
    meta.fail_next();
    drain();
  }
  // Drops queued strand work unrun (a crash: completions for a core that is gone).
  void forget_posted() { posted_.clear(); }

  testutil::FakeMetaStore meta;

 private:
  std::deque<std::function<void()>> posted_;
};

}  // namespace rokka::coordinator::test
