#include "cluster/replication_server.h"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <deque>

#include "cluster/log.h"
#include "cluster/replication_io.h"
#include "cluster/signal.h"

namespace rokka::cluster {

namespace asio = boost::asio;
using asio::ip::tcp;
using storage::Result;
using storage::Status;
using Clock = std::chrono::steady_clock;

namespace {
constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);
constexpr size_t kNoData = 0;  // the leader reads HELLO and ACKs: a DATA it receives has no room
// Distinct ends remembered per session for caught_up_at. Past it a new frame joins the newest run,
// which then asks for the newer end: caught_up_at may come later than due, never earlier.
constexpr size_t kMaxUnackedRuns = 4096;

void note_sent(std::deque<std::pair<int64_t, uint64_t>>& unacked, int64_t end) {
  if (!unacked.empty() && (unacked.back().first == end || unacked.size() >= kMaxUnackedRuns)) {
    unacked.back().first = std::max(unacked.back().first, end);
    ++unacked.back().second;
  } else {
    unacked.emplace_back(end, 1);
  }
}
}

struct ReplicationServer::Session {
  explicit Session(tcp::socket s) : conn(std::move(s)), wake(conn.socket.get_executor()) {}
  repl::Connection conn;
  Signal wake;  // new entries, C moved, or the session ends
  int32_t follower_id = -1;
  int64_t cursor = 0;  // the next position to send; everything below was sent (or is being sent)
  int64_t last_sent_confirm = -1;
  // The leader's log_end when each DATA frame not yet acked was sent, oldest first, equal ends
  // run-length merged: {end, frames}. The follower acks every DATA in order, so an ACK answers
  // the front frame.
  std::deque<std::pair<int64_t, uint64_t>> unacked;
  bool ended = false;
  std::string peer;
};

std::shared_ptr<ReplicationServer> ReplicationServer::create(asio::any_io_executor ex, std::shared_ptr<ReplicatedLog> log,
                                                             ReplicationServerOptions options) {
  return std::shared_ptr<ReplicationServer>(new ReplicationServer(std::move(ex), std::move(log), std::move(options)));
}

ReplicationServer::ReplicationServer(asio::any_io_executor ex, std::shared_ptr<ReplicatedLog> log,
                                     ReplicationServerOptions options)
    : ex_(ex), log_(std::move(log)), options_(std::move(options)), acceptor_(ex) {
  options_.max_frame_bytes = std::clamp<size_t>(options_.max_frame_bytes, 1, repl::data_bound(options_.max_entry_bytes));
  in_sync_ = options_.in_sync;
  waiters_.reopen(options_.confirmed, in_sync_size());
}

ReplicationServer::~ReplicationServer() = default;

