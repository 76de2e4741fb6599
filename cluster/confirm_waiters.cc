#include "cluster/confirm_waiters.h"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <optional>

namespace rokka::cluster {

namespace asio = boost::asio;

const char* confirm_outcome_name(ConfirmOutcome::Kind kind) {
  switch (kind) {
    case ConfirmOutcome::Kind::kConfirmed: return "confirmed";
    case ConfirmOutcome::Kind::kTimedOut: return "timed_out";
    case ConfirmOutcome::Kind::kNotLeader: return "not_leader";
    case ConfirmOutcome::Kind::kNotEnoughReplicas: return "not_enough_replicas";
    case ConfirmOutcome::Kind::kShutdown: return "shutdown";
  }
  return "?";
}

int64_t confirm_position(int32_t leader, int64_t leader_end, std::span<const int32_t> in_sync,
                         std::span<const MemberAck> acks, int64_t floor) {
  int64_t c = leader_end;
  for (int32_t member : in_sync) {
    if (member == leader) continue;
    auto it = std::find_if(acks.begin(), acks.end(), [&](const MemberAck& a) { return a.member == member; });
    if (it == acks.end()) return floor;
    c = std::min(c, it->end);
  }
  return std::max(c, floor);
}

void ConfirmWaiters::run(Resolved& resolved) {
  for (auto& [done, outcome] : resolved) {
    if (done) done(std::move(outcome));
  }
}

uint64_t ConfirmWaiters::add(int64_t position, Clock::time_point deadline, Callback done) {
  std::optional<ConfirmOutcome> now;
  uint64_t id = 0;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    if (closed_) {
      now = closed_with_;
    } else if (position <= confirmed_) {
      now = ConfirmOutcome{ConfirmOutcome::Kind::kConfirmed, {}, in_sync_};
    } else if (deadline <= Clock::now()) {
      now = ConfirmOutcome{ConfirmOutcome::Kind::kTimedOut, "deadline passed before C reached the position"};
    } else {
      by_position_.emplace(position, Waiter{id, deadline, std::move(done)});
      positions_.emplace(id, position);
      return id;
    }
  }
  if (done) done(std::move(*now));
  return id;
}

bool ConfirmWaiters::cancel(uint64_t id) {
  Callback dropped;  // destroyed outside the lock
  std::lock_guard lock(mu_);
  auto pos = positions_.find(id);
  if (pos == positions_.end()) return false;
  auto [first, last] = by_position_.equal_range(pos->second);
  for (auto it = first; it != last; ++it) {
    if (it->second.id == id) {
      dropped = std::move(it->second.done);
      by_position_.erase(it);
      break;
    }
  }
  positions_.erase(pos);
  return true;
}

void ConfirmWaiters::confirm(int64_t position, size_t in_sync) {
  Resolved resolved;
  {
    std::lock_guard lock(mu_);
    in_sync_ = in_sync;
    if (position <= confirmed_) return;
    confirmed_ = position;
    auto end = by_position_.upper_bound(position);
    for (auto it = by_position_.begin(); it != end; ++it) {
      positions_.erase(it->second.id);
      resolved.emplace_back(std::move(it->second.done), ConfirmOutcome{ConfirmOutcome::Kind::kConfirmed, {}, in_sync});
    }
    by_position_.erase(by_position_.begin(), end);
  }
  run(resolved);
}

int64_t ConfirmWaiters::confirmed() const {
  std::lock_guard lock(mu_);
  return confirmed_;
}

ConfirmWaiters::Clock::time_point ConfirmWaiters::expire(Clock::time_point now) {
  Resolved resolved;
  auto earliest = Clock::time_point::max();
  {
    std::lock_guard lock(mu_);
    for (auto it = by_position_.begin(); it != by_position_.end();) {
      if (it->second.deadline <= now) {
        positions_.erase(it->second.id);
        resolved.emplace_back(std::move(it->second.done),
                              ConfirmOutcome{ConfirmOutcome::Kind::kTimedOut, "C did not reach the position in time"});
        it = by_position_.erase(it);
      } else {
        earliest = std::min(earliest, it->second.deadline);
        ++it;
      }
    }
  }
  run(resolved);
  return earliest;
}

void ConfirmWaiters::fail_all(ConfirmOutcome::Kind kind, const std::string& reason) {
  Resolved resolved;
  {
    std::lock_guard lock(mu_);
    for (auto& [position, w] : by_position_) resolved.emplace_back(std::move(w.done), ConfirmOutcome{kind, reason});
    by_position_.clear();
    positions_.clear();
  }
  run(resolved);
}

void ConfirmWaiters::close(ConfirmOutcome::Kind kind, const std::string& reason) {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    closed_with_ = ConfirmOutcome{kind, reason};
  }
  fail_all(kind, reason);
}

void ConfirmWaiters::reopen(int64_t confirmed, size_t in_sync) {
  std::lock_guard lock(mu_);
  closed_ = false;
  confirmed_ = confirmed;
  in_sync_ = in_sync;
}

size_t ConfirmWaiters::size() const {
  std::lock_guard lock(mu_);
  return by_position_.size();
}

asio::awaitable<ConfirmOutcome> ConfirmWaiters::wait(int64_t position, Clock::time_point deadline) {
  auto ex = co_await asio::this_coro::executor;
  struct State {
    explicit State(asio::any_io_executor ex) : timer(std::move(ex)) {}
    asio::steady_timer timer;
    std::optional<ConfirmOutcome> outcome;
  };
  auto state = std::make_shared<State>(ex);
  const uint64_t id = add(position, deadline, [state, ex](ConfirmOutcome o) {
    asio::post(ex, [state, o = std::move(o)]() mutable {
      state->outcome = std::move(o);
      state->timer.cancel();
    });
  });
  auto until = deadline;
  while (!state->outcome) {
    state->timer.expires_at(until);
    co_await state->timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (state->outcome) break;
    if (Clock::now() >= until && until == deadline) {
      if (cancel(id)) co_return ConfirmOutcome{ConfirmOutcome::Kind::kTimedOut, "C did not reach the position in time"};
      until = Clock::time_point::max();  // answered meanwhile: its post is on the way
    }
  }
  co_return std::move(*state->outcome);
}

}  // namespace rokka::cluster
