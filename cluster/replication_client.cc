#include "cluster/replication_client.h"

#include <algorithm>
#include <functional>
#include <utility>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

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

std::string endpoint_text(const tcp::endpoint& e) { return e.address().to_string() + ":" + std::to_string(e.port()); }
}  // namespace

std::shared_ptr<ReplicationClient> ReplicationClient::create(asio::any_io_executor ex, std::shared_ptr<ReplicatedLog> log,
                                                             ReplicationClientOptions options) {
  return std::shared_ptr<ReplicationClient>(new ReplicationClient(std::move(ex), std::move(log), std::move(options)));
}

ReplicationClient::ReplicationClient(asio::any_io_executor ex, std::shared_ptr<ReplicatedLog> log,
                                     ReplicationClientOptions options)
    : ex_(ex), log_(std::move(log)), options_(std::move(options)), backoff_wake_(std::make_unique<Signal>(ex)) {
  const auto epochs = log_->epochs();
  if (!epochs.empty()) highest_epoch_ = epochs.back().epoch;
}

ReplicationClient::~ReplicationClient() = default;

void ReplicationClient::start() {
  running_ = true;
  auto self = shared_from_this();
  asio::co_spawn(ex_, [self] { return self->run(); }, asio::detached);
}

void ReplicationClient::stop() {
  asio::post(ex_, [self = shared_from_this()] {
    self->stopped_ = true;
    if (self->current_) self->current_->close();
    self->backoff_wake_->notify();
  });
}

void ReplicationClient::observe_epoch(int32_t epoch) {
  asio::post(ex_, [self = shared_from_this(), epoch] {
    if (epoch <= self->highest_epoch_.load()) return;
    self->highest_epoch_ = epoch;
    // A session with an older leader ends now; the next HELLO goes to whoever leads.
    if (self->current_) self->current_->close();
  });
}

void ReplicationClient::set_leader(tcp::endpoint leader) {
  asio::post(ex_, [self = shared_from_this(), leader] {
    self->options_.leader = leader;
    self->leader_moved_ = true;
    if (self->current_) self->current_->close();
    self->backoff_wake_->notify();
  });
}

std::string ReplicationClient::last_error() const {
  std::lock_guard lock(error_mu_);
  return last_error_;
}

void ReplicationClient::set_error(const Status& s) {
  std::lock_guard lock(error_mu_);
  last_error_ = s.to_string();
}

asio::awaitable<void> ReplicationClient::run() {
  auto self = shared_from_this();
  auto backoff = options_.backoff_min;
  while (!stopped_) {
    bool welcomed = false;
    Status why = co_await session(welcomed);
    current_.reset();
    if (stopped_) break;
    set_error(why);
    if (welcomed || std::exchange(leader_moved_, false)) backoff = options_.backoff_min;
    log().info("replication: group {}: follower {}: session with {} ended: {}; again in {} ms", options_.group,
               options_.follower_id, endpoint_text(options_.leader), why.to_string(), backoff.count());
    co_await backoff_wake_->wait(Clock::now() + backoff);
    if (!welcomed) backoff = std::min(backoff * 2, options_.backoff_max);
  }
  running_ = false;
}