Result<tcp::endpoint> ReplicationServer::listen(const tcp::endpoint& at) {
  boost::system::error_code ec;
  acceptor_.open(at.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(at, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::io_error("replication listener " + at.address().to_string() + ":" + std::to_string(at.port()) +
                                  ": " + ec.message());
  auto bound = acceptor_.local_endpoint(ec);
  if (ec) return Status::io_error("replication listener: " + ec.message());
  auto self = shared_from_this();
  log_->set_append_notifier([weak = weak_from_this()] {
    if (auto server = weak.lock()) server->notify_appended();
  });
  asio::co_spawn(ex_, [self] { return self->accept_loop(); }, asio::detached);
  asio::co_spawn(ex_, [self] { return self->tick_loop(); }, asio::detached);
  log().info("replication: group {} epoch {} leader {} listening on {}:{}", options_.group, options_.epoch,
             options_.leader_id, bound.address().to_string(), bound.port());
  return bound;
}

void ReplicationServer::set_in_sync(std::vector<int32_t> members) {
  asio::post(ex_, [self = shared_from_this(), members = std::move(members)]() mutable {
    self->in_sync_ = std::move(members);
    self->recompute_confirm();
  });
}

void ReplicationServer::notify_appended() {
  if (notify_queued_.exchange(true, std::memory_order_acq_rel)) return;  // the queued one will see this too
  asio::post(ex_, [self = shared_from_this()] {
    self->notify_queued_.store(false, std::memory_order_release);  // before reading the log: no news lost
    self->recompute_confirm();
    self->wake_all();
  });
}

void ReplicationServer::stop(ConfirmOutcome::Kind why, std::string reason) {
  log_->set_append_notifier(nullptr);  // here, not posted: the log stops calling at once
  asio::post(ex_, [self = shared_from_this(), why, reason = std::move(reason)] {
    if (self->stopped_) return;
    self->stopped_ = true;
    boost::system::error_code ignored;
    self->acceptor_.close(ignored);
    if (self->tick_timer_) self->tick_timer_->cancel();
    auto sessions = self->sessions_;
    for (auto& [id, s] : sessions) self->end_session(s, Status::shutdown(reason));
    self->waiters_.close(why, reason);
  });
}

std::vector<FollowerProgress> ReplicationServer::followers() const {
  std::lock_guard lock(progress_mu_);
  std::vector<FollowerProgress> out;
  for (const auto& [id, p] : progress_) out.push_back(p);
  return out;
}

std::optional<FollowerProgress> ReplicationServer::follower(int32_t id) const {
  std::lock_guard lock(progress_mu_);
  auto it = progress_.find(id);
  if (it == progress_.end()) return std::nullopt;
  return it->second;
}

size_t ReplicationServer::sessions() const {
  std::lock_guard lock(progress_mu_);
  return static_cast<size_t>(std::count_if(progress_.begin(), progress_.end(), [](const auto& p) { return p.second.connected; }));
}

asio::awaitable<void> ReplicationServer::accept_loop() {
  auto self = shared_from_this();
  while (!stopped_) {
    auto [ec, socket] = co_await acceptor_.async_accept(kNoThrow);
    if (stopped_) break;
    if (ec) {
      log().warn("replication: group {}: accept failed: {}", options_.group, ec.message());
      asio::steady_timer pause(ex_, std::chrono::milliseconds(100));  // EMFILE and the like: do not spin
      co_await pause.async_wait(kNoThrow);
      continue;
    }
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    auto s = std::make_shared<Session>(std::move(socket));
    auto remote = s->conn.socket.remote_endpoint(ignored);
    s->peer = remote.address().to_string() + ":" + std::to_string(remote.port());
    asio::co_spawn(ex_, [self, s] { return self->run_session(s); }, asio::detached);
  }
}

asio::awaitable<void> ReplicationServer::tick_loop() {
  auto self = shared_from_this();
  tick_timer_ = std::make_unique<asio::steady_timer>(ex_);
  while (!stopped_) {
    tick_timer_->expires_after(options_.heartbeat);
    co_await tick_timer_->async_wait(kNoThrow);
    if (stopped_) break;
    recompute_confirm();  // the leader's own durable end moves without telling us
    waiters_.expire(Clock::now());
  }
}

std::variant<repl::Welcome, repl::Reject> ReplicationServer::answer(const repl::Hello& hello) const {
  using repl::RejectReason;
  auto reject = [&](RejectReason reason, std::string message) {
    return repl::Reject{.reason = reason, .leader_epoch = options_.epoch, .message = std::move(message)};
  };
  if (stopped_) return reject(RejectReason::kNotLeader, "the replication server is stopping");
  if (hello.cluster_id != options_.cluster_id || hello.group != options_.group) {
    return reject(RejectReason::kWrongGroup, "this listener serves group " + options_.group + " of cluster " +
                                                 options_.cluster_id);
  }
  if (hello.segment_bytes != options_.segment_bytes) {
    return reject(RejectReason::kSegmentBytesMismatch,
                  "segment bytes " + std::to_string(hello.segment_bytes) + ", the leader's are " +
                      std::to_string(options_.segment_bytes));
  }
  if (repl::data_bound(hello.max_entry_bytes) < repl::data_bound(options_.max_entry_bytes)) {
    // It would refuse the first DATA holding one of this log's largest entries, again at every
    // reconnection: refused here, with the reason.
    return reject(RejectReason::kEntryBoundTooSmall,
                  "max entry bytes " + std::to_string(hello.max_entry_bytes) + ", the leader's are " +
                      std::to_string(options_.max_entry_bytes));
  }
  if (!hello.epochs.empty() && hello.epochs.back().epoch > options_.epoch) {
    return reject(RejectReason::kStaleEpoch, "the follower has epoch " + std::to_string(hello.epochs.back().epoch) +
                                                 ", above the leader's " + std::to_string(options_.epoch));
  }
  const auto epochs = log_->epochs();
  const int64_t begin = log_->log_begin();
  const int64_t end = log_->log_end();
  const int64_t cut = truncation_point(epochs, end, hello.epochs, hello.log_begin, hello.log_end);
  // Its log ends below what this leader holds: it starts over at the leader's log_begin from a
  // snapshot (truncate_to above its end says so; run_session sends the snapshot). A follower
  // holding entries at or above log_begin that diverge below it is refused.
  const bool rebootstrap = cut < begin && hello.log_end < begin;
  if (cut < begin && !rebootstrap) {
    return reject(RejectReason::kTooFarBehind, "the follower would resume at " + std::to_string(cut) +
                                                   ", below the leader's log begin " + std::to_string(begin));
  }
  if (cut > end) {
    return reject(RejectReason::kInvalid, "the follower's log begins at " + std::to_string(cut) +
                                              ", beyond the leader's end " + std::to_string(end));
  }
  // At most the newest kMaxEpochs (what a WELCOME may carry); the follower does not need older ones.
  const size_t skip = epochs.size() > repl::kMaxEpochs ? epochs.size() - repl::kMaxEpochs : 0;
  return repl::Welcome{.leader_id = options_.leader_id,
                       .epoch = options_.epoch,
                       .epochs = std::vector<EpochStart>(epochs.begin() + static_cast<std::ptrdiff_t>(skip), epochs.end()),
                       .truncate_to = rebootstrap ? begin : cut,
                       .leader_log_begin = begin,
                       .leader_log_end = end};
}

asio::awaitable<Result<LogSnapshot>> ReplicationServer::take_snapshot() {
  auto result = std::make_shared<Result<LogSnapshot>>(Status::shutdown("no snapshot"));
  auto target = log_;
  std::function<void(storage::StatusCallback)> op = [target, result](storage::StatusCallback done) {
    target->bootstrap_snapshot([result, done = std::move(done)](Result<LogSnapshot> r) {
      *result = std::move(r);  // read after await_status posted `done` to this executor
      done(result->ok() ? Status{} : result->status());
    });
  };
  Status got = co_await repl::await_status(std::move(op));
  if (!got.ok()) co_return got;
  if (static_cast<int64_t>((*result)->bytes.size()) > repl::kMaxSnapshotBytes || (*result)->bytes.empty()) {
    co_return Status::too_large("snapshot of " + std::to_string((*result)->bytes.size()) + " bytes, the bound is " +
                                std::to_string(repl::kMaxSnapshotBytes));
  }
  co_return std::move(*result);
}

asio::awaitable<void> ReplicationServer::run_session(std::shared_ptr<Session> s) {
  auto self = shared_from_this();
  s->conn.set_deadline(Clock::now() + options_.idle_timeout);
  asio::co_spawn(ex_, [s] { return s->conn.watchdog(); }, asio::detached);

  std::vector<std::byte> payload;
  auto header = co_await repl::read_frame(s->conn, payload, kNoData);
  if (!header.ok()) {
    end_session(s, header.status());
    co_return;
  }
  if (header->type != repl::FrameType::kHello) {
    end_session(s, Status::malformed(std::string("expected HELLO, got ") + repl::frame_type_name(header->type)));
    co_return;
  }
  auto hello = repl::decode_hello(payload);
  if (!hello.ok()) {
    end_session(s, hello.status());
    co_return;
  }
  auto answer_or_reject = answer(*hello);
  if (auto* reject = std::get_if<repl::Reject>(&answer_or_reject)) {
    const auto frame = repl::encode(*reject);
    Status sent = co_await repl::write_bytes(s->conn, frame);
    (void)sent;  // the session ends either way
    log().warn("replication: group {}: refused follower {} ({}): {}: {}", options_.group, hello->follower_id, s->peer,
               repl::reject_reason_name(reject->reason), reject->message);
    end_session(s, Status::conflict(reject->message));
    co_return;
  }
  auto welcome = std::get<repl::Welcome>(answer_or_reject);
  std::vector<std::byte> snapshot;
  if (welcome.truncate_to > hello->log_end) {  // re-bootstrap: the snapshot's begin is where it resumes
    auto snap = co_await take_snapshot();
    if (!snap.ok()) {
      const repl::Reject no{.reason = repl::RejectReason::kTooFarBehind,
                            .leader_epoch = options_.epoch,
                            .message = "the follower's log ends at " + std::to_string(hello->log_end) +
                                       ", below the leader's log begin; no snapshot: " + snap.status().to_string()};
      const auto frame = repl::encode(no);
      Status sent = co_await repl::write_bytes(s->conn, frame);
      (void)sent;  // the session ends either way
      log().warn("replication: group {}: refused follower {} ({}): too_far_behind: {}", options_.group,
                 hello->follower_id, s->peer, snap.status().to_string());
      end_session(s, snap.status());
      co_return;
    }
    welcome.truncate_to = welcome.leader_log_begin = snap->begin;
    welcome.leader_log_end = std::max(welcome.leader_log_end, snap->begin);
    snapshot = std::move(snap->bytes);
  }
  s->follower_id = hello->follower_id;
  s->cursor = welcome.truncate_to;
  if (auto it = sessions_.find(s->follower_id); it != sessions_.end() && it->second != s) {
    end_session(it->second, Status::shutdown("replaced by a new session of the same follower"));
  }
  sessions_[s->follower_id] = s;
  {
    std::lock_guard lock(progress_mu_);
    auto& p = progress_[s->follower_id];
    p.follower_id = s->follower_id;
    p.connected = true;
    p.sent_end = s->cursor;
    // The follower cut its log to truncate_to: nothing beyond it is acked any more.
    // (A follower re-bootstrapped holds nothing of its log until it acks.)
    p.written_end = std::min(p.written_end, std::min(welcome.truncate_to, hello->log_end));
    p.durable_end = std::min(p.durable_end, std::min(welcome.truncate_to, hello->log_end));
    ++p.sessions;
  }
  const auto frame = repl::encode(welcome);
  if (Status sent = co_await repl::write_bytes(s->conn, frame); !sent.ok()) {
    end_session(s, sent);
    co_return;
  }
  if (!snapshot.empty()) {
    // In pieces of at most kSnapshotChunkBytes; the follower resets, then takes DATA from its begin.
    const auto total = static_cast<int64_t>(snapshot.size());
    for (int64_t at = 0; at < total;) {
      const auto n = std::min<int64_t>(total - at, static_cast<int64_t>(repl::kSnapshotChunkBytes));
      const repl::SnapshotHeader h{.epoch = options_.epoch, .total_bytes = total, .offset = at};
      const auto piece = repl::encode_snapshot_piece(
          h, std::span<const std::byte>(snapshot).subspan(static_cast<size_t>(at), static_cast<size_t>(n)));
      if (Status sent = co_await repl::write_bytes(s->conn, piece); !sent.ok()) {
        end_session(s, sent);
        co_return;
      }
      at += n;
    }
    log().warn("replication: group {} epoch {}: follower {} ({}) re-bootstrapped from {} (its end was {}): snapshot of "
               "{} bytes", options_.group, options_.epoch, s->follower_id, s->peer, welcome.truncate_to, hello->log_end,
               total);
  }
  log().info("replication: group {} epoch {}: follower {} ({}) from {} (its end {}, leader end {})", options_.group,
             options_.epoch, s->follower_id, s->peer, welcome.truncate_to, hello->log_end, welcome.leader_log_end);
  s->conn.set_deadline(Clock::now() + options_.idle_timeout);
  asio::co_spawn(ex_, [self, s] { return self->ack_loop(s); }, asio::detached);
  Status why = co_await send_loop(s);
  end_session(s, why);
}

asio::awaitable<Status> ReplicationServer::send_loop(std::shared_ptr<Session> s) {
  auto last_send = Clock::now();
  while (!s->ended && !stopped_) {
    const int64_t end = log_->log_end();
    const int64_t confirm = waiters_.confirmed();
    if (s->cursor < end) {
      // At most max_frame_bytes, never past the start of the leader's next epoch.
      int64_t max = static_cast<int64_t>(options_.max_frame_bytes);
      for (const auto& e : log_->epochs()) {
        if (e.start > s->cursor) {
          max = std::min(max, e.start - s->cursor);
          break;
        }
      }
      auto slice = log_->read_log(s->cursor, max);
      if (!slice.ok()) co_return slice.status();
      const auto bytes = slice->bytes;
      if (bytes.size() > repl::data_bound(options_.max_entry_bytes)) {
        co_return Status::too_large("an entry of " + std::to_string(bytes.size()) + " bytes at " +
                                    std::to_string(s->cursor) + " does not fit a DATA frame");
      }
      if (!bytes.empty()) {
        const repl::DataHeader h{.epoch = options_.epoch, .from_pos = s->cursor, .confirm_pos = confirm, .leader_end = end};
        // Advanced before the write: the follower may ack these bytes before this coroutine resumes.
        s->cursor += static_cast<int64_t>(bytes.size());
        s->last_sent_confirm = confirm;
        note_sent(s->unacked, end);
        {
          std::lock_guard lock(progress_mu_);
          progress_[s->follower_id].sent_end = s->cursor;
        }
        if (Status st = co_await repl::write_data(s->conn, h, bytes); !st.ok()) co_return st;
        last_send = Clock::now();
        continue;
      }
    }
    if (confirm != s->last_sent_confirm || Clock::now() >= last_send + options_.heartbeat) {
      const repl::DataHeader h{.epoch = options_.epoch, .from_pos = s->cursor, .confirm_pos = confirm, .leader_end = end};
      s->last_sent_confirm = confirm;
      note_sent(s->unacked, end);
      if (Status st = co_await repl::write_data(s->conn, h, {}); !st.ok()) co_return st;
      last_send = Clock::now();
    }
    co_await s->wake.wait(last_send + options_.heartbeat);
  }
  co_return Status::shutdown("session ended");
}

asio::awaitable<void> ReplicationServer::ack_loop(std::shared_ptr<Session> s) {
  auto self = shared_from_this();
  std::vector<std::byte> payload;
  while (!s->ended) {
    auto header = co_await repl::read_frame(s->conn, payload, kNoData);
    if (s->ended) co_return;  // replaced or stopped while the frame came in: it counts no more
    if (!header.ok()) {
      end_session(s, header.status());
      co_return;
    }
    if (header->type != repl::FrameType::kAck) {
      end_session(s, Status::malformed(std::string("expected ACK, got ") + repl::frame_type_name(header->type)));
      co_return;
    }
    auto ack = repl::decode_ack(payload);
    if (!ack.ok()) {
      end_session(s, ack.status());
      co_return;
    }
    if (ack->written_end > s->cursor || ack->durable_end > ack->written_end) {
      end_session(s, Status::malformed("ACK of " + std::to_string(ack->written_end) + "/" +
                                       std::to_string(ack->durable_end) + " beyond what was sent (" +
                                       std::to_string(s->cursor) + ")"));
      co_return;
    }
    if (s->unacked.empty()) {
      end_session(s, Status::malformed("an ACK with no DATA frame to acknowledge"));
      co_return;
    }
    const int64_t end_when_sent = s->unacked.front().first;
    if (--s->unacked.front().second == 0) s->unacked.pop_front();
    const auto now = Clock::now();
    s->conn.set_deadline(now + options_.idle_timeout);
    {
      std::lock_guard lock(progress_mu_);
      auto& p = progress_[s->follower_id];
      p.written_end = ack->written_end;
      p.durable_end = ack->durable_end;
      p.last_ack = now;
      if (ack->written_end >= end_when_sent) p.caught_up_at = now;
    }
    recompute_confirm();
  }
}

void ReplicationServer::end_session(const std::shared_ptr<Session>& s, const Status& why) {
  if (s->ended) return;
  s->ended = true;
  s->conn.close();
  s->wake.notify();
  if (s->follower_id < 0) {
    log().info("replication: group {}: connection from {} closed: {}", options_.group, s->peer, why.to_string());
    return;
  }
  auto it = sessions_.find(s->follower_id);
  if (it != sessions_.end() && it->second == s) {
    sessions_.erase(it);
    std::lock_guard lock(progress_mu_);
    progress_[s->follower_id].connected = false;
  }
  log().info("replication: group {}: session of follower {} ({}) ended: {}", options_.group, s->follower_id, s->peer,
             why.to_string());
}

void ReplicationServer::recompute_confirm() {
  if (stopped_) return;
  std::vector<MemberAck> acks;
  {
    std::lock_guard lock(progress_mu_);
    for (const auto& [id, p] : progress_)
      acks.push_back(MemberAck{id, options_.confirm_written ? p.written_end : p.durable_end});
  }
  const int64_t before = waiters_.confirmed();
  const int64_t own = options_.confirm_written ? log_->log_end() : log_->durable_end();
  const int64_t c = confirm_position(options_.leader_id, own, in_sync_, acks, before);
  if (c > before) log_->set_confirmed(c);
  // Also when C stays: the waiters answer later add()s with the set's size as it is now.
  waiters_.confirm(c, in_sync_size());
  if (c > before) wake_all();
}

size_t ReplicationServer::in_sync_size() const {
  std::vector<int32_t> members = in_sync_;
  members.push_back(options_.leader_id);  // the leader always counts, once
  std::sort(members.begin(), members.end());
  return static_cast<size_t>(std::unique(members.begin(), members.end()) - members.begin());
}

void ReplicationServer::wake_all() {
  for (auto& [id, s] : sessions_) s->wake.notify();
}

}  // namespace rokka::cluster
