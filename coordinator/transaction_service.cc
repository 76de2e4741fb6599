#include "coordinator/transaction_service.h"

#include <algorithm>
#include <chrono>

#include "coordinator/log.h"

namespace rokka::coordinator {

namespace {

int64_t system_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

TransactionService::TransactionService(GroupService& groups, storage::MetaStore& meta, TxnCoordinatorOptions options,
                                       TransactionCoordinator::AllocateProducerId allocate,
                                       TransactionCoordinator::WriteMarkers write_markers,
                                       TransactionCoordinator::Clock clock_ms)
    : strand_(groups.strand()),
      meta_(meta),
      clock_(clock_ms ? std::move(clock_ms) : TransactionCoordinator::Clock(system_clock_ms)),
      core_(options, meta, clock_, [this](std::function<void()> fn) { post_to_strand(std::move(fn)); },
            std::move(allocate), std::move(write_markers), groups.coordinator()),
      timer_(strand_) {}

TransactionService::~TransactionService() {
  if (loader_.joinable()) loader_.join();
}

void TransactionService::start() {
  loading_.emplace(strand_.get_inner_executor());
  loader_ = std::thread([this] {
    LoadedTxns loaded = load_transactions(meta_);
    asio::post(strand_, [this, loaded = std::move(loaded)]() mutable {
      if (!stopped_) core_.install(std::move(loaded));
      loading_.reset();
      rearm();
    });
  });
}

void TransactionService::stop() {
  asio::post(strand_, [this] {
    stopped_ = true;
    core_.shutdown();
    timer_.cancel();
    armed_deadline_.reset();
  });
  if (loader_.joinable() && loader_.get_id() != std::this_thread::get_id()) loader_.join();
}

void TransactionService::post_to_strand(std::function<void()> fn) {
  asio::post(strand_, [this, fn = std::move(fn)] {
    fn();
    rearm();
  });
}

void TransactionService::rearm() {
  if (stopped_) return;
  core_.run_due_timers();
  const std::optional<int64_t> next = core_.next_deadline();
  if (!next || (armed_deadline_ && *armed_deadline_ <= *next)) return;
  armed_deadline_ = next;
  timer_.expires_after(std::chrono::milliseconds(std::max<int64_t>(0, *next - clock_())));
  timer_.async_wait(asio::bind_executor(strand_, [this, deadline = *next](const boost::system::error_code& ec) {
    if (ec || armed_deadline_ != deadline) return;
    armed_deadline_.reset();
    rearm();
  }));
}

asio::awaitable<InitProducerIdResult> TransactionService::init_producer_id(InitProducerIdArgs args) {
  return run<InitProducerIdResult>(
      [args = std::move(args)](TransactionCoordinator& c, std::function<void(InitProducerIdResult)> done) mutable {
        c.init_producer_id(std::move(args), std::move(done));
      });
}

asio::awaitable<TxnError> TransactionService::add_partitions(ProducerRef producer,
                                                             std::vector<TopicPartition> partitions) {
  return run<TxnError>([producer = std::move(producer), partitions = std::move(partitions)](
                           TransactionCoordinator& c, std::function<void(TxnError)> done) mutable {
    c.add_partitions(std::move(producer), std::move(partitions), std::move(done));
  });
}

asio::awaitable<TxnError> TransactionService::add_offsets(ProducerRef producer, std::string group_id) {
  return run<TxnError>([producer = std::move(producer), group_id = std::move(group_id)](
                           TransactionCoordinator& c, std::function<void(TxnError)> done) mutable {
    c.add_offsets(std::move(producer), std::move(group_id), std::move(done));
  });
}

asio::awaitable<TxnOffsetCommitResult> TransactionService::txn_offset_commit(TxnOffsetCommitArgs args) {
  return run<TxnOffsetCommitResult>(
      [args = std::move(args)](TransactionCoordinator& c, std::function<void(TxnOffsetCommitResult)> done) mutable {
        c.txn_offset_commit(std::move(args), std::move(done));
      });
}

asio::awaitable<TxnError> TransactionService::end_txn(ProducerRef producer, bool commit) {
  return run<TxnError>([producer = std::move(producer), commit](TransactionCoordinator& c,
                                                                  std::function<void(TxnError)> done) mutable {
    c.end_txn(std::move(producer), commit, std::move(done));
  });
}

void TransactionService::check_produce(ProducerRef producer, std::vector<TopicPartition> partitions,
                                       std::function<void(TxnError)> then) {
  asio::post(strand_, [this, producer = std::move(producer), partitions = std::move(partitions),
                       then = std::move(then)] {
    rearm();
    then(stopped_ ? TxnError::kCoordinatorNotAvailable : core_.check_produce(producer, partitions));
  });
}

}  // namespace rokka::coordinator