asio::awaitable<Status> ReplicationClient::session(bool& welcomed) {
  auto c = std::make_shared<repl::Connection>(ex_);
  current_ = c;
  c->set_deadline(Clock::now() + options_.connect_timeout);
  asio::co_spawn(ex_, [c] { return c->watchdog(); }, asio::detached);
  struct CloseOnExit {
    std::shared_ptr<repl::Connection> c;
    ~CloseOnExit() { c->close(); }
  } closer{c};

  auto [ec] = co_await c->socket.async_connect(options_.leader, kNoThrow);
  if (ec) {
    co_return Status::io_error("connect to " + endpoint_text(options_.leader) + ": " +
                               (c->timed_out ? std::string("timed out") : ec.message()));
  }
  boost::system::error_code ignored;
  c->socket.set_option(tcp::no_delay(true), ignored);
  c->set_deadline(Clock::now() + options_.idle_timeout);

  repl::Hello hello;
  hello.cluster_id = options_.cluster_id;
  hello.group = options_.group;
  hello.follower_id = options_.follower_id;
  hello.broker_epoch = options_.broker_epoch;
  hello.segment_bytes = options_.segment_bytes;
  hello.max_entry_bytes = options_.max_entry_bytes;
  hello.log_begin = log_->log_begin();
  hello.log_end = log_->log_end();
  hello.epochs = log_->epochs();
  if (hello.epochs.size() > repl::kMaxEpochs) {
    // The newest ones, what a HELLO may carry: the rule walks from the newest down, and agreeing
    // on none of them only costs this follower its log (truncate_to = its log_begin).
    hello.epochs.erase(hello.epochs.begin(), hello.epochs.end() - static_cast<std::ptrdiff_t>(repl::kMaxEpochs));
  }
  const auto hello_frame = repl::encode(hello);
  if (Status st = co_await repl::write_bytes(*c, hello_frame); !st.ok()) co_return st;

  std::vector<std::byte> payload;
  auto header = co_await repl::read_frame(*c, payload, repl::data_bound(options_.max_entry_bytes));
  if (!header.ok()) co_return header.status();
  if (header->type == repl::FrameType::kReject) {
    auto reject = repl::decode_reject(payload);
    if (!reject.ok()) co_return reject.status();
    ++rejects_;
    co_return Status::conflict(std::string("refused by the leader: ") + repl::reject_reason_name(reject->reason) + ": " +
                               reject->message);
  }
  if (header->type != repl::FrameType::kWelcome) {
    co_return Status::malformed(std::string("expected WELCOME or REJECT, got ") + repl::frame_type_name(header->type));
  }
  auto welcome = repl::decode_welcome(payload);
  if (!welcome.ok()) co_return welcome.status();
  if (welcome->epoch < highest_epoch_.load()) {
    ++refusals_;
    co_return Status::conflict("leader " + std::to_string(welcome->leader_id) + " is at epoch " +
                               std::to_string(welcome->epoch) + ", below epoch " +
                               std::to_string(highest_epoch_.load()) + " this follower has seen");
  }
  highest_epoch_ = welcome->epoch;
  const int64_t begin = log_->log_begin();
  const int64_t end = log_->log_end();
  if (welcome->truncate_to > end) {  // its log ends below the leader's log_begin: a snapshot comes first
    if (Status st = co_await rebootstrap(*c, *welcome); !st.ok()) co_return st;
  } else if (welcome->truncate_to < begin) {
    co_return Status::malformed("truncate_to " + std::to_string(welcome->truncate_to) + " outside this log [" +
                                std::to_string(begin) + ", " + std::to_string(end) + ")");
  }
  if (welcome->truncate_to < end) {
    const int64_t to = welcome->truncate_to;
    auto target = log_;
    std::function<void(storage::StatusCallback)> op = [target, to](storage::StatusCallback done) {
      target->truncate_to(to, std::move(done));
    };
    Status cut = co_await repl::await_status(std::move(op));
    if (!cut.ok()) co_return cut;
    ++truncations_;
    log().info("replication: group {}: follower {}: log cut from {} to {} for leader {} epoch {}", options_.group,
               options_.follower_id, end, to, welcome->leader_id, welcome->epoch);
  }
  if (log_->log_end() != welcome->truncate_to) {
    co_return Status::io_error("after truncation the log ends at " + std::to_string(log_->log_end()) + ", not " +
                               std::to_string(welcome->truncate_to));
  }
  welcomed = true;
  ++welcomes_;
  co_return co_await stream(*c, *welcome);
}

