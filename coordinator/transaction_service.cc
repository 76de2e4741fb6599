#include "coordinator/transaction_service.h"

#include <chrono>

#include "coordinator/log.h"

namespace rokka::coordinator {

TransactionService::TransactionService(GroupService& groups, storage::MetaStore& meta, TxnCoordinatorOptions options,
                                       TransactionCoordinator::AllocateProducerId allocate,
                                       TransactionCoordinator::WriteMarkers write_markers,
                                       TransactionCoordinator::Clock clock_ms)
    : meta_(meta),
      clock_(clock_ms ? std::move(clock_ms) : TransactionCoordinator::Clock(system_clock_ms)),
      core_(options, meta, clock_, [this](std::function<void()> fn) { host_.post(std::move(fn)); },
            std::move(allocate), std::move(write_markers), groups.coordinator()),
      host_(groups.strand(), clock_, core_) {}

TransactionService::~TransactionService() = default;

void TransactionService::start() {
  host_.start([this] { return load_transactions(meta_); });
}

void TransactionService::stop() { host_.stop(); }

asio::awaitable<InitProducerIdResult> TransactionService::init_producer_id(InitProducerIdArgs args) {
  return host_.run<InitProducerIdResult>(
      [args = std::move(args)](TransactionCoordinator& c, std::function<void(InitProducerIdResult)> done) mutable {
        c.init_producer_id(std::move(args), std::move(done));
      });
}

asio::awaitable<TxnError> TransactionService::add_partitions(ProducerRef producer,
                                                             std::vector<TopicPartition> partitions) {
  return host_.run<TxnError>([producer = std::move(producer), partitions = std::move(partitions)](
                           TransactionCoordinator& c, std::function<void(TxnError)> done) mutable {
    c.add_partitions(std::move(producer), std::move(partitions), std::move(done));
  });
}

asio::awaitable<TxnError> TransactionService::add_offsets(ProducerRef producer, std::string group_id) {
  return host_.run<TxnError>([producer = std::move(producer), group_id = std::move(group_id)](
                           TransactionCoordinator& c, std::function<void(TxnError)> done) mutable {
    c.add_offsets(std::move(producer), std::move(group_id), std::move(done));
  });
}

asio::awaitable<TxnOffsetCommitResult> TransactionService::txn_offset_commit(TxnOffsetCommitArgs args) {
  return host_.run<TxnOffsetCommitResult>(
      [args = std::move(args)](TransactionCoordinator& c, std::function<void(TxnOffsetCommitResult)> done) mutable {
        c.txn_offset_commit(std::move(args), std::move(done));
      });
}

asio::awaitable<TxnError> TransactionService::end_txn(ProducerRef producer, bool commit) {
  return host_.run<TxnError>([producer = std::move(producer), commit](TransactionCoordinator& c,
                                                                  std::function<void(TxnError)> done) mutable {
    c.end_txn(std::move(producer), commit, std::move(done));
  });
}

asio::awaitable<std::vector<TxnDescription>> TransactionService::describe(std::vector<std::string> transactional_ids) {
  return host_.run<std::vector<TxnDescription>>(
      [ids = std::move(transactional_ids)](TransactionCoordinator& c,
                                           std::function<void(std::vector<TxnDescription>)> done) {
        std::vector<TxnDescription> out;
        out.reserve(ids.size());
        for (const std::string& id : ids) out.push_back(c.describe(id));
        done(std::move(out));
      });
}

asio::awaitable<TxnListResult> TransactionService::list(TxnListFilter filter) {
  return host_.run<TxnListResult>([filter = std::move(filter)](TransactionCoordinator& c,
                                                         std::function<void(TxnListResult)> done) {
    done(c.list(filter));
  });
}

void TransactionService::check_produce(ProducerRef producer, std::vector<TopicPartition> partitions,
                                       std::function<void(TxnError)> then) {
  asio::post(host_.strand(), [this, producer = std::move(producer), partitions = std::move(partitions),
                              then = std::move(then)] {
    host_.rearm();
    then(host_.stopped() ? TxnError::kCoordinatorNotAvailable : core_.check_produce(producer, partitions));
  });
}

}  // namespace rokka::coordinator