asio::awaitable<Status> ReplicationClient::rebootstrap(repl::Connection& c, const repl::Welcome& welcome) {
  std::vector<std::byte> snapshot;
  std::vector<std::byte> payload;
  int64_t total = -1;
  while (total < 0 || static_cast<int64_t>(snapshot.size()) < total) {
    auto header = co_await repl::read_frame(c, payload, repl::data_bound(options_.max_entry_bytes));
    if (!header.ok()) co_return header.status();
    if (header->type != repl::FrameType::kSnapshot) {
      co_return Status::malformed(std::string("expected SNAPSHOT, got ") + repl::frame_type_name(header->type));
    }
    auto piece = repl::decode_snapshot_piece(payload);  // total and piece bounded there
    if (!piece.ok()) co_return piece.status();
    const auto& h = piece->header;
    if (h.epoch != welcome.epoch) {
      co_return Status::malformed("SNAPSHOT of epoch " + std::to_string(h.epoch) + " in a session of epoch " +
                                  std::to_string(welcome.epoch));
    }
    if (total < 0) {
      total = h.total_bytes;
      snapshot.reserve(static_cast<size_t>(total));  // at most repl::kMaxSnapshotBytes
    }
    if (h.total_bytes != total || h.offset != static_cast<int64_t>(snapshot.size())) {
      co_return Status::malformed("SNAPSHOT piece at " + std::to_string(h.offset) + " of " +
                                  std::to_string(h.total_bytes) + ", expected " + std::to_string(snapshot.size()) +
                                  " of " + std::to_string(total));
    }
    snapshot.insert(snapshot.end(), piece->bytes.begin(), piece->bytes.end());
    c.set_deadline(Clock::now() + options_.idle_timeout);
  }
  auto target = log_;
  const int64_t at = welcome.truncate_to;
  const std::span<const std::byte> bytes(snapshot);  // lives until the reset answered
  std::function<void(storage::StatusCallback)> op = [target, at, bytes](storage::StatusCallback done) {
    target->reset_to(at, bytes, std::move(done));
  };
  Status reset = co_await repl::await_status(std::move(op));
  if (!reset.ok()) co_return reset;
  ++rebootstraps_;
  log().warn("replication: group {}: follower {}: re-bootstrapped at {} for leader {} epoch {} ({} snapshot bytes)",
             options_.group, options_.follower_id, at, welcome.leader_id, welcome.epoch, snapshot.size());
  c.set_deadline(Clock::now() + options_.idle_timeout);
  co_return Status{};
}

asio::awaitable<Status> ReplicationClient::stream(repl::Connection& c, const repl::Welcome& welcome) {
  int64_t expected = welcome.truncate_to;
  std::vector<std::byte> payload;
  while (!stopped_) {
    auto header = co_await repl::read_frame(c, payload, repl::data_bound(options_.max_entry_bytes));
    if (!header.ok()) co_return header.status();
    if (header->type != repl::FrameType::kData) {
      co_return Status::malformed(std::string("expected DATA, got ") + repl::frame_type_name(header->type));
    }
    auto data = repl::decode_data(payload, repl::data_bound(options_.max_entry_bytes));
    if (!data.ok()) co_return data.status();
    const auto& h = data->header;
    if (h.epoch != welcome.epoch) {
      co_return Status::malformed("DATA of epoch " + std::to_string(h.epoch) + " in a session of epoch " +
                                  std::to_string(welcome.epoch));
    }
    if (h.epoch < highest_epoch_.load()) {
      ++refusals_;
      co_return Status::conflict("DATA of epoch " + std::to_string(h.epoch) + ", below epoch " +
                                 std::to_string(highest_epoch_.load()) + " this follower has seen");
    }
    if (h.from_pos != expected) {
      co_return Status::malformed("DATA from " + std::to_string(h.from_pos) + ", expected " + std::to_string(expected));
    }
    c.set_deadline(Clock::now() + options_.idle_timeout);
    if (!data->bytes.empty()) {
      auto target = log_;
      const int64_t from = h.from_pos;
      const auto bytes = data->bytes;  // points into payload, which lives until the next read
      std::function<void(storage::StatusCallback)> op = [target, from, bytes](storage::StatusCallback done) {
        target->append_replicated(from, bytes, std::move(done));
      };
      Status wrote = co_await repl::await_status(std::move(op));
      if (!wrote.ok()) co_return wrote;
      expected += static_cast<int64_t>(bytes.size());
    }
    const int64_t written = log_->log_end();
    const int64_t confirm = std::min(h.confirm_pos, written);
    if (confirm > confirmed_.load()) {
      log_->set_confirmed(confirm);
      confirmed_ = confirm;
    }
    const repl::Ack ack{.written_end = written, .durable_end = std::min(log_->durable_end(), written)};
    const auto frame = repl::encode(ack);
    if (Status st = co_await repl::write_bytes(c, frame); !st.ok()) co_return st;
  }
  co_return Status::shutdown("follower stopping");
}

}  // namespace rokka::cluster
